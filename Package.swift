// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Understudy",
    platforms: [.macOS(.v15), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "understudy", targets: ["understudy"]),
        // What an app's tests import (docs/swift-client.md): Foundation only, none of the server's
        // targets or system libraries, so it builds for iOS.
        .library(name: "UnderstudyClient", type: .static, targets: ["UnderstudyClient"]),
        // Libraries for the fuzz package in fuzz/ (docs/fuzzing.md); the server is the executable.
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "XML", targets: ["XML"]),
        .library(name: "MockCore", targets: ["MockCore"]),
        .library(name: "DeviceProxy", targets: ["DeviceProxy"]),
        .library(name: "Templating", targets: ["Templating"]),
        .library(name: "WorkLimits", targets: ["WorkLimits"]),
        .library(name: "Stubs", targets: ["Stubs"]),
        .library(name: "Informix", targets: ["Informix"]),
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "MCPServer", targets: ["MCPServer"]),
        .library(name: "GraphQLMatching", targets: ["GraphQLMatching"]),
        .library(name: "ContractValidation", targets: ["ContractValidation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 1.11: LogHandler.log(event:), the entry point handlers implement (the older one is deprecated).
        .package(url: "https://github.com/apple/swift-log", from: "1.11.0"),
        // GraphQL documents parsed for matching (a port of graphql-js; only its parser is used).
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        // OpenAPI documents read (3.0 and 3.1 models) and YAML parsed, by OpenAPIContracts alone:
        // when the server starts or a spec is imported, never on a request.
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev", "libssl-dev"]), .brew(["libevent", "openssl"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibxml2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // Escaping, byte writing, calendar dates and hashing: below everything that writes output, the
        // template engine and JSON included, so neither of those needs the server.
        .target(name: "WireFormat"),
        .target(name: "UnderstudyClient"),
        .target(name: "JSON", dependencies: ["WireFormat", "WorkLimits"]),
        // The work one request may do on a loop, shared by matchers, templates and webhooks.
        .target(name: "WorkLimits"),
        // evhttp's header lines written without vsnprintf (see its header).
        .target(name: "CEvhttpHeaders"),
        // jemalloc's settings, for the release build that links it (tools/release-flags.sh).
        .target(name: "CAllocatorSettings"),
        .target(name: "HTTPServer", dependencies: ["CLibevent", "CEvhttpHeaders", "CZlib", "WireFormat"]),
        .target(name: "XML", dependencies: ["CLibxml2", "WorkLimits"]),
        .target(
            name: "MockCore",
            dependencies: ["HTTPServer", "JSON", "WireFormat", "WorkLimits", .product(name: "Logging", package: "swift-log")],
            // The dashboard's pages (/__admin/ui), plain files served from memory.
            resources: [.copy("Resources/Dashboard")]
        ),
        // Device mode (the server as a device's proxy, hosts.json) and the local CA it ends TLS with.
        .target(
            name: "DeviceProxy",
            dependencies: ["MockCore", "HTTPServer", "JSON", "WireFormat", "CLibevent", .product(name: "Logging", package: "swift-log")]
        ),
        // A team server's replicas (--peer, --peers-dns): the router's TeamFleet and /__admin/fleet.
        .target(
            name: "Fleet",
            dependencies: ["MockCore", "HTTPServer", "JSON", .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "Templating", dependencies: ["JSON", "WireFormat", "WorkLimits"]),
        // GraphQL requests read and compared as documents (wiremock-graphql-extension's matcher),
        // behind our own types: GraphQLSwift stays out of every other module.
        .target(
            name: "GraphQLMatching", dependencies: ["HTTPServer", "JSON", "WorkLimits", .product(name: "GraphQL", package: "GraphQL")]),
        .target(
            name: "Stubs",
            dependencies: [
                "MockCore", "HTTPServer", "JSON", "Templating", "WireFormat", "WorkLimits", "XML", "GraphQLMatching",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Traffic checked against an API contract (an OpenAPI document's operations and schemas,
        // with Stubs' JSON Schema validator): the server's own code, on the request path.
        .target(name: "ContractValidation", dependencies: ["MockCore", "HTTPServer", "JSON", "Stubs"]),
        // OpenAPI documents read (OpenAPIKit's model, Yams) and imported as stubs: when the server
        // starts or a spec is imported, never on a request.
        .target(
            name: "OpenAPIContracts",
            dependencies: [
                "ContractValidation", "MockCore", "JSON", "Stubs",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"), .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The MCP server (`POST /__admin/mcp`): tools and resources over the admin route table.
        .target(name: "MCPServer", dependencies: ["MockCore", "HTTPServer", "JSON", "WireFormat"]),
        .target(
            name: "Geocoder",
            dependencies: ["MockCore", "HTTPServer", "JSON", "WireFormat", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "Informix",
            dependencies: ["MockCore", "HTTPServer", "JSON", "WireFormat", "CSQLite", .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(
            name: "Recording",
            dependencies: [
                "MockCore", "HTTPServer", "JSON", "Stubs", "WireFormat", "CZlib", "GraphQLMatching", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Lotus",
            dependencies: ["MockCore", "HTTPServer", "JSON", "WireFormat", "XML", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "Commerce",
            dependencies: ["MockCore", "HTTPServer", "JSON", "Templating", "WireFormat", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "understudy",
            dependencies: [
                "MockCore", "DeviceProxy", "Fleet", "HTTPServer", "JSON", "Stubs", "Geocoder", "Informix", "Lotus", "Recording", "Commerce",
                "MCPServer",
                "ContractValidation", "OpenAPIContracts", "WireFormat", "WorkLimits",
                "CAllocatorSettings", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "UnderstudyTesting",
            dependencies: ["MockCore", "HTTPServer", .product(name: "Logging", package: "swift-log")],
            path: "Tests/UnderstudyTesting"
        ),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "WorkLimitsTests", dependencies: ["WorkLimits"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "DeviceProxy", "CEvhttpHeaders", "CLibevent", "UnderstudyTesting"]),
        .testTarget(
            name: "MockCoreTests",
            dependencies: ["MockCore", "HTTPServer", "JSON", "UnderstudyTesting", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: ["Fleet", "MockCore", "HTTPServer", "JSON", "UnderstudyTesting", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "DeviceProxyTests", dependencies: ["DeviceProxy", "MockCore", "HTTPServer", "CLibevent", "UnderstudyTesting"]),
        .testTarget(name: "TemplatingTests", dependencies: ["Templating", "JSON", "WorkLimits"]),
        .testTarget(name: "XMLTests", dependencies: ["XML"]),
        .testTarget(
            name: "StubsTests",
            dependencies: ["Stubs", "DeviceProxy", "HTTPServer", "JSON", "MockCore", "Templating", "UnderstudyTesting", "WorkLimits"]
        ),
        .testTarget(
            name: "GeocoderTests",
            dependencies: ["Geocoder", "HTTPServer", "MockCore", "WireFormat", "UnderstudyTesting"],
            resources: [.copy("Expected")]
        ),
        .testTarget(name: "InformixTests", dependencies: ["Informix", "HTTPServer", "MockCore", "UnderstudyTesting"]),
        .testTarget(name: "LotusTests", dependencies: ["Lotus", "MockCore", "HTTPServer", "UnderstudyTesting"]),
        .testTarget(
            name: "CommerceTests",
            dependencies: ["Commerce", "Geocoder", "DeviceProxy", "HTTPServer", "MockCore", "Templating", "UnderstudyTesting"]
        ),
        .testTarget(name: "GraphQLMatchingTests", dependencies: ["GraphQLMatching", "HTTPServer", "JSON"]),
        .testTarget(name: "MCPServerTests", dependencies: ["MCPServer", "MockCore", "HTTPServer", "JSON", "Stubs", "UnderstudyTesting"]),
        .testTarget(
            name: "OpenAPIContractsTests",
            dependencies: ["OpenAPIContracts", "ContractValidation", "Stubs", "JSON", "HTTPServer", "MockCore", "UnderstudyTesting"],
            resources: [.copy("Specs")]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "Stubs", "JSON", "HTTPServer", "MockCore", "UnderstudyTesting"]),
        .testTarget(
            name: "ClientDesignTests",
            dependencies: ["Stubs", "Geocoder", "Informix", "Lotus", "Commerce", "DeviceProxy", "MockCore", "HTTPServer", "UnderstudyTesting"]),
        .testTarget(name: "UnderstudyCLITests", dependencies: ["understudy", "HTTPServer", "MCPServer", "MockCore", "JSON", "UnderstudyTesting"]),
        // Against the built `understudy` started by the tests: the client as an app's tests use it.
        .testTarget(name: "UnderstudyClientTests", dependencies: ["UnderstudyClient", "understudy", "UnderstudyTesting"]),
    ]
)
