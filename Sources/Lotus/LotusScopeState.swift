import HTTPServer
import MockCore
import Synchronization
import WireFormat

/// One scope's writes and their generation; its answers are in the backend's cache of all
/// scopes under that generation. Reads that hit the cache take no lock on the data; a miss copies
/// the data (its arrays are shared, not duplicated).
final class LotusScope: ScopeState {
    private let data = Locked((state: LotusState(), generation: 0))
    private let counter = Atomic<Int>(0)
    let name: String
    private let cache: AnswerCache

    init(name: String, cache: AnswerCache) {
        self.name = name
        self.cache = cache
    }

    /// Goes up with every write and reset, never down: answers cached for one generation never
    /// serve another.
    var generation: Int { counter.load(ordering: .acquiring) }

    /// The data and the generation it is of.
    func snapshot() -> (state: LotusState, generation: Int) { data.withLock { $0 } }

    /// Changes the data under its lock; the generation goes up when `body` succeeds.
    func write<T>(_ body: (inout LotusState) throws(LotusError) -> T) throws(LotusError) -> T {
        try data.withLock { data throws(LotusError) -> T in
            let result = try body(&data.state)
            data.state.version += 1
            advance(&data)
            return result
        }
    }

    /// Back to the fixtures (`POST /__admin/reset` in the scope).
    func reset() {
        data.withLock { data in
            data.state = LotusState()
            advance(&data)
        }
        cache.forget(scope: name)
    }

    /// The scope is gone: its cached answers go with it.
    func discard() {
        cache.forget(scope: name)
    }

    private func advance(_ data: inout (state: LotusState, generation: Int)) {
        data.generation += 1
        counter.store(data.generation, ordering: .releasing)
    }

    var estimatedBytes: Int {
        let state = data.withLock { $0.state }
        return cache.bytes(of: name) + (state.stories.count + state.boardMessages.count + state.comments.count + state.blogEntries.count) * 512
    }
}

/// What clients wrote in one scope, undone by `POST /__admin/reset`.
struct LotusState: Sendable {
    /// How many writes made this state (a part of posted items' ids).
    var version = 0
    /// Each person's latest status, when posted here.
    var statuses: [String: Person.Status] = [:]
    var boardMessages: [BoardMessage] = []
    /// Comments posted on board messages and blog entries, by their id.
    var comments: [String: [Comment]] = [:]
    /// Entries posted to each blog.
    var blogEntries: [String: [BlogEntry]] = [:]
    /// Stories of what was posted, oldest first.
    var stories: [Story] = []
    /// Each person's saved story ids.
    var saved: [String: [String]] = [:]
}

/// The directory with one scope's writes on top: what a request reads.
struct LotusContent {
    let directory: LotusDirectory
    let state: LotusState

    var people: [Person] { directory.fixtures.people }

    func person(userid: String) -> Person? { directory.person(userid: userid) }
    func person(email: String) -> Person? { directory.person(email: email) }
    func person(key: String) -> Person? { directory.person(key: key) }

    func network(of person: Person) -> Set<String> { directory.network(of: person) }

    func status(of person: Person) -> Person.Status? { state.statuses[person.userid] ?? person.status }

    /// Every story, newest first.
    var stories: [Story] {
        state.stories.isEmpty ? directory.stories : (state.stories.reversed() + directory.stories).sorted { $0.updated > $1.updated }
    }

    /// The stories of one feature (`Story.source`), newest first.
    func stories(source: String) -> [Story] {
        state.stories.isEmpty ? directory.stories(source: source) : stories.filter { $0.source == source }
    }

    func entry(for story: Story) -> StoryEntry { directory.entry(for: story) }

    var blogs: [Blog] { directory.fixtures.blogs }
    var homepage: String { directory.fixtures.homepage }

    func blog(_ handle: String) -> Blog? { directory.blog(handle) }

    /// A blog's entries, posted ones included, each with its posted comments.
    func entries(of blog: Blog) -> [BlogEntry] {
        (blog.entries + (state.blogEntries[blog.handle] ?? [])).map(withComments)
    }

    func withComments(_ entry: BlogEntry) -> BlogEntry {
        guard let posted = state.comments[entry.id] else { return entry }
        var entry = entry
        entry.comments += posted
        return entry
    }

    /// The entry with this id and its blog.
    func entry(_ id: String) -> (BlogEntry, Blog)? {
        for blog in blogs {
            if let entry = (blog.entries + (state.blogEntries[blog.handle] ?? [])).first(where: { $0.id == id }) {
                return (withComments(entry), blog)
            }
        }
        return nil
    }

    /// Board messages on `owner`'s board, newest first, with their comments.
    func board(of owner: String) -> [BoardMessage] {
        boardMessages.filter { $0.owner == owner }
    }

    var boardMessages: [BoardMessage] {
        (directory.fixtures.board + state.boardMessages).map { message in
            guard let posted = state.comments[message.id] else { return message }
            var message = message
            message.comments += posted
            return message
        }.sorted { (AtomDate($0.published) ?? AtomDate(millis: 0)) > (AtomDate($1.published) ?? AtomDate(millis: 0)) }
    }
}

/// Deterministic UUID-shaped ids (FNV-1a over the parts) for things the emulator makes.
enum UUIDText {
    static func make(_ parts: String...) -> String {
        let text = parts.joined(separator: "/")
        let hashes = [FNV1a.offsetBasis, 0x8422_2325_cbf2_9ce4].map { FNV1a.hash(text.utf8, seed: $0) }
        let hex = hashes.map { String($0, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        let characters = Array(hex)
        return String(characters[0..<8]) + "-" + String(characters[8..<12]) + "-" + String(characters[12..<16]) + "-"
            + String(characters[16..<20]) + "-" + String(characters[20..<32])
    }
}
