import ArgumentParser
import DeviceProxy
import Foundation
import HTTPServer

/// `understudy trust ios-simulator|android-emulator`: the local CA into a simulator's or an
/// emulator's trust store in one command, with the tools of their SDKs (`xcrun simctl`, `adb`).
/// `--print` shows the commands instead of running them; what runs is exactly what it shows. It
/// writes nothing: a CA that does not exist yet is named (where it would be made), not made, and
/// every argument is quoted for POSIX shells, so pasting a line runs that command and nothing else.
struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Make an iOS simulator or an Android emulator trust the local CA.",
        subcommands: [IOSSimulator.self, AndroidEmulator.self])

    struct Common: ParsableArguments {
        @Option(help: ArgumentHelp("Where the CA is kept (default: UNDERSTUDY_CA_DIR, else ~/.understudy/ca).", valueName: "dir"))
        var caDir: String?

        @Flag(help: "Print the commands instead of running them.")
        var print = false

        var directory: URL {
            var options = DeviceOptions()
            options.caDir = caDir
            return options.caDirectory
        }

        /// The CA's certificate file, which the commands hand to the SDKs' tools.
        var certificateFile: String { directory.appendingPathComponent("ca.pem").path }

        /// The CA, made when missing; with `--print`, nil when it does not exist yet (printing
        /// makes nothing: the lines then name the file where it will be).
        func authority() throws -> LocalCA? {
            if print, !FileManager.default.fileExists(atPath: certificateFile) { return nil }
            do {
                return try LocalCA.loadOrCreate(directory: directory)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        /// The comment `--print` starts with for a CA not made yet.
        var notMadeYet: String {
            Shell.comment(
                "\(certificateFile) does not exist yet: `understudy ca` (or this command without --print) makes it")
        }
    }

    struct IOSSimulator: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ios-simulator", abstract: "Add the CA to a simulator's keychain (xcrun simctl keychain … add-root-cert).")

        @OptionGroup var common: Common

        @Option(help: ArgumentHelp("booted (the booted one), all (every booted one) or a device's UDID.", valueName: "device"))
        var device = "booted"

        func run() throws {
            let authority = try common.authority()
            let file = common.certificateFile
            if authority == nil { Swift.print(common.notMadeYet) }
            var devices = [device]
            if device == "all" {
                let list = ["xcrun", "simctl", "list", "devices", "booted", "--json"]
                if common.print {
                    Swift.print(Shell.line(list) + "   # then, for each booted device's UDID:")
                    devices = ["UDID"]
                } else {
                    devices = try Self.booted(from: Shell.output(list, missing: Self.noXcrun))
                    guard !devices.isEmpty else { throw ValidationError("no simulator is booted: boot one (xcrun simctl boot UDID) and try again") }
                }
            }
            for udid in devices {
                let command = ["xcrun", "simctl", "keychain", udid, "add-root-cert", file]
                if common.print { Swift.print(Shell.line(command)) } else { _ = try Shell.output(command, missing: Self.noXcrun) }
            }
            if !common.print, let authority { Swift.print("\(authority.commonName) is trusted by \(devices.joined(separator: ", "))") }
        }

        static let noXcrun = "xcrun was not found: the iOS Simulator needs Xcode on macOS (xcode-select --install, then open Xcode once)"

        /// The UDIDs of `simctl list devices booted --json`.
        static func booted(from json: String) -> [String] {
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                let runtimes = object["devices"] as? [String: [[String: Any]]]
            else { return [] }
            return runtimes.values.flatMap { $0 }.filter { ($0["state"] as? String) == "Booted" }.compactMap { $0["udid"] as? String }.sorted()
        }
    }

    struct AndroidEmulator: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "android-emulator",
            abstract: "Add the CA to an emulator's system store with adb (as <subject_hash_old>.0; Android 14+'s conscrypt APEX included).")

        @OptionGroup var common: Common

        @Option(help: ArgumentHelp("The emulator's serial (adb devices), when more than one runs.", valueName: "serial"))
        var serial: String?

        func run() throws {
            let authority = try common.authority()
            // A CA not made yet has no hash: the lines name it HASH and say how to get it.
            let name = (authority?.subjectHashOld ?? "HASH") + ".0"
            let staged = "/data/local/tmp/\(name)"
            // ca.pem itself is pushed under the name the store wants: nothing is written here.
            let adb = ["adb"] + (serial.map { ["-s", $0] } ?? [])
            let steps: [[String]] = [
                adb + ["root"], adb + ["wait-for-device"], adb + ["push", common.certificateFile, staged], adb + ["shell", Self.install(name)],
            ]
            if common.print {
                if let authority {
                    Swift.print(Shell.comment("\(authority.commonName) → the system store as \(name)"))
                } else {
                    Swift.print(common.notMadeYet)
                    Swift.print(Shell.comment("then HASH is what `openssl x509 -subject_hash_old -noout -in ca.pem` prints"))
                }
                steps.forEach { Swift.print(Shell.line($0)) }
                return
            }
            guard let authority else { return }
            let root = try Shell.output(steps[0], missing: Self.noAdb, allowFailure: true)
            if root.contains("cannot run as root") {
                Swift.print(Self.googlePlayAdvice(name))
                return
            }
            for step in steps.dropFirst() { _ = try Shell.output(step, missing: Self.noAdb) }
            Swift.print("\(authority.commonName) is in the emulator's system store as \(name); restart the app under test")
        }

        static let noAdb =
            "adb was not found: install Android's platform tools (Android Studio's SDK Manager, or apt-get install adb) and put adb on PATH"

        /// The root shell script: the store is copied into a tmpfs mounted over it (the system
        /// partition stays read-only), the CA added, and on Android 14+ the tmpfs bound over the
        /// conscrypt APEX's store in zygote's mount namespaces, so every app started afterwards
        /// sees it.
        static func install(_ name: String) -> String {
            let store = "/system/etc/security/cacerts"
            let apex = "/apex/com.android.conscrypt/cacerts"
            let copy = "/data/local/tmp/understudy-cacerts"
            return [
                "set -e",
                "rm -rf \(copy) && mkdir -p -m 700 \(copy)",
                "if [ -d \(apex) ]; then cp \(apex)/* \(copy)/; else cp \(store)/* \(copy)/; fi",
                "mount -t tmpfs tmpfs \(store)",
                "mv \(copy)/* \(store)/ && mv /data/local/tmp/\(name) \(store)/\(name)",
                "chown root:root \(store)/* && chmod 644 \(store)/* && chcon u:object_r:system_file:s0 \(store)/*",
                "if [ -d \(apex) ]; then for pid in $(pidof zygote zygote64); do nsenter --mount=/proc/$pid/ns/mnt -- mount --bind \(store) \(apex); done; fi",
            ].joined(separator: "; ")
        }

        /// A Google Play image cannot be rooted: the app itself must trust user CAs in its debug build.
        static func googlePlayAdvice(_ name: String) -> String {
            """
            This emulator runs a Google Play image, which cannot be rooted, so its system store stays as it is.
            Install the CA as a user CA instead (Settings → Security → Encryption & credentials → Install a
            certificate → CA certificate, with the file from /__admin/ca.crt), and let the app's debug build trust
            user CAs in res/xml/network_security_config.xml:

                <network-security-config>
                    <debug-overrides>
                        <trust-anchors>
                            <certificates src="user" />
                        </trust-anchors>
                    </debug-overrides>
                </network-security-config>

            (with android:networkSecurityConfig="@xml/network_security_config" on <application>), or use an
            image without Google Play ("Google APIs"), whose adb can run as root.
            """
        }
    }
}

