import Foundation
import FuzzSupport

// HAR import (`understudy import-har`): the file's bytes read into exchanges, and each exchange
// made into a mapping as the recorder does (matching, naming, redaction, body decoding); each
// WebSocket session into message mappings, which must load.
@testable import Recording
@testable import Stubs

private let recipe = MappingRecipe(options: RecordingOptions())
private let directory = StubDirectory(root: URL(fileURLWithPath: "/nonexistent/understudy-fuzz"))

/// libFuzzer's main, linked in with its runtime, wants this symbol even though it is not used.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let (exchanges, channels, skipped) = try? HARImport.exchanges(FuzzInput(data, size).bytes) else { return 0 }
    _ = skipped.map(\.description)
    // A WebSocket session's messages as message mappings, which the server must load.
    for channel in channels {
        for mapping in channel.mappings() {
            guard (try? MessageStubMapping.parse(mapping, in: directory)) != nil else {
                fatalError("a recorded mapping does not load: \(mapping.serialized)")
            }
        }
    }
    for exchange in exchanges {
        let key = recipe.key(exchange)
        let name = recipe.name(exchange, key: key)
        _ = recipe.mapping(exchange, name: name, scenario: (name: "s", required: "Started", next: "2"))
    }
    return 0
}

// Last: the driver never returns, and what it calls may read the globals above, set by then.
runFuzzer(fuzzOne)
