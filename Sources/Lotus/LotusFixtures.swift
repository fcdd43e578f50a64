import Foundation
import MockCore

/// A problem with a file of `stubs/lotus/`, with where it is.
public typealias LotusFixtureError = FixtureError

/// A person of the directory: the profile, the login (Basic auth: e-mail or user id, and
/// password) and the status message.
struct Person: Codable, Sendable {
    var userid: String
    var key: String
    var name: String
    var email: String
    var password: String
    var jobTitle: String = ""
    var organization: String = ""
    var city: String = ""
    var country: String = ""
    var phone: String = ""
    var tags: [String] = []
    /// Colleagues (user ids): a network is mutual, so either side may list the other.
    var network: [String] = []
    /// People (user ids) this person follows, one way.
    var following: [String] = []
    var status: Status?

    struct Status: Codable, Sendable {
        var text: String
        var updated: String
    }
}

struct Comment: Codable, Sendable {
    var id: String
    var author: String
    var published: String
    var content: String
}

struct BlogEntry: Codable, Sendable {
    var id: String
    var title: String
    var author: String
    var published: String
    var updated: String
    var tags: [String] = []
    /// HTML.
    var content: String
    var recommendations: Int = 0
    var hits: Int = 0
    var comments: [Comment] = []
}

struct Blog: Codable, Sendable {
    var handle: String
    var id: String
    var title: String
    var owner: String
    var summary: String = ""
    var entries: [BlogEntry] = []
}

/// An update of a feature without its own emulation (activities, bookmarks, communities,
/// files, wikis): who did what to which object, in which container.
struct ActivityStory: Codable, Sendable {
    var id: String
    var source: String
    var container: String
    var actor: String
    /// One of the standard verbs ("created the activity", "bookmarked", …), translated by `lang`.
    var verb: String
    var object: String
    var published: String
    var summary: String = ""
    var tags: [String] = []
}

struct BoardMessage: Codable, Sendable {
    var id: String
    var author: String
    /// Whose board it is on.
    var owner: String
    var published: String
    var content: String
    var comments: [Comment] = []
}

/// Everything in `stubs/lotus/`: people.json, blogs.json, activity.json.
struct LotusFixtures: Sendable {
    var people: [Person] = []
    var homepage = "home"
    var blogs: [Blog] = []
    var stories: [ActivityStory] = []
    var board: [BoardMessage] = []

    private struct PeopleFile: Codable { var people: [Person] }
    private struct BlogsFile: Codable {
        var homepage: String?
        var blogs: [Blog]
    }
    private struct ActivityFile: Codable {
        var stories: [ActivityStory]?
        var board: [BoardMessage]?
    }

    /// Reads the folder; a file with a problem is reported and left out.
    static func load(_ directory: URL) -> (LotusFixtures, [LotusFixtureError]) {
        var fixtures = LotusFixtures()
        var problems: [LotusFixtureError] = []
        func read<T: Decodable>(_ name: String, _ type: T.Type) -> T? {
            do {
                return try FixtureJSON.decode(directory.appendingPathComponent(name)) as T
            } catch {
                problems.append(error)
                return nil
            }
        }
        fixtures.people = read("people.json", PeopleFile.self)?.people ?? []
        if let blogs = read("blogs.json", BlogsFile.self) {
            fixtures.blogs = blogs.blogs
            fixtures.homepage = blogs.homepage ?? "home"
        }
        if let activity = read("activity.json", ActivityFile.self) {
            fixtures.stories = activity.stories ?? []
            fixtures.board = activity.board ?? []
        }
        problems += fixtures.validate(directory)
        return (fixtures, problems)
    }

    /// References that point nowhere, dates that are not RFC 3339, duplicate ids.
    func validate(_ directory: URL) -> [LotusFixtureError] {
        var problems: [LotusFixtureError] = []
        let people = Set(self.people.map(\.userid))
        func problem(_ file: String, _ message: String) {
            problems.append(LotusFixtureError(file: directory.appendingPathComponent(file).path, line: 0, message: message))
        }
        func check(_ file: String, _ where_: String, person: String, date: String) {
            if !people.contains(person) { problem(file, "\(where_): no person with userid \(person)") }
            if AtomDate(date) == nil { problem(file, "\(where_): '\(date)' is not an RFC 3339 date such as 2010-10-08T09:00:00.000Z") }
        }
        var seen = Set<String>()
        for (index, person) in self.people.enumerated() {
            for id in [person.userid, person.key, person.email.lowercased()] where !seen.insert(id).inserted {
                problem("people.json", "people[\(index)]: \(id) is used twice")
            }
            for (field, ids) in [("network", person.network), ("following", person.following)] {
                for (r, id) in ids.enumerated() where !people.contains(id) || id == person.userid {
                    problem(
                        "people.json",
                        "people[\(index)].\(field)[\(r)]: " + (id == person.userid ? "a person cannot list themself" : "no person with userid \(id)"))
                }
            }
            if let status = person.status, AtomDate(status.updated) == nil {
                problem("people.json", "people[\(index)].status.updated: '\(status.updated)' is not an RFC 3339 date")
            }
        }
        for (b, blog) in blogs.enumerated() {
            if !people.contains(blog.owner) { problem("blogs.json", "blogs[\(b)].owner: no person with userid \(blog.owner)") }
            if blog.handle == homepage { problem("blogs.json", "blogs[\(b)].handle: '\(blog.handle)' is the homepage handle") }
            for (e, entry) in blog.entries.enumerated() {
                check("blogs.json", "blogs[\(b)].entries[\(e)]", person: entry.author, date: entry.published)
                if entry.updated != entry.published, AtomDate(entry.updated) == nil {
                    problem("blogs.json", "blogs[\(b)].entries[\(e)].updated: '\(entry.updated)' is not an RFC 3339 date")
                }
                for (c, comment) in entry.comments.enumerated() {
                    check("blogs.json", "blogs[\(b)].entries[\(e)].comments[\(c)]", person: comment.author, date: comment.published)
                }
            }
        }
        for (s, story) in stories.enumerated() {
            check("activity.json", "stories[\(s)]", person: story.actor, date: story.published)
            if !StoryKind.otherSources.contains(story.source) {
                problem(
                    "activity.json",
                    "stories[\(s)].source: '\(story.source)' is not one of \(StoryKind.otherSources.sorted().joined(separator: ", "))")
            }
        }
        for (m, message) in board.enumerated() {
            check("activity.json", "board[\(m)]", person: message.author, date: message.published)
            if !people.contains(message.owner) { problem("activity.json", "board[\(m)].owner: no person with userid \(message.owner)") }
        }
        return problems
    }
}

