/// Blogs (`/blogs`): the entries feed of every blog (the homepage handle) or of one, single
/// entries and their comments, tag documents, the blogs list, a person's blog redirect, and
/// posting entries and comments (AtomPub, `/blogs/{handle}/api/…`). Feeds are pretty-printed,
/// as the Blogs component writes them; pages count from 0.
enum BlogsAPI {
    static let feedType = "application/atom+xml; charset=utf-8"

    static func handle(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 3, parts[0] == "blogs" else { throw .notFound }
        if parts[1] == "roller-ui", parts.count == 4, parts[2] == "feed" { return try redirect(request, parts[3]) }
        let handle = parts[1]
        let rest = Array(parts.dropFirst(2))
        switch rest {
        case ["feed", "entries", "atom"]: return try entries(request, handle)
        case ["feed", "entry", "atom"]:
            guard let id = request.query("entryid") else { throw .missingParameter("entryid") }
            return try single(request, handle, id)
        case ["feed", "tags", "atom"]: return try tags(request, handle)
        case ["feed", "blogs", "atom"] where handle == request.content.homepage: return blogs(request)
        default:
            if rest.count == 4, rest[0] == "feed", rest[1] == "entrycomments", rest[3] == "atom" { return try comments(request, handle, rest[2]) }
            if rest.count == 3, rest[0] == "api", rest[1] == "entries" { return try single(request, handle, rest[2]) }
            throw .notFound
        }
    }

    /// The blog of `handle`, or nil for the homepage (every blog).
    private static func blog(_ request: LotusRequest, _ handle: String) throws(LotusError) -> Blog? {
        if handle == request.content.homepage { return nil }
        guard let blog = request.content.blog(handle) else { throw .notFound }
        return blog
    }

    private static func entries(_ request: LotusRequest, _ handle: String) throws(LotusError) -> Rendered {
        let blog = try blog(request, handle)
        let paging = try Paging(request, firstPage: 0, defaultSize: 20, maximumSize: 50)
        let author = try request.namedPerson()
        let since = try request.date("since")
        let search = request.query("search")?.lowercased()
        let tags = (request.query("tags") ?? request.query("tag"))?.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() } ?? []
        let sortBy = request.query("sortBy") ?? "modified"
        guard ["commented", "modified", "recommended", "title", "visited", "published"].contains(sortBy) else {
            throw .badParameter("sortBy", sortBy)
        }
        let sortOrder = request.query("sortOrder") ?? (sortBy == "title" ? "asc" : "desc")
        guard sortOrder == "asc" || sortOrder == "desc" else { throw .badParameter("sortOrder", sortOrder) }

