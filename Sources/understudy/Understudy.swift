// Module understudy: the command line — options, logging, wiring backends to the server, and
// signal handling. Adding an emulator is one line in RegisteredEmulators.swift's list.

import ArgumentParser
import MockCore

/// `understudy`: one command that serves every emulated backend and the stubs.
@main
struct Understudy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "understudy",
        abstract: "A mock backend server for hybrid mobile apps: emulators, WireMock-compatible stubs, record and replay.",
        version: UnderstudyVersion.current,
        subcommands: [
            Serve.self, Record.self, ImportHAR.self, ImportOpenAPI.self, CheckContract.self, Check.self, CA.self, Trust.self, Tail.self,
            ExportHAR.self, MCPBridge.self, ListEmulators.self, Health.self,
            ListAdminRoutes.self,
        ],
        defaultSubcommand: Serve.self
    )
}
