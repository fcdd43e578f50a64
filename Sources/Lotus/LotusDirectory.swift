import HTTPServer
import MockCore
import Synchronization
import WireFormat

/// What a story in the News feeds tells, which picks its (translated) sentence.
enum StoryKind: Sendable, Hashable {
    case blogEntry
    case blogComment
    case status
    case boardMessage
    /// A story of activity.json: its verb ("created the activity", …).
    case other(String)

    static let otherSources: Set<String> = ["activities", "bookmarks", "communities", "files", "wikis"]
    static let sources: Set<String> = otherSources.union(["blogs", "profiles"])
}

/// An update of the News feeds (the "river of news"). A class: feeds filter hundreds of them
/// per request, and a reference is cheaper to pass around than nine strings.
final class Story: Sendable {
    let id: String
    /// The feature: blogs, profiles, activities, bookmarks, communities, files, wikis.
    let source: String
    /// The blog, profile or other container the update is about.
    let container: String
    let actor: String
    let kind: StoryKind
    /// The entry's title, the status text, the object's name.
    let object: String
    /// The blog's title, or the person whose board a message is on.
    let target: String
    /// Where the updated thing is (path and query below the base URL).
    let link: String
    /// User content shown with the story.
    let summary: String
    let tags: [String]
    let updated: AtomDate

    init(
        id: String, source: String, container: String, actor: String, kind: StoryKind, object: String, target: String, link: String,
        summary: String, tags: [String], updated: AtomDate
    ) {
        self.id = id
        self.source = source
        self.container = container
        self.actor = actor
        self.kind = kind
        self.object = object
        self.target = target
        self.link = link
        self.summary = summary
        self.tags = tags
        self.updated = updated
    }
}

/// The fixtures, indexed once, and the stories they make. Immutable: shared by every scope.
final class LotusDirectory: Sendable {
    let fixtures: LotusFixtures
    private let byUserid: [String: Int]
    private let byEmail: [String: Int]
    private let byKey: [String: Int]
    private let blogByHandle: [String: Int]
    /// Each person's network, both ways (a network is mutual whichever side lists it).
    private let networks: [String: Set<String>]
    /// Every story the fixtures make, newest first.
    let stories: [Story]
    /// The stories of each feature (`Story.source`), newest first: what `source=` asks for.
    private let storiesBySource: [String: [Story]]
    /// Each story's entry in the News feeds, by the story's identity.
    private let entries: [ObjectIdentifier: StoryEntry]
    /// Each kind of story's sentence in every language (`LotusLabels.supported`'s order).
    private let sentences: [StoryKind: [SentenceTemplate]]
    /// Each person as entries name them, by user id.
    private let actors: [String: StoryEntry.Actor]

    init(_ fixtures: LotusFixtures) {
        self.fixtures = fixtures
        var byUserid: [String: Int] = [:]
        var byEmail: [String: Int] = [:]
        var byKey: [String: Int] = [:]
        for (index, person) in fixtures.people.enumerated() {
            byUserid[person.userid] = index
            byEmail[person.email.lowercased()] = index
            byKey[person.key] = index
        }
        self.byUserid = byUserid
        self.byEmail = byEmail
        self.byKey = byKey
        var networks: [String: Set<String>] = [:]
        for person in fixtures.people {
            for colleague in person.network where colleague != person.userid {
                networks[person.userid, default: []].insert(colleague)
                networks[colleague, default: []].insert(person.userid)
            }
        }
        self.networks = networks
        blogByHandle = Dictionary(fixtures.blogs.enumerated().map { ($0.element.handle, $0.offset) }, uniquingKeysWith: { first, _ in first })

        var stories: [Story] = []
        for blog in fixtures.blogs {
            for entry in blog.entries {
                stories.append(Self.story(for: entry, in: blog))
                for comment in entry.comments { stories.append(Self.story(for: comment, on: entry, in: blog)) }
            }
        }
        for person in fixtures.people {
            if let status = person.status {
                stories.append(Self.statusStory(person, status, id: UUIDText.make("status", person.userid, status.updated)))
            }
        }
        for message in fixtures.board { stories.append(Self.story(for: message)) }
        for story in fixtures.stories {
            stories.append(
                Story(
                    id: story.id, source: story.source, container: story.container, actor: story.actor, kind: .other(story.verb),
                    object: story.object, target: "", link: "/\(story.source)/html/item?id=\(story.id)", summary: story.summary,
                    tags: story.tags, updated: AtomDate(story.published) ?? AtomDate(millis: 0)))
        }
        self.stories = stories.sorted { $0.updated > $1.updated }
        storiesBySource = Dictionary(grouping: self.stories, by: \.source)

        let kinds: Set<StoryKind> = Set(stories.map(\.kind)).union([.blogEntry, .blogComment, .status, .boardMessage])
        let sentences = Dictionary(uniqueKeysWithValues: kinds.map { kind in (kind, LotusLabels.all.map { $0.sentence(kind) }) })
        self.sentences = sentences
        let actors = Dictionary(fixtures.people.map { ($0.userid, StoryEntry.Actor($0)) }, uniquingKeysWith: { _, last in last })
        self.actors = actors
        var entries: [ObjectIdentifier: StoryEntry] = [:]
        entries.reserveCapacity(stories.count)
        for story in stories { entries[ObjectIdentifier(story)] = Self.entry(for: story, byUserid, fixtures.people, actors, sentences) }
        self.entries = entries
    }