        var found: [(BlogEntry, Blog, AtomDate)] = []
        for source in blog.map({ [$0] }) ?? request.content.blogs {
            for entry in request.content.entries(of: source) {
                let updated = AtomDate(entry.updated) ?? AtomDate(millis: 0)
                guard author == nil || entry.author == author!.userid, since == nil || updated > since!,
                    tags.allSatisfy({ tag in entry.tags.contains { $0.lowercased() == tag } }),
                    search == nil || ([entry.title, entry.content] + entry.tags).contains(where: { $0.lowercased().contains(search!) })
                else { continue }
                found.append((entry, source, updated))
            }
        }
        found.sort { a, b in
            let ascending: Bool =
                switch sortBy {
                case "commented": a.0.comments.count != b.0.comments.count ? a.0.comments.count < b.0.comments.count : a.2 < b.2
                case "recommended": a.0.recommendations != b.0.recommendations ? a.0.recommendations < b.0.recommendations : a.2 < b.2
                case "visited": a.0.hits != b.0.hits ? a.0.hits < b.0.hits : a.2 < b.2
                case "title": a.0.title != b.0.title ? a.0.title < b.0.title : a.2 < b.2
                case "published": (AtomDate(a.0.published) ?? a.2) < (AtomDate(b.0.published) ?? b.2)
                default: a.2 < b.2
                }
            return sortOrder == "asc" ? ascending : !ascending
        }
        let newest = found.map(\.2).max()
        var writer = XMLWriter(indented: true, capacity: 2048 + paging.size * 2500)
        Atom.openFeed(
            &writer, id: blog.map { "urn:lsid:ibm.com:blogs:entries-\($0.id)" } ?? "urn:lsid:ibm.com:blogs:entries",
            title: blog?.title ?? request.labels.blogEntries, generator: "Blogs", updated: newest ?? request.now)
        Atom.paging(&writer, paging, total: found.count, request: request, path: request.path)
        writer.element("app:categories", ["href": request.base + "/blogs/\(handle)/feed/tags/atom"])
        for (entry, source, _) in paging.slice(found) { write(&writer, entry, source, request, namespaces: false) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: newest, contentType: feedType)
    }

    private static func single(_ request: LotusRequest, _ handle: String, _ id: String) throws(LotusError) -> Rendered {
        let blog = try blog(request, handle)
        guard let (entry, source) = request.content.entry(id), blog == nil || blog!.handle == source.handle else { throw .notFound }
        var writer = XMLWriter(indented: true)
        writer.declaration()
        write(&writer, entry, source, request, namespaces: true)
        return .atom(writer.bytes, lastModified: AtomDate(entry.updated), contentType: Atom.entryType)
    }

    /// An entry as the Blogs feed writes it, with its blog as `<source>`.
    static func write(_ writer: inout XMLWriter, _ entry: BlogEntry, _ blog: Blog, _ request: LotusRequest, namespaces: Bool) {
        let page = request.base + "/blogs/\(blog.handle)/entry/\(entry.id)"
        var attributes: KeyValuePairs<String, String> = ["xml:base": page]
        if namespaces {
            attributes = ["xmlns": Atom.namespace, "xmlns:snx": Atom.snx, "xmlns:thr": "http://purl.org/syndication/thread/1.0", "xml:base": page]
        }
        writer.open("entry", attributes)
        writer.element("id", text: "urn:lsid:ibm.com:blogs:entry-\(entry.id)")
        writer.element("title", ["type": "text"], text: entry.title)
        Atom.person(&writer, "author", request.content.person(userid: entry.author))
        writer.element("link", ["rel": "alternate", "type": "text/html", "href": page])
        writer.element(
            "link",
            ["rel": "self", "type": "application/atom+xml", "href": request.base + "/blogs/\(blog.handle)/feed/entry/atom?entryid=\(entry.id)"])
        writer.element(
            "link", ["rel": "edit", "type": "application/atom+xml", "href": request.base + "/blogs/\(blog.handle)/api/entries/\(entry.id)"])
        writer.element(
            "link",
            [
                "rel": "replies", "type": "application/atom+xml", "thr:count": String(entry.comments.count),
                "href": request.base + "/blogs/\(blog.handle)/feed/entrycomments/\(entry.id)/atom",
            ])
        writer.element("published", text: entry.published)
        writer.element("updated", text: entry.updated)
        writer.element("snx:rank", ["scheme": "http://www.ibm.com/xmlns/prod/sn/recommendations"], text: String(entry.recommendations))
        writer.element("snx:rank", ["scheme": "http://www.ibm.com/xmlns/prod/sn/comment"], text: String(entry.comments.count))
        writer.element("snx:rank", ["scheme": "http://www.ibm.com/xmlns/prod/sn/hit"], text: String(entry.hits))
        for tag in entry.tags { writer.element("category", ["term": tag]) }
        writer.element("summary", ["type": "html"], text: String(entry.content.prefix(200)))
        writer.element("content", ["type": "html"], text: entry.content)
        writer.open("source")
        writer.element("id", text: "urn:lsid:ibm.com:blogs:entries-\(blog.id)")
        writer.element("title", ["type": "text"], text: blog.title)
        writer.element("link", ["rel": "self", "type": "application/atom+xml", "href": request.base + "/blogs/\(blog.handle)/feed/entries/atom"])
        writer.element("link", ["rel": "alternate", "type": "text/html", "href": request.base + "/blogs/\(blog.handle)"])
        writer.element("category", ["term": "blog", "scheme": Atom.typeScheme])
        writer.close("source")
        writer.close("entry")
    }

    private static func comments(_ request: LotusRequest, _ handle: String, _ id: String) throws(LotusError) -> Rendered {
        let blog = try blog(request, handle)
        guard let (entry, source) = request.content.entry(id), blog == nil || blog!.handle == source.handle else { throw .notFound }
        let paging = try Paging(request, firstPage: 0, defaultSize: 20, maximumSize: 50)
        let comments = entry.comments.sorted { $0.published > $1.published }
        let newest = comments.first.flatMap { AtomDate($0.published) }
        var writer = XMLWriter(indented: true)
        Atom.openFeed(
            &writer, id: "urn:lsid:ibm.com:blogs:entrycomments-\(entry.id)", title: entry.title, generator: "Blogs",
            updated: newest ?? AtomDate(entry.updated) ?? request.now)
        Atom.paging(&writer, paging, total: comments.count, request: request, path: request.path)
        for comment in paging.slice(comments) { writeComment(&writer, comment, on: entry, in: source, request, namespaces: false) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: newest, contentType: feedType)
    }

    static func writeComment(
        _ writer: inout XMLWriter, _ comment: Comment, on entry: BlogEntry, in blog: Blog, _ request: LotusRequest, namespaces: Bool
    ) {
        if namespaces {
            writer.open("entry", ["xmlns": Atom.namespace, "xmlns:snx": Atom.snx, "xmlns:thr": "http://purl.org/syndication/thread/1.0"])
        } else {
            writer.open("entry")
        }
        writer.element("id", text: "urn:lsid:ibm.com:blogs:comment-\(comment.id)")
        writer.element("title", ["type": "text"], text: "Re: \(entry.title)")
        Atom.person(&writer, "author", request.content.person(userid: comment.author))
        writer.element("category", ["term": "comment", "scheme": Atom.typeScheme])
        writer.element("published", text: comment.published)
        writer.element("updated", text: comment.published)
        writer.element("content", ["type": "html"], text: comment.content)
        writer.element(
            "thr:in-reply-to",
            [
                "ref": "urn:lsid:ibm.com:blogs:entry-\(entry.id)", "type": "application/atom+xml",
                "href": request.base + "/blogs/\(blog.handle)/feed/entry/atom?entryid=\(entry.id)",
            ])
        writer.close("entry")
    }

    /// The tags of a blog (or of all) with their frequencies: `application/atomcat+xml`.
    private static func tags(_ request: LotusRequest, _ handle: String) throws(LotusError) -> Rendered {
        let blog = try blog(request, handle)
        var counts: [String: Int] = [:]
        for source in blog.map({ [$0] }) ?? request.content.blogs {
            for entry in request.content.entries(of: source) { for tag in entry.tags { counts[tag, default: 0] += 1 } }
        }
        var writer = XMLWriter(indented: true)
        writer.raw("<?xml version='1.0'?>")
        writer.open("categories", ["xml:lang": request.labels.contentLanguage, "fixed": "no", "xmlns": "http://www.w3.org/2007/app"])
        writer.element("generator", ["uri": Atom.snx, "version": "2.5", "xmlns": Atom.namespace], text: "Lotus Connections - Blogs")
        for (tag, count) in counts.sorted(by: { $0.key < $1.key }) {
            writer.element("category", ["term": tag, "xmlns:snx": Atom.snx, "xmlns": Atom.namespace, "snx:frequency": String(count)])
        }
        writer.close("categories")
        return Rendered(contentType: "application/atomcat+xml; charset=utf-8", body: writer.bytes, lastModified: nil)
    }

    /// Every blog, as a feed (the homepage's `feed/blogs/atom`).
    private static func blogs(_ request: LotusRequest) -> Rendered {
        var writer = XMLWriter(indented: true)
        Atom.openFeed(&writer, id: "urn:lsid:ibm.com:blogs:blogs", title: "Blogs", generator: "Blogs", updated: request.now)
        for blog in request.content.blogs {
            writer.open("entry")
            writer.element("id", text: "urn:lsid:ibm.com:blogs:blog-\(blog.id)")
            writer.element("title", ["type": "text"], text: blog.title)
            writer.element("summary", ["type": "html"], text: blog.summary)
            Atom.person(&writer, "author", request.content.person(userid: blog.owner))
            writer.element("category", ["term": "blog", "scheme": Atom.typeScheme])
            writer.element("link", ["rel": "alternate", "type": "text/html", "href": request.base + "/blogs/\(blog.handle)"])
            writer.element("link", ["rel": "self", "type": "application/atom+xml", "href": request.base + "/blogs/\(blog.handle)/feed/entries/atom"])
            writer.close("entry")
        }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: nil, contentType: feedType)
    }

    /// `roller-ui/feed/{email|userid}`: a redirect to the person's blog feed.
    private static func redirect(_ request: LotusRequest, _ who: String) throws(LotusError) -> Rendered {
        guard let person = request.content.person(email: who) ?? request.content.person(userid: who),
            let blog = request.content.blogs.first(where: { $0.owner == person.userid })
        else { throw .notFound }
        return Rendered(
            status: 302, contentType: "text/plain;charset=UTF-8", body: [], lastModified: nil,
            headers: [("Location", request.base + "/blogs/\(blog.handle)/feed/entries/atom")])
    }

    // MARK: Writes

    /// `POST /blogs/{handle}/api/entries`: the blog's owner adds an entry; 201 with it.
    static func postEntry(_ request: LotusRequest, _ handle: String, _ atom: AtomEntry, _ state: inout LotusState) throws(LotusError) -> Rendered {
        guard let user = request.user else { throw .unauthorized }
        guard let blog = request.content.blog(handle) else { throw .notFound }
        guard blog.owner == user.userid else { throw .forbidden }
        guard let title = atom.title, !title.isEmpty else { throw .badEntry }
        let now = request.now.text
        let entry = BlogEntry(
            id: UUIDText.make("entry", handle, title, now, String(state.version)), title: title, author: user.userid,
            published: now, updated: now, tags: atom.tags, content: atom.content ?? "")
        state.blogEntries[handle, default: []].append(entry)
        state.stories.append(LotusDirectory.story(for: entry, in: blog))
        var writer = XMLWriter(indented: true)
        writer.declaration()
        write(&writer, entry, blog, request, namespaces: true)
        return Rendered(
            status: 201, contentType: Atom.entryType, body: writer.bytes, lastModified: request.now,
            headers: [("Location", request.base + "/blogs/\(handle)/api/entries/\(entry.id)")])
    }

    /// `POST /blogs/{handle}/api/entrycomments/{entryid}`: any signed-in person comments; 201.
    static func postComment(_ request: LotusRequest, _ handle: String, _ id: String, _ atom: AtomEntry, _ state: inout LotusState) throws(LotusError)
        -> Rendered
    {
        guard let user = request.user else { throw .unauthorized }
        guard let (entry, blog) = request.content.entry(id), blog.handle == handle else { throw .notFound }
        guard let text = atom.content, !text.isEmpty else { throw .badEntry }
        let comment = Comment(
            id: UUIDText.make("comment", id, user.userid, request.now.text, String(state.version)), author: user.userid,
            published: request.now.text, content: text)
        state.comments[id, default: []].append(comment)
        state.stories.append(LotusDirectory.story(for: comment, on: entry, in: blog))
        var writer = XMLWriter(indented: true)
        writer.declaration()
        writeComment(&writer, comment, on: entry, in: blog, request, namespaces: true)
        return Rendered(
            status: 201, contentType: Atom.entryType, body: writer.bytes, lastModified: request.now,
            headers: [("Location", request.base + "/blogs/\(handle)/feed/entrycomments/\(id)/atom")])
    }
}