/// Runs the SDKs' tools for `trust`: found on PATH, their output read, a missing one or a failure
/// an error that says what to do.
enum Shell {
    /// `command` as one line a POSIX shell runs as exactly these arguments: see `quoted`.
    static func line(_ command: [String]) -> String {
        command.map(quoted).joined(separator: " ")
    }

    /// `argument` for a POSIX shell: as it is when it holds only characters no shell treats
    /// specially (letters, digits, `@%+=:,./_-`), else in single quotes, inside which a shell reads every byte as itself
    /// (backticks, `$(…)`, `\`, newlines), a `'` written as `'\''`. A device name or a path
    /// with anything else in it is then one word and runs nothing when the line is pasted.
    static func quoted(_ argument: String) -> String {
        let isPlain =
            !argument.isEmpty
            && argument.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                default: "@%+=:,./_-".utf8.contains(byte)
                }
            }
        return isPlain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `text` as a shell comment on one line: a line break or other control character in it
    /// (a CA's name read from its file) cannot end the comment and start a command.
    static func comment(_ text: String) -> String {
        "# " + String(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
    }

    static func output(_ command: [String], missing: String, allowFailure: Bool = false) throws -> String {
        guard let tool = command.first, let path = find(tool) else { throw ValidationError(missing) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(command.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard allowFailure || process.terminationStatus == 0 else {
            throw ValidationError("\(line(command)) failed (exit \(process.terminationStatus)): \(output.suffix(2000))")
        }
        return output
    }

    private static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
