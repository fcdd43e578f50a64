/// The News story service (`/news`): the public updates feed and the per-person, top, status
/// and saved feeds, with every parameter of the 2.5 documentation.
enum NewsFeeds {
    static func handle(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let method = request.request.method
        switch request.path {
        case "/news/atom/stories/public":
            return try feed(request, title: request.labels.publicUpdates, id: "public")
        case "/news/atom/stories/public/person":
            guard try request.namedPerson() != nil else { throw .missingParameter("email or userid") }
            return try feed(request, title: request.labels.publicUpdates, id: "public-person")
        case "/news/atom/stories/top":
            // "My updates": what the signed-in person's network and the people they follow did,
            // their own updates and messages left on their board.
            let user = try requireUser(request)
            let people = request.content.network(of: user).union(user.following).union([user.userid])
            return try feed(request, title: request.labels.topStories, id: "top") { story in
                people.contains(story.actor) || (story.kind == .boardMessage && story.target == user.userid)
            }
        case "/news/atom/stories/statusupdates":
            let user = try requireUser(request)
            let people = try statusAuthors(request, user)
            return try feed(request, title: request.labels.statusUpdates, id: "statusupdates", sourceIsFeature: false) { story in
                story.kind == .status && people.map { $0.contains(story.actor) } ?? true
            }
        case "/news/atom/stories/saved" where method == .get || method == .head:
            let user = try requireUser(request)
            // 2.5 requires userid on this feed.
            guard let userid = request.query("userid") else { throw .missingParameter("userid") }
            guard userid == user.userid else { throw .forbidden }
            let saved = Set(request.content.state.saved[user.userid] ?? [])
            // Here userid names whose saved stories these are, not whose updates.
            return try feed(request, title: request.labels.savedStories, id: "saved", byPerson: false) { saved.contains($0.id) }
        default:
            throw .notFound
        }
    }

    /// Whose statuses `statusupdates` shows: its `source` is `network`, `following`,
    /// `organization` (the same organization), `all` (everyone: nil), or by default the network
    /// and the people followed, as the Connections API documentation describes the feed.
    private static func statusAuthors(_ request: LotusRequest, _ user: Person) throws(LotusError) -> Set<String>? {
        let network = request.content.network(of: user)
        let following = Set(user.following)
        switch request.query("source")?.lowercased() {
        case nil: return network.union(following)
        case "all": return nil
        case "network": return network
        case "following": return following
        case "organization":
            return Set(request.content.people.filter { $0.organization == user.organization && $0.userid != user.userid }.map(\.userid))
        case let other?: throw .badParameter("source", other)
        }
    }

    @discardableResult
    static func requireUser(_ request: LotusRequest) throws(LotusError) -> Person {
        guard let user = request.user else { throw .unauthorized }
        return user
    }

    /// Saving a story: `POST /news/atom/stories/saved` with an entry whose `<id>` is the story's.
    static func save(_ request: LotusRequest, _ entry: AtomEntry, _ state: inout LotusState) throws(LotusError) -> Rendered {
        let user = try requireUser(request)
        guard let id = entry.id?.replacingOccurrences(of: "urn:lsid:ibm.com:news:story-", with: ""),
            let story = request.content.stories.first(where: { $0.id == id })
        else { throw .badEntry }
        if !(state.saved[user.userid] ?? []).contains(id) { state.saved[user.userid, default: []].append(id) }
        var writer = XMLWriter()
        writer.declaration()
        writer.open("entry", ["xmlns": Atom.namespace, "xmlns:snx": Atom.snx])
        request.content.entry(for: story).write(to: &writer, base: StoryEntry.Base(request.base), language: request.labels.index)
        writer.close("entry")
        return Rendered(
            status: 201, contentType: Atom.entryType, body: writer.bytes, lastModified: story.updated,
            headers: [("Location", request.base + "/news/atom/stories/saved?userid=\(user.userid)")])
    }

    /// A paged feed of the stories `include` keeps (all when nil), after the request's filters.
    /// `sourceIsFeature` is false where `source` means something else (statusupdates).
    private static func feed(
        _ request: LotusRequest, title: String, id: String, byPerson: Bool = true, sourceIsFeature: Bool = true,
        include: ((Story) -> Bool)? = nil
    ) throws(LotusError) -> Rendered {
        let paging = try Paging(request, firstPage: 1, defaultSize: 20, maximumSize: 100)
        var source = !sourceIsFeature ? nil : request.query("source").map { $0.lowercased() == "dogear" ? "bookmarks" : $0.lowercased() }
        if let feature = source, feature != "all", !StoryKind.sources.contains(feature) { throw .badParameter("source", feature) }
        if source == "all" { source = nil }
        let person = byPerson ? try request.namedPerson() : nil
        let container = source == nil ? nil : request.query("container")
        let since = try request.date("since")
        let before = try request.date("before")
        // A feature's stories are indexed; the other filters (rarer) go through them one by one.
        let candidates = source.map { request.content.stories(source: $0) } ?? request.content.stories
        let filtered = include != nil || container != nil || person != nil || since != nil || before != nil
        let stories =
            !filtered
            ? candidates
            : candidates.filter { story in
                (include?(story) ?? true)
                    && (container == nil || story.container == container)
                    && (person == nil || story.actor == person?.userid)
                    && (since.map { story.updated > $0 } ?? true)
                    && (before.map { story.updated < $0 } ?? true)
            }
        let updated = stories.first?.updated ?? request.now
        var writer = XMLWriter(capacity: 2048 + paging.size * 1500)
        let feedTitle = person.map { request.labels.updatesBy($0.name) } ?? title
        Atom.openFeed(&writer, id: "urn:lsid:ibm.com:news:stories-\(id)", title: feedTitle, generator: "News Story service", updated: updated)
        Atom.paging(&writer, paging, total: stories.count, request: request, path: request.path)
        let base = StoryEntry.Base(request.base)
        let language = request.labels.index
        for story in paging.slice(stories) {
            writer.open("entry")
            request.content.entry(for: story).write(to: &writer, base: base, language: language)
            writer.close("entry")
        }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: stories.first?.updated)
    }
}
