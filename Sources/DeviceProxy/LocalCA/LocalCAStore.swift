import HTTPServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local CA's two files in their directory: which exist, reading them, and writing new ones
/// that never replace a file already there.
struct LocalCAStore {
    let directory: String

    init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    var certificateFile: String { directory + "/ca.pem" }
    var keyFile: String { directory + "/ca-key.pem" }

    /// A PEM certificate or key is a few kilobytes; anything far larger is not one.
    private static let largestFile = 1 << 20

    /// Makes the directory, and any missing parent, with mode 0700 (only this user reads the key).
    func makeDirectory() throws(LocalCAError) {
        try Self.makeDirectory(directory)
    }

    private static func makeDirectory(_ path: String) throws(LocalCAError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw LocalCAError(file: path, reason: "is not a directory") }
            return
        }
        guard errno == ENOENT else { throw LocalCAError(file: path, reason: lastErrno()) }
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty { try makeDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw LocalCAError(file: path, reason: "cannot create: \(lastErrno())") }
    }

    /// Checks, at every start, that only this user can reach the key: the directory and the key
    /// file must be this user's, the directory 0700 and the key 0600. Modes that let others in are
    /// narrowed (and said so on standard error), since another local user could otherwise swap or
    /// read the pair on a shared host; another owner is refused, with what to do.
    func secure(_ path: String, mode wanted: mode_t) throws(LocalCAError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw LocalCAError(file: path, reason: "cannot check: \(lastErrno())") }
        guard info.st_uid == geteuid() else {
            throw LocalCAError(
                file: path,
                reason: "belongs to another user (uid \(info.st_uid), not \(geteuid())), who could swap or read the CA's key; "
                    + "chown it to this user, or point UNDERSTUDY_CA_DIR at a directory of your own")
        }
        let mode = info.st_mode & 0o777
        guard mode & ~wanted != 0 else { return }
        guard chmod(path, mode & wanted) == 0 else {
            throw LocalCAError(
                file: path,
                reason: "has mode \(String(mode, radix: 8)), which lets other users in, and cannot be changed to "
                    + "\(String(wanted, radix: 8)): \(lastErrno()); chmod it yourself")
        }
        writeToStandardError(
            "understudy: \(path) had mode \(String(mode, radix: 8)), which let other users in; it is now \(String(mode & wanted, radix: 8))")
    }

    /// Whether `path` exists; a failure other than "no such file" (permissions) is thrown, not taken as absence.
    func exists(_ path: String) throws(LocalCAError) -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return true }
        guard errno == ENOENT else { throw LocalCAError(file: path, reason: "cannot check: \(lastErrno())") }
        return false
    }

    func contents(of path: String) throws(LocalCAError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalCAError(file: path, reason: "cannot open: \(lastErrno())") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            guard count > 0 || errno == EINTR else { throw LocalCAError(file: path, reason: "cannot read: \(lastErrno())") }
            bytes += chunk.prefix(max(0, count))
            guard bytes.count <= Self.largestFile else { throw LocalCAError(file: path, reason: "is larger than 1 MiB: not a PEM file") }
        }
    }

    /// Creates `path` with `mode` (O_EXCL: an existing file is an error, never overwritten) and
    /// writes `bytes` to disk. A partly written file is removed: it is ours, made just now.
    func create(_ path: String, containing bytes: [UInt8], mode: mode_t) throws(LocalCAError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw LocalCAError(file: path, reason: "cannot create: \(lastErrno())") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return try abandon(path, descriptor, "cannot write: \(lastErrno())") }
            written += count
        }
        guard fsync(descriptor) == 0 else { return try abandon(path, descriptor, "cannot write to disk: \(lastErrno())") }
        guard close(descriptor) == 0 else {
            unlink(path)
            throw LocalCAError(file: path, reason: "cannot write: \(lastErrno())")
        }
    }

    private func abandon(_ path: String, _ descriptor: Int32, _ reason: String) throws(LocalCAError) {
        close(descriptor)
        unlink(path)
        throw LocalCAError(file: path, reason: reason)
    }
}

private func lastErrno() -> String { String(cString: strerror(errno)) }
