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
        try withTools(tools) { bin in
            let process = ChildProcess()
            process.executableURL = understudyBinary
            process.arguments = ["trust"] + arguments
            process.environment = ["PATH": bin.path + ":/usr/bin:/bin", "UNDERSTUDY_CA_DIR": caDirectory.path, "HOME": caDirectory.path]
            return process
        }
    }

    /// Runs `script` with /bin/sh in `directory`, as a user pasting it would, with `tools` on PATH.
    func shell(_ script: String, tools: [String: String], in directory: URL) throws -> Run {
        try withTools(tools) { bin in
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // A line that runs more than it shows touches files in `directory`, where the test looks.
            process.arguments = ["-c", "cd '\(directory.path)' || exit 1\n" + script]
            process.environment = ["PATH": bin.path + ":/usr/bin:/bin"]
            return process
        }
    }

    /// Runs the process `make` gives, with stand-ins for `tools` in the folder it is handed, which
    /// record every call's arguments.
    private func withTools(_ tools: [String: String], _ make: (URL) -> ChildProcess) throws -> Run {
        let bin = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: bin) }
        let log = bin.appendingPathComponent("calls.log")
        for (name, body) in tools {
            let script = bin.appendingPathComponent(name)
            try Data("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> '\(log.path)'; done\necho -- >> '\(log.path)'\n\(body)\n".utf8).write(
                to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        }
        let process = make(bin)
        let output = childPipe()
        process.standardOutput = output
        process.standardError = output
        try ProcessEnvironment.run(process)
        let text = String(decoding: output.fileHandleForReading.readToEndOfStream(), as: UTF8.self)
        process.waitUntilExit(within: childProcessPatience)
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
        // ca.pem itself is pushed under the store's name for it: nothing is written beside the CA.
        let file = ca.appendingPathComponent("ca.pem")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ca.path).sorted() == ["ca-key.pem", "ca.pem"])
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

        // --print shows what runs, and runs nothing.
        let printed = try trust(["android-emulator", "--serial", "emulator-5556", "--print"], tools: ["adb": adb], caDirectory: ca)
        #expect(printed.status == 0 && printed.calls.isEmpty)
        #expect(
            printed.output.contains(
                "adb -s emulator-5556 root\nadb -s emulator-5556 wait-for-device\nadb -s emulator-5556 push \(file.path) /data/local/tmp/\(hash).0\n")
        )
        #expect(printed.output.contains("adb -s emulator-5556 shell 'set -e; "))
    }

    /// Arguments a shell would otherwise read as commands, expansions or several words.
    private func hostileArguments(marking folder: URL) -> [String] {
        [
            // A tab separates words as a space does.
            "`touch\t\(folder.path)/backtick`", "x\ntouch\t\(folder.path)/newline", "$(touch \(folder.path)/dollar)", "a'b", "it's \"quoted\"",
            "two words", "line\nbreak; touch x",
            "$HOME", "back\\slash", "; touch \(folder.path)/semicolon", "~", "#not-a-comment", "*", "",
        ]
    }

    @Test func printedLinesRunExactlyTheirArgumentsWhenPasted() throws {
        let folder = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: folder) }
        let ca = folder.appendingPathComponent("ca")
        let pem = ca.appendingPathComponent("ca.pem").path
        for hostile in hostileArguments(marking: folder) {
            let printed = try trust(["ios-simulator", "--device", hostile, "--print"], tools: [:], caDirectory: ca)
            #expect(printed.status == 0, "\(printed.output)")
            // The stand-ins record an argument per line: calls are compared as their lines joined.
            let pasted = try shell(printed.output, tools: ["xcrun": ""], in: folder)
            #expect(
                pasted.calls.map { $0.joined(separator: "\n") } == [["simctl", "keychain", hostile, "add-root-cert", pem].joined(separator: "\n")],
                "\(hostile) printed as \(printed.output)")

            let android = try trust(["android-emulator", "--serial", hostile, "--print"], tools: [:], caDirectory: ca)
            #expect(android.status == 0, "\(android.output)")
            let adb = try shell(android.output, tools: ["adb": ""], in: folder).calls.map { $0.joined(separator: "\n") }
            #expect(
                adb.count == 4 && adb.allSatisfy { $0.hasPrefix("-s\n\(hostile)\n") }
                    && adb[2] == "-s\n\(hostile)\npush\n\(pem)\n/data/local/tmp/HASH.0",
                "\(hostile) printed as \(android.output)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [], "printing made no CA and pasting ran no command")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("backtick").path), "a backtick ran a command")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("newline").path), "a line break ran a command")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("dollar").path), "$(…) ran a command")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("semicolon").path), "a ; ran a command")
    }

    @Test func printingWritesNothingAndNamesACANotMadeYet() throws {
        let folder = try makeTemporaryDirectory([:])
        defer { try? FileManager.default.removeItem(at: folder) }
        let ca = folder.appendingPathComponent("ca")
        let pem = ca.appendingPathComponent("ca.pem").path
        let ios = try trust(["ios-simulator", "--print"], tools: ["xcrun": ""], caDirectory: ca)
        #expect(ios.status == 0 && ios.calls.isEmpty, "\(ios.output)")
        #expect(ios.output.contains("# \(pem) does not exist yet") && ios.output.hasSuffix("xcrun simctl keychain booted add-root-cert \(pem)\n"))
        let android = try trust(["android-emulator", "--print"], tools: ["adb": ""], caDirectory: ca)
        #expect(android.status == 0 && android.calls.isEmpty, "\(android.output)")
        #expect(android.output.contains("adb push \(pem) /data/local/tmp/HASH.0\n"))
        #expect(!FileManager.default.fileExists(atPath: ca.path), "--print made the CA (or its folder)")

        // A CA that exists is read, and nothing is added beside it (no <hash>.0).
        let made = try trust(["ios-simulator"], tools: ["xcrun": ""], caDirectory: ca)
        #expect(made.status == 0, "\(made.output)")
        let before = try FileManager.default.contentsOfDirectory(atPath: ca.path).sorted()
        let printed = try trust(["android-emulator", "--print"], tools: ["adb": ""], caDirectory: ca)
        let hash = try openSSLSubjectHashOld(URL(fileURLWithPath: pem))
        #expect(printed.status == 0 && printed.output.contains("adb push \(pem) /data/local/tmp/\(hash).0\n"), "\(printed.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ca.path).sorted() == before)
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
        process.waitUntilExit(within: childProcessPatience)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