// Optional fields of the fixture files take their defaults when left out.
extension Person {
    enum CodingKeys: String, CodingKey {
        case userid, key, name, email, password, jobTitle, organization, city, country, phone, tags, network, following, status
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        userid = try values.decode(String.self, forKey: .userid)
        key = try values.decode(String.self, forKey: .key)
        name = try values.decode(String.self, forKey: .name)
        email = try values.decode(String.self, forKey: .email)
        password = try values.decode(String.self, forKey: .password)
        jobTitle = try values.decodeIfPresent(String.self, forKey: .jobTitle) ?? ""
        organization = try values.decodeIfPresent(String.self, forKey: .organization) ?? ""
        city = try values.decodeIfPresent(String.self, forKey: .city) ?? ""
        country = try values.decodeIfPresent(String.self, forKey: .country) ?? ""
        phone = try values.decodeIfPresent(String.self, forKey: .phone) ?? ""
        tags = try values.decodeIfPresent([String].self, forKey: .tags) ?? []
        network = try values.decodeIfPresent([String].self, forKey: .network) ?? []
        following = try values.decodeIfPresent([String].self, forKey: .following) ?? []
        status = try values.decodeIfPresent(Status.self, forKey: .status)
    }
}

extension BlogEntry {
    enum CodingKeys: String, CodingKey {
        case id, title, author, published, updated, tags, content, recommendations, hits, comments
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(String.self, forKey: .id)
        title = try values.decode(String.self, forKey: .title)
        author = try values.decode(String.self, forKey: .author)
        published = try values.decode(String.self, forKey: .published)
        updated = try values.decodeIfPresent(String.self, forKey: .updated) ?? published
        tags = try values.decodeIfPresent([String].self, forKey: .tags) ?? []
        content = try values.decodeIfPresent(String.self, forKey: .content) ?? ""
        recommendations = try values.decodeIfPresent(Int.self, forKey: .recommendations) ?? 0
        hits = try values.decodeIfPresent(Int.self, forKey: .hits) ?? 0
        comments = try values.decodeIfPresent([Comment].self, forKey: .comments) ?? []
    }
}

extension Blog {
    enum CodingKeys: String, CodingKey {
        case handle, id, title, owner, summary, entries
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        handle = try values.decode(String.self, forKey: .handle)
        id = try values.decode(String.self, forKey: .id)
        title = try values.decode(String.self, forKey: .title)
        owner = try values.decode(String.self, forKey: .owner)
        summary = try values.decodeIfPresent(String.self, forKey: .summary) ?? ""
        entries = try values.decodeIfPresent([BlogEntry].self, forKey: .entries) ?? []
    }
}

extension ActivityStory {
    enum CodingKeys: String, CodingKey {
        case id, source, container, actor, verb, object, published, summary, tags
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(String.self, forKey: .id)
        source = try values.decode(String.self, forKey: .source)
        container = try values.decodeIfPresent(String.self, forKey: .container) ?? ""
        actor = try values.decode(String.self, forKey: .actor)
        verb = try values.decode(String.self, forKey: .verb)
        object = try values.decode(String.self, forKey: .object)
        published = try values.decode(String.self, forKey: .published)
        summary = try values.decodeIfPresent(String.self, forKey: .summary) ?? ""
        tags = try values.decodeIfPresent([String].self, forKey: .tags) ?? []
    }
}

extension BoardMessage {
    enum CodingKeys: String, CodingKey {
        case id, author, owner, published, content, comments
    }

    init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        id = try values.decode(String.self, forKey: .id)
        author = try values.decode(String.self, forKey: .author)
        owner = try values.decode(String.self, forKey: .owner)
        published = try values.decode(String.self, forKey: .published)
        content = try values.decode(String.self, forKey: .content)
        comments = try values.decodeIfPresent([Comment].self, forKey: .comments) ?? []
    }
}
