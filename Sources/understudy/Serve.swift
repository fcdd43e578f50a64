import ArgumentParser
import Foundation
import Geocoder
import HTTPServer
import Informix
import Lotus
import Logging
import MockCore
import Stubs

/// `understudy serve`: starts the server and runs until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the stubs and emulators until stopped (Ctrl-C / SIGTERM).")

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to listen on (IPv4 or IPv6; 0.0.0.0 or :: for every interface).")
    var bind: String = "127.0.0.1"

    @Option(help: "The stubs directory: __files/, mappings/ and one folder per emulator.")
    var stubs: String = "./stubs"

    @Option(help: "Worker threads, each with its own event loop (default: one per core).")
    var threads: Int = System.coreCount

    @Option(help: "Write the port, once listening, to this file.")
    var portFile: String?

    @Option(help: "Largest request body accepted, in bytes (larger ones get 413).")
    var maxBody: Int = 16 * 1024 * 1024

    @Option(help: "Close connections idle this many seconds.")
    var idleTimeout: Int = 60

    @Option(help: "Seconds in-flight requests get to finish after SIGINT/SIGTERM.")
    var shutdownGrace: Int = 10

    @Option(help: "Requests kept in the journal (GET /__admin/requests).")
    var journalSize: Int = 10_000

    @Flag(name: [.customLong("global-templating"), .customLong("global-response-templating")],
          help: "Treat every stub response as a template, not only those with transformers: [\"response-template\"].")
    var globalTemplating = false

    @Option(help: "Keep emulator state (the Informix database) in files of this directory between runs.")
    var dataDir: String?

    @Flag(inversion: .prefixedNo, help: "Reload stub files when they change (within a second).")
    var watch = true

    @Flag(help: "Log one line per request.")
    var verbose = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535, not \(port)") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1, not \(threads)") }
        guard maxBody >= 0 else { throw ValidationError("--max-body must not be negative") }
        guard idleTimeout >= 1 else { throw ValidationError("--idle-timeout must be at least 1 second") }
        guard journalSize >= 1 else { throw ValidationError("--journal-size must be at least 1") }
    }

    func run() throws {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "understudy")

        let stubsURL = URL(fileURLWithPath: stubs)
        if !FileManager.default.fileExists(atPath: stubsURL.path) {
            logger.warning("stubs directory \(stubsURL.path) does not exist: serving the admin API only")
        }
        let journal = RequestJournal(capacity: journalSize)
        let stubs = StubEngine(stubsDirectory: stubsURL, globalTemplating: globalTemplating, logger: logger)
        let staticFiles = StaticFiles(root: stubsURL.appendingPathComponent("__files"), logger: logger)
        let watcher = watch ? StubWatcher(engine: stubs, logger: logger, onChange: staticFiles.reload) : nil
        let backends: [any Backend] = [StubAdminAPI(engine: stubs, journal: journal), stubs, staticFiles] + emulators(stubsURL, logger)
        let router = Router(backends: backends, journal: journal, logger: logger) {
            logger.info("shutdown requested through POST /__admin/shutdown")
            kill(getpid(), SIGTERM)
        }

        var configuration = ServerConfiguration()
        configuration.host = bind
        configuration.port = port
        configuration.threads = threads
        configuration.maxBodySize = maxBody
        configuration.idleTimeout = .seconds(idleTimeout)

        // Worker threads inherit the blocked mask, so only the main thread's sigwait sees these.
        let signals = ShutdownSignals()
        let server: HTTPServer
        do {
            server = try HTTPServer.start(configuration: configuration, handler: router)
        } catch {
            throw ValidationError("\(error)")
        }
        // The port file first: whoever waits for the line may read the file at once.
        if let portFile { try writePortFile(portFile, port: server.address.port) }
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))

        let signal = signals.wait()
        logger.info("received \(signal), stopping: in-flight requests get \(shutdownGrace) s")
        server.shutdown(gracePeriod: .seconds(shutdownGrace))
        server.wait()
        watcher?.stop()
        logger.info("stopped")
    }

    /// The emulators whose fixture folder `stubs` has.
    private func emulators(_ stubs: URL, _ logger: Logger) -> [any Backend] {
        var emulators: [any Backend] = []
        let geocoder = stubs.appendingPathComponent("geocoder")
        if FileManager.default.fileExists(atPath: geocoder.path) {
            emulators.append(GeocoderBackend(directory: geocoder, logger: logger))
        }
        let informix = stubs.appendingPathComponent("informix")
        if FileManager.default.fileExists(atPath: informix.path) {
            emulators.append(InformixBackend(directory: informix, dataDirectory: dataDir.map { URL(fileURLWithPath: $0) }, logger: logger))
        }
        let lotus = stubs.appendingPathComponent("lotus")
        if FileManager.default.fileExists(atPath: lotus.path) {
            emulators.append(LotusBackend(directory: lotus, logger: logger))
        }
        return emulators
    }

    /// Written whole under a temporary name, then renamed, so a reader never sees half a number.
    private func writePortFile(_ path: String, port: Int) throws {
        do {
            try SafeFile.write(Data("\(port)\n".utf8), to: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot write --port-file \(path): \(error.localizedDescription)")
        }
    }
}
