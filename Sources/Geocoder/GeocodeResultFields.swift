import WireFormat

/// A text of a result as the writers write it: as it is, or escaped by the format's convention.
protocol ResultText {
    func write(to out: inout ByteWriter)
    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter)
}

/// A result's fields as the writers lay them out, one writer per format for every kind of result:
/// a gazetteer place is read from its records as it is written (`PlaceResult`), a user's place
/// from the values made when the places were read (`GeocodeResult`).
protocol GeocodeResultFields {
    associatedtype TypeName: ResultText
    associatedtype Address: ResultText
    associatedtype Component: AddressComponentFields
    associatedtype LocationType: ResultText
    associatedtype PlaceID: ResultText

    var types: [TypeName] { get }
    var formattedAddress: Address { get }
    var hasComponents: Bool { get }
    /// The address components, in Google's order.
    func forEachComponent(_ body: (Component) -> Void)
    var location: Coordinate { get }
    var locationType: LocationType { get }
    /// The viewport, and the bounds when the result is an area (read together: a place's are
    /// one box, made once).
    var geometry: (viewport: Box, bounds: Box?) { get }
    var partialMatch: Bool { get }
    var placeID: PlaceID { get }
}

/// One entry of a result's `address_components`, as the writers read it.
protocol AddressComponentFields {
    associatedtype Name: ResultText
    associatedtype TypeName: ResultText

    var longName: Name { get }
    var shortName: Name { get }
    var types: [TypeName] { get }
}

extension String: ResultText {
    func write(to out: inout ByteWriter) { out.write(self) }
    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter) { escaper.append(self, to: &out) }
}

/// The literals of results are Google's type names and fixed words: no convention escapes any of
/// their characters, so they are written as they are.
extension StaticString: ResultText {
    func write(to out: inout ByteWriter) { out.write(self) }

    func write(escapedBy escaper: TextEscaper, to out: inout ByteWriter) {
        assert(!UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount).contains(where: escaper.isSpecial), "\(self) needs escaping")
        out.write(self)
    }
}

extension GeocodeResult: GeocodeResultFields {
    var hasComponents: Bool { !components.isEmpty }
    var geometry: (viewport: Box, bounds: Box?) { (viewport, bounds) }
    func forEachComponent(_ body: (AddressComponent) -> Void) { components.forEach(body) }
}

extension AddressComponent: AddressComponentFields {}
