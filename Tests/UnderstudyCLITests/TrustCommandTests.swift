import Foundation
import Testing
import UnderstudyTesting

/// `understudy trust`: against stand-in `adb` and `xcrun` executables on PATH that record their
/// arguments (one per line, a line `--` after each call) and answer as the real tools do.
@Suite struct TrustCommandTests {
    struct Run {
        let status: Int32
        let output: String
        let calls: [[String]]
    }

    /// Runs `understudy ARGS` with `tools` (name → shell script body after the recording) on PATH.
    func trust(_ arguments: [String], tools: [String: String], caDirectory: URL) throws -> Run {
        let bin = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: bin) }
        let log = bin.appendingPathComponent("calls.log")
        for (name, body) in tools {
            let script = bin.appendingPathComponent(name)
            try Data("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '\(log.path)'; done\necho -- >> '\(log.path)'\n\(body)\n".utf8).write(
                to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        }
        let process = ChildProcess()
        process.executableURL = understudyBinary
        process.arguments = ["trust"] + arguments
        process.environment = ["PATH": bin.path + ":/usr/bin:/bin", "UNDERSTUDY_CA_DIR": caDirectory.path, "HOME": caDirectory.path]
        let output = childPipe()
        process.standardOutput = output
        process.standardError = output
        try ProcessEnvironment.run(process)
        let text = String(decoding: output.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
        process.waitUntilExit()
        let recorded = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let calls = recorded.components(separatedBy: "--\n").dropLast().map {
            $0.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        return Run(status: process.terminationStatus, output: text, calls: calls)
    }

    @Test func androidGetsTheCAInItsSystemStoreAsItsSubjectHash() throws {
        let ca = try makeTemporaryDirectory([:]).appendingPathComponent("ca")
        defer { try? FileManager.default.removeItem(at: ca.deletingLastPathComponent()) }
        let adb = #"case "$*" in *" root"*) echo "restarting adbd as root";; esac"#
        let done = try trust(["android-emulator", "--serial", "emulator-5556"], tools: ["adb": adb], caDirectory: ca)
        #expect(done.status == 0, "\(done.output)")
        let hash = try openSSLSubjectHashOld(ca.appendingPathComponent("ca.pem"))
        let file = ca.appendingPathComponent("\(hash).0")
        #expect(done.calls.count == 4)
        #expect(
            done.calls.prefix(3).map { $0 } == [
                ["-s", "emulator-5556", "root"], ["-s", "emulator-5556", "wait-for-device"],
                ["-s", "emulator-5556", "push", file.path, "/data/local/tmp/\(hash).0"],
            ])
        let script = try #require(done.calls.last?.last)
        #expect(done.calls.last?.prefix(3).map { $0 } == ["-s", "emulator-5556", "shell"])
        #expect(script.contains("mount -t tmpfs tmpfs /system/etc/security/cacerts") && script.contains("/apex/com.android.conscrypt/cacerts"))
        #expect(script.contains("/data/local/tmp/\(hash).0 /system/etc/security/cacerts/\(hash).0"))
        #expect(try Data(contentsOf: file) == Data(contentsOf: ca.appendingPathComponent("ca.pem")), "the pushed file is the CA")

        // --print shows what runs, and runs nothing.
        let printed = try trust(["android-emulator", "--serial", "emulator-5556", "--print"], tools: ["adb": adb], caDirectory: ca)
        #expect(printed.status == 0 && printed.calls.isEmpty)
        #expect(
            printed.output.contains(
                "adb -s emulator-5556 root\nadb -s emulator-5556 wait-for-device\nadb -s emulator-5556 push \(file.path) /data/local/tmp/\(hash).0\n")
        )
        #expect(printed.output.contains("adb -s emulator-5556 shell 'set -e; "))
    }

    @Test func aGooglePlayImageGetsTheAppsConfigurationInstead() throws {
        let ca = try makeTemporaryDirectory([:]).appendingPathComponent("ca")
        defer { try? FileManager.default.removeItem(at: ca.deletingLastPathComponent()) }
        let adb = #"case "$*" in *root*) echo "adbd cannot run as root in production builds";; esac"#
        let done = try trust(["android-emulator"], tools: ["adb": adb], caDirectory: ca)
        #expect(done.status == 0)
        #expect(done.calls == [["root"]], "nothing is pushed")
        #expect(done.output.contains("<certificates src=\"user\" />") && done.output.contains("debug-overrides"))
    }

    @Test func theIOSSimulatorsKeychainGetsTheCA() throws {
        let ca = try makeTemporaryDirectory([:]).appendingPathComponent("ca")
        defer { try? FileManager.default.removeItem(at: ca.deletingLastPathComponent()) }
        let list =
            #"{"devices": {"com.apple.CoreSimulator.SimRuntime.iOS-18-0": [{"udid": "AAA-1", "state": "Booted"}, {"udid": "BBB-2", "state": "Shutdown"}, {"udid": "CCC-3", "state": "Booted"}]}}"#
        let xcrun = "case \"$*\" in *list*) echo '\(list)';; esac"
        let pem = ca.appendingPathComponent("ca.pem").path
        let booted = try trust(["ios-simulator"], tools: ["xcrun": xcrun], caDirectory: ca)
        #expect(booted.status == 0, "\(booted.output)")
        #expect(booted.calls == [["simctl", "keychain", "booted", "add-root-cert", pem]])
        let all = try trust(["ios-simulator", "--device", "all"], tools: ["xcrun": xcrun], caDirectory: ca)
        #expect(
            all.calls == [
                ["simctl", "list", "devices", "booted", "--json"], ["simctl", "keychain", "AAA-1", "add-root-cert", pem],
                ["simctl", "keychain", "CCC-3", "add-root-cert", pem],
            ])
        let printed = try trust(["ios-simulator", "--device", "UDID-9", "--print"], tools: ["xcrun": xcrun], caDirectory: ca)
        #expect(printed.calls.isEmpty && printed.output == "xcrun simctl keychain UDID-9 add-root-cert \(pem)\n")
    }

    @Test func aMissingToolSaysWhatToInstall() throws {
        let ca = try makeTemporaryDirectory([:]).appendingPathComponent("ca")
        defer { try? FileManager.default.removeItem(at: ca.deletingLastPathComponent()) }
        let noAdb = try trust(["android-emulator"], tools: [:], caDirectory: ca)
        #expect(noAdb.status != 0 && noAdb.output.contains("adb was not found"))
        let noXcrun = try trust(["ios-simulator"], tools: [:], caDirectory: ca)
        #expect(noXcrun.status != 0 && noXcrun.output.contains("xcrun was not found"))
    }

    private func openSSLSubjectHashOld(_ pem: URL) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "x509", "-subject_hash_old", "-noout", "-in", pem.path]
        let output = childPipe()
        process.standardOutput = output
        try ProcessEnvironment.run(process)
        let text = String(decoding: output.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