    func person(userid: String) -> Person? { byUserid[userid].map { fixtures.people[$0] } }
    func person(email: String) -> Person? { byEmail[email.lowercased()].map { fixtures.people[$0] } }
    func person(key: String) -> Person? { byKey[key].map { fixtures.people[$0] } }
    func blog(_ handle: String) -> Blog? { blogByHandle[handle].map { fixtures.blogs[$0] } }
    func network(of person: Person) -> Set<String> { networks[person.userid] ?? [] }

    /// The fixtures' stories of one feature, newest first.
    func stories(source: String) -> [Story] { storiesBySource[source] ?? [] }

    /// The story's entry in the News feeds: prepared at load for the fixtures' stories, and now
    /// for those clients posted.
    func entry(for story: Story) -> StoryEntry {
        entries[ObjectIdentifier(story)] ?? Self.entry(for: story, byUserid, fixtures.people, actors, sentences)
    }

    private static func entry(
        for story: Story, _ byUserid: [String: Int], _ people: [Person], _ actors: [String: StoryEntry.Actor],
        _ sentences: [StoryKind: [SentenceTemplate]]
    ) -> StoryEntry {
        // On a board message, the target is whose board it is.
        let target = story.kind == .boardMessage ? (byUserid[story.target].map { people[$0].name } ?? "") : story.target
        return StoryEntry(
            story, actor: actors[story.actor], target: target,
            sentences: sentences[story.kind] ?? LotusLabels.all.map { $0.sentence(story.kind) })
    }

    /// The person a login names (e-mail or user id) if the password is theirs.
    func authenticate(_ login: String, _ password: String) -> Person? {
        guard let person = person(email: login) ?? person(userid: login), person.password == password else { return nil }
        return person
    }

    static func story(for entry: BlogEntry, in blog: Blog) -> Story {
        Story(
            id: UUIDText.make("story", entry.id), source: "blogs", container: blog.id, actor: entry.author, kind: .blogEntry,
            object: entry.title, target: blog.title, link: "/blogs/\(blog.handle)/entry/\(entry.id)", summary: "",
            tags: entry.tags, updated: AtomDate(entry.updated) ?? AtomDate(millis: 0))
    }

    static func story(for comment: Comment, on entry: BlogEntry, in blog: Blog) -> Story {
        Story(
            id: UUIDText.make("story", comment.id), source: "blogs", container: blog.id, actor: comment.author, kind: .blogComment,
            object: entry.title, target: blog.title, link: "/blogs/\(blog.handle)/entry/\(entry.id)#comment-\(comment.id)",
            summary: comment.content, tags: [], updated: AtomDate(comment.published) ?? AtomDate(millis: 0))
    }

    static func statusStory(_ person: Person, _ status: Person.Status, id: String) -> Story {
        Story(
            id: id, source: "profiles", container: person.key, actor: person.userid, kind: .status, object: status.text,
            target: "", link: "/profiles/html/profileView.do?key=\(person.key)", summary: status.text, tags: [],
            updated: AtomDate(status.updated) ?? AtomDate(millis: 0))
    }

    static func story(for message: BoardMessage) -> Story {
        Story(
            id: UUIDText.make("story", message.id), source: "profiles", container: message.owner, actor: message.author, kind: .boardMessage,
            object: message.content, target: message.owner, link: "/profiles/html/profileView.do?userid=\(message.owner)",
            summary: message.content, tags: [], updated: AtomDate(message.published) ?? AtomDate(millis: 0))
    }
}
