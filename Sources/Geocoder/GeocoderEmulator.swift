import MockCore

extension Emulator {
    /// Google's geocoding web service over the gazetteer in `stubs/geocoder/` (docs/geocoder.md).
    public static let geocoder = Emulator(
        name: "geocoder",
        summary: "Google's geocoding web service (/maps/api/geocode) over a gazetteer",
        checkedFiles: "the gazetteer, places and configuration",
        benchmarks: [
            EmulatorBenchmark(
                name: "geocode-zip", about: "A US ZIP code as XML.",
                path: "/maps/api/geocode/xml?address=94086&sensor=true"),
            EmulatorBenchmark(
                name: "geocode-reverse", about: "A reverse lookup as JSON.",
                path: "/maps/api/geocode/json?latlng=37.3764,-122.0238&sensor=false"),
        ],
        start: { GeocoderBackend(directory: $0.directory, logger: $0.logger) },
        check: { GeocoderBackend.check(directory: $0) })
}
