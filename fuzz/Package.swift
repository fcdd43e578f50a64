// swift-tools-version:6.0
// libFuzzer targets for every parser of client bytes (docs/fuzzing.md). Its own package, so the
// root build never sees it; built by `make fuzz-build` with -sanitize=fuzzer,address and
// -enable-testing passed to every module (internal parsers are reached with @testable import).
import PackageDescription

let targets = [
    "fuzz-xml", "fuzz-json", "fuzz-form", "fuzz-template", "fuzz-jsonpath", "fuzz-stub-mapping",
    "fuzz-informix-sql", "fuzz-har", "fuzz-content-decoding", "fuzz-proxy-request", "fuzz-multipart", "fuzz-http-version",
    "fuzz-json-schema", "fuzz-webhook-destination", "fuzz-websocket", "fuzz-mcp", "fuzz-graphql", "fuzz-contract",
]

let package = Package(
    name: "UnderstudyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Understudy", path: "..")],
    targets: [
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"]),
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "HTTPServer", package: "Understudy"),
                    .product(name: "JSON", package: "Understudy"),
                    .product(name: "XML", package: "Understudy"),
                    .product(name: "MockCore", package: "Understudy"),
                    .product(name: "DeviceProxy", package: "Understudy"),
                    .product(name: "Templating", package: "Understudy"),
                    .product(name: "WorkLimits", package: "Understudy"),
                    .product(name: "Stubs", package: "Understudy"),
                    .product(name: "Informix", package: "Understudy"),
                    .product(name: "Recording", package: "Understudy"),
                    .product(name: "MCPServer", package: "Understudy"),
                    .product(name: "GraphQLMatching", package: "Understudy"),
                    .product(name: "ContractValidation", package: "Understudy"),
                ],
                path: "Sources/\(name)"
            )
        }
)
