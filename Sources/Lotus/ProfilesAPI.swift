/// Profiles (`/profiles`): profile feeds and entries (hCard or vCard, lite or full), search,
/// the message board and status, the service document, photos and tags.
enum ProfilesAPI {
    static let messageScheme = "http://www.ibm.com/xmlns/prod/sn/message-type"

    static func handle(_ request: LotusRequest) throws(LotusError) -> Rendered {
        switch request.path {
        case "/profiles/atom/profile.do": return try profileFeed(request)
        case "/profiles/atom/profileEntry.do":
            let person = try target(request, "key", "email", "userid")
            var writer = XMLWriter()
            writer.declaration()
            entry(&writer, person, request, namespaces: true)
            return .atom(writer.bytes, lastModified: updated(person, request), contentType: Atom.entryType)
        case "/profiles/atom/search.do": return try search(request)
        case "/profiles/atom/mv/theboard/entries.do": return try board(request)
        case "/profiles/atom/mv/theboard/entry.do": return try boardEntry(request)
        case "/profiles/atom/mv/theboard/comments.do": return try boardComments(request)
        case "/profiles/atom/mv/theboard/entry/status.do": return try status(request)
        case "/profiles/atom/profileService.do": return try serviceDocument(request)
        case "/profiles/atom/profileTags.do": return try tags(request)
        case "/profiles/photo.do":
            _ = try target(request, "key", "email", "userid")
            return Rendered(contentType: "image/png", body: placeholderPhoto, lastModified: nil)
        default: throw .notFound
        }
    }

    /// The person named by the first of `names` given (`key`, `email`, `userid`, `targetKey`…).
    static func target(_ request: LotusRequest, _ names: String...) throws(LotusError) -> Person {
        for name in names {
            guard let value = request.query(name) else { continue }
            let person =
                name.lowercased().hasSuffix("key")
                ? request.content.person(key: value)
                : name.lowercased().hasSuffix("email") ? request.content.person(email: value) : request.content.person(userid: value)
            guard let person else { throw .notFound }
            return person
        }
        throw .missingParameter(names.joined(separator: ", "))
    }

    static func updated(_ person: Person, _ request: LotusRequest) -> AtomDate {
        request.content.status(of: person).flatMap { AtomDate($0.updated) } ?? AtomDate("2010-09-01T09:00:00.000Z")!
    }

    // MARK: Profiles

    /// `profile.do`: a feed of the profiles named by `userid`, or `email` (a comma list), or `key`.
    private static func profileFeed(_ request: LotusRequest) throws(LotusError) -> Rendered {
        var people: [Person] = []
        let described: String
        if let userid = request.query("userid") {
            people = [try target(request, "userid")]
            described = "userid \(userid)"
        } else if let emails = request.query("email") {
            for email in emails.split(separator: ",") {
                guard let person = request.content.person(email: String(email)) else { throw .notFound }
                people.append(person)
            }
            described = "email \(emails)"
        } else if let key = request.query("key") {
            people = [try target(request, "key")]
            described = "key \(key)"
        } else {
            throw .missingParameter("email, key or userid")
        }
        try checkFormat(request)
        let newest = people.map { updated($0, request) }.max() ?? request.now
        var writer = XMLWriter()
        Atom.openFeed(&writer, id: "tag:profiles.ibm.com,2006:feed", title: "profile with \(described)", generator: "Profiles", updated: newest)
        if people.count == 1, let person = people.first {
            let key = person.key
            for (relation, path) in [
                ("http://www.ibm.com/xmlns/prod/sn/tag-cloud", "/profiles/atom/profileTags.do?targetKey=\(key)"),
                ("http://www.ibm.com/xmlns/prod/sn/mv/theboard", "/profiles/atom/mv/theboard/entries.do?key=\(key)"),
                ("http://www.ibm.com/xmlns/prod/sn/status", "/profiles/atom/mv/theboard/entry/status.do?key=\(key)"),
            ] {
                writer.element(
                    "link",
                    [
                        "href": request.base + path, "rel": relation,
                        "type": relation.hasSuffix("tag-cloud") ? "application/atomcat+xml" : "application/atom+xml",
                    ])
            }
        }
        writer.element("link", ["href": request.link(request.path), "rel": "self", "type": "application/atom+xml"])
        for person in people { entry(&writer, person, request, namespaces: false) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: newest)
    }

    private static func checkFormat(_ request: LotusRequest) throws(LotusError) {
        if let format = request.query("format"), format != "lite", format != "full" { throw .badParameter("format", format) }
        if let output = request.query("output"), output != "hcard", output != "vcard" { throw .badParameter("output", output) }
    }

    /// A profile entry: hCard XHTML (`format=full`, 2.5's default, or `lite`) or a vCard.
    static func entry(_ writer: inout XMLWriter, _ person: Person, _ request: LotusRequest, namespaces: Bool) {
        let key = person.key
        if namespaces {
            writer.open("entry", ["xmlns": Atom.namespace, "xmlns:snx": Atom.snx])
        } else {
            writer.open("entry")
        }
        writer.element("id", text: "tag:profiles.ibm.com,2006:entry\(key)")
        writer.element("title", ["type": "text"], text: person.name)
        writer.element("updated", text: updated(person, request).text)
        writer.element("category", ["term": "profile", "scheme": Atom.typeScheme])
        Atom.person(&writer, "contributor", person)
        writer.element("link", ["href": request.base + "/profiles/atom/profileEntry.do?key=\(key)", "rel": "self", "type": "application/atom+xml"])
        writer.element("link", ["href": request.base + "/profiles/html/profileView.do?key=\(key)", "rel": "related", "type": "text/html"])
        writer.element(
            "link", ["href": request.base + "/profiles/photo.do?key=\(key)", "rel": "http://www.ibm.com/xmlns/prod/sn/image", "type": "image"])
        writer.element("link", ["href": request.base + "/profiles/vcard/profile.do?key=\(key)", "rel": "alternate", "type": "text/directory"])
        writer.element("summary", ["type": "text"], text: "Profile information for \(person.name)")
        let full = request.query("format") != "lite"
        if request.query("output") == "vcard" {
            writer.element("content", ["type": "text"], text: vcard(person, full: full))
        } else {
            writer.raw("<content type=\"xhtml\">")
            writer.raw(hcard(person, request, full: full))
            writer.raw("</content>")
        }
        writer.close("entry")
    }

    private static func hcard(_ person: Person, _ request: LotusRequest, full: Bool) -> String {
        let e = XMLWriter.escaped
        let base = request.base
        let key = person.key
        var html = "<div xmlns=\"http://www.w3.org/1999/xhtml\"><span class=\"vcard\">"
        html += "<div><img src=\"\(base)/profiles/photo.do?key=\(key)\" class=\"photo\"></img></div>"
        html += "<div><a class=\"fn url\" href=\"\(base)/profiles/atom/profile.do?key=\(key)\">\(e(person.name))</a></div>"
        html += "<div><a class=\"email\" href=\"mailto:\(e(person.email))\">\(e(person.email))</a></div>"
        if full {
            html += "<div class=\"org\"><span class=\"organization-unit\">\(e(person.organization))</span></div>"
            html += "<div class=\"title\">\(e(person.jobTitle))</div>"
            html +=
                "<div class=\"adr work\"><span class=\"locality\">\(e(person.city))</span><span class=\"country-name\">\(e(person.country))</span></div>"
            html += "<div class=\"tel\"><abbr class=\"type\" title=\"work\">Work:</abbr><span class=\"value\">\(e(person.phone))</span></div>"
            html += "<div class=\"x-tags\">\(e(person.tags.joined(separator: " ")))</div>"
        }
        html += "<div class=\"x-profile-key\">\(key)</div><div class=\"uid\">\(person.userid)</div>"
        html += "<div class=\"x-lconn-userid\">\(person.userid)</div></span></div>"
        return html
    }

    /// The profile as a vCard (2.1 layout; the exact fields Connections writes are unverified).
    static func vcard(_ person: Person, full: Bool) -> String {
        let names = person.name.split(separator: " ", maxSplits: 1).map(String.init)
        var lines = [
            "BEGIN:VCARD", "VERSION:2.1", "N:\(names.last ?? "");\(names.count > 1 ? names[0] : "")", "FN:\(person.name)",
            "EMAIL;INTERNET:\(person.email)",
        ]
        if full {
            lines += [
                "TITLE:\(person.jobTitle)", "ORG:\(person.organization)", "ADR;WORK:;;;\(person.city);;;\(person.country)",
                "TEL;WORK:\(person.phone)", "CATEGORIES:\(person.tags.joined(separator: ","))",
            ]
        }
        lines += ["X-PROFILE-KEY:\(person.key)", "X-LCONN-USERID:\(person.userid)", "END:VCARD"]
        return lines.joined(separator: "\r\n")
    }

    // MARK: Search

    /// `search.do`: each given field must match (case-insensitive; `*` any run, `%` one
    /// character); `search` is free text over every field; `profileTags` (or `tag`) lists tags.
    private static func search(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let fields: [(String, (Person) -> [String])] = [
            ("name", { [$0.name] + $0.name.split(separator: " ").map(String.init) }), ("email", { [$0.email] }),
            ("city", { [$0.city] }), ("country", { [$0.country] }), ("jobTitle", { [$0.jobTitle] }),
            ("organization", { [$0.organization] }), ("userid", { [$0.userid] }),
        ]
        var criteria: [(String, String)] = []
        var matching = request.content.people
        for (name, values) in fields {
            guard let pattern = request.query(name) else { continue }
            criteria.append((name, pattern))
            matching = matching.filter { person in values(person).contains { Wildcard.matches($0, pattern) } }
        }
        if let text = request.query("search") {
            criteria.append(("search", text))
            let lowered = text.lowercased()
            matching = matching.filter { person in
                ([person.name, person.email, person.city, person.country, person.jobTitle, person.organization] + person.tags)
                    .contains { $0.lowercased().contains(lowered) || Wildcard.matches($0, text) }
            }
        }
        if let tags = request.query("profileTags") ?? request.query("tag") {
            criteria.append(("profileTags", tags))
            let wanted = tags.split(separator: ",").map { $0.lowercased() }
            matching = matching.filter { person in wanted.allSatisfy { person.tags.map { $0.lowercased() }.contains($0) } }
        }
        guard !criteria.isEmpty else { throw .missingParameter("name, email, city, country, jobTitle, organization, search or profileTags") }
        try checkFormat(request)
        let descending = request.query("sortOrder") == "desc"
        matching.sort { descending ? $0.name > $1.name : $0.name < $1.name }
        let paging = try Paging(request, firstPage: 1, defaultSize: 10, maximumSize: 100)
        var writer = XMLWriter()
        let title = "profiles where " + criteria.map { "\($0.0)=\($0.1)" }.joined(separator: " and ")
        let updated = matching.map { Self.updated($0, request) }.max() ?? request.now
        Atom.openFeed(&writer, id: "tag:profiles.ibm.com,2006:feed", title: title, generator: "Profiles", updated: updated)
        Atom.paging(&writer, paging, total: matching.count, request: request, path: request.path)
        for person in paging.slice(matching) { entry(&writer, person, request, namespaces: false) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: matching.isEmpty ? nil : updated)
    }

    // MARK: Board and status

    /// `mv/theboard/entries.do`: the owner's status, then the messages on the board, newest
    /// first; `comments=all` adds comments as entries, `inline` inside their message.
    private static func board(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let owner = try target(request, "key", "email", "userid")
        let comments = request.query("comments") ?? "none"
        guard ["all", "inline", "none"].contains(comments) else { throw .badParameter("comments", comments) }
        let messages = request.content.board(of: owner.userid)
        var entries: [(AtomDate, (inout XMLWriter) -> Void)] = []
        if let status = request.content.status(of: owner), let date = AtomDate(status.updated) {
            entries.append((date, { statusEntry(&$0, owner, status, request, namespaces: false) }))
        }
        for message in messages {
            let date = AtomDate(message.published) ?? request.now
            entries.append((date, { messageEntry(&$0, message, request, inlineComments: comments == "inline", namespaces: false) }))
            if comments == "all" {
                for comment in message.comments {
                    entries.append((AtomDate(comment.published) ?? date, { commentEntry(&$0, comment, on: message.id, request, namespaces: false) }))
                }
            }
        }
        let paging = try Paging(request, firstPage: 1, defaultSize: 20, maximumSize: 100)
        let updated = entries.map(\.0).max() ?? request.now
        var writer = XMLWriter()
        Atom.openFeed(&writer, id: "tag:profiles.ibm.com,2006:feed", title: "Board of \(owner.name)", generator: "Profiles", updated: updated)
        writer.element(
            "link",
            [
                "href": request.base + "/profiles/atom/mv/theboard/entries.do?key=\(owner.key)", "rel": "edit",
                "type": "application/atom+xml",
            ])
        Atom.paging(&writer, paging, total: entries.count, request: request, path: request.path)
        for (_, write) in paging.slice(entries) { write(&writer) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: entries.isEmpty ? nil : updated)
    }

    private static func boardEntry(_ request: LotusRequest) throws(LotusError) -> Rendered {
        guard let id = request.query("entryid") else { throw .missingParameter("entryid") }
        var writer = XMLWriter()
        writer.declaration()
        for message in request.content.boardMessages {
            if message.id == id {
                messageEntry(&writer, message, request, inlineComments: false, namespaces: true)
                return .atom(writer.bytes, lastModified: AtomDate(message.published), contentType: Atom.entryType)
            }
            if let comment = message.comments.first(where: { $0.id == id }) {
                commentEntry(&writer, comment, on: message.id, request, namespaces: true)
                return .atom(writer.bytes, lastModified: AtomDate(comment.published), contentType: Atom.entryType)
            }
        }
        throw .notFound
    }

    /// `mv/theboard/comments.do?entryid=…` (a message's `replies` link): its comments, oldest first.
    private static func boardComments(_ request: LotusRequest) throws(LotusError) -> Rendered {
        guard let id = request.query("entryid") else { throw .missingParameter("entryid") }
        guard let message = request.content.boardMessages.first(where: { $0.id == id }) else { throw .notFound }
        let paging = try Paging(request, firstPage: 1, defaultSize: 20, maximumSize: 100)
        let newest = message.comments.compactMap { AtomDate($0.published) }.max()
        var writer = XMLWriter()
        Atom.openFeed(
            &writer, id: "tag:profiles.ibm.com,2006:feed", title: message.content, generator: "Profiles",
            updated: newest ?? AtomDate(message.published) ?? request.now)
        Atom.paging(&writer, paging, total: message.comments.count, request: request, path: request.path)
        for comment in paging.slice(message.comments) { commentEntry(&writer, comment, on: message.id, request, namespaces: false) }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: newest)
    }

    private static func status(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let person = try target(request, "key", "email", "userid")
        guard let status = request.content.status(of: person) else { throw .notFound }
        var writer = XMLWriter()
        writer.declaration()
        statusEntry(&writer, person, status, request, namespaces: true)
        return .atom(writer.bytes, lastModified: AtomDate(status.updated), contentType: Atom.entryType)
    }

    private static func openEntry(_ writer: inout XMLWriter, namespaces: Bool) {
        if namespaces {
            writer.open("entry", ["xmlns": Atom.namespace, "xmlns:snx": Atom.snx, "xmlns:thr": "http://purl.org/syndication/thread/1.0"])
        } else {
            writer.open("entry")
        }
    }

    static func statusEntry(_ writer: inout XMLWriter, _ person: Person, _ status: Person.Status, _ request: LotusRequest, namespaces: Bool) {
        openEntry(&writer, namespaces: namespaces)
        writer.element("id", text: "tag:profiles.ibm.com,2006:entry\(UUIDText.make("status", person.userid, status.updated))")
        writer.element("title", ["type": "text"], text: status.text)
        writer.element("category", ["scheme": Atom.typeScheme, "term": "entry"])
        writer.element("category", ["scheme": messageScheme, "term": "status"])
        Atom.person(&writer, "author", person)
        writer.element("published", text: status.updated)
        writer.element("updated", text: status.updated)
        writer.element("content", ["type": "text"], text: status.text)
        writer.element(
            "link",
            [
                "href": request.base + "/profiles/atom/mv/theboard/entry/status.do?key=\(person.key)", "rel": "self",
                "type": "application/atom+xml",
            ])
        writer.close("entry")
    }

    static func messageEntry(_ writer: inout XMLWriter, _ message: BoardMessage, _ request: LotusRequest, inlineComments: Bool, namespaces: Bool) {
        openEntry(&writer, namespaces: namespaces)
        writer.element("id", text: "tag:profiles.ibm.com,2006:entry\(message.id)")
        writer.element("title", ["type": "text"], text: message.content)
        writer.element("category", ["scheme": Atom.typeScheme, "term": "entry"])
        writer.element("category", ["scheme": messageScheme, "term": "simpleEntry"])
        Atom.person(&writer, "author", request.content.person(userid: message.author))
        Atom.person(&writer, "contributor", request.content.person(userid: message.owner))
        writer.element("published", text: message.published)
        writer.element("updated", text: message.published)
        writer.element("summary", ["type": "text"], text: message.content)
        writer.element("content", ["type": "text"], text: message.content)
        let path = "/profiles/atom/mv/theboard/entry.do?entryid=\(message.id)"
        writer.element("link", ["href": request.base + path, "rel": "self", "type": "application/atom+xml"])
        writer.element(
            "link",
            [
                "href": request.base + "/profiles/atom/mv/theboard/comments.do?entryid=\(message.id)", "rel": "replies",
                "type": "application/atom+xml", "thr:count": String(message.comments.count),
            ])
        if inlineComments, !message.comments.isEmpty {
            writer.open("snx:comments")
            for comment in message.comments { commentEntry(&writer, comment, on: message.id, request, namespaces: false) }
            writer.close("snx:comments")
        }
        writer.close("entry")
    }

    static func commentEntry(_ writer: inout XMLWriter, _ comment: Comment, on message: String, _ request: LotusRequest, namespaces: Bool) {
        openEntry(&writer, namespaces: namespaces)
        writer.element("id", text: "tag:profiles.ibm.com,2006:entry\(comment.id)")
        writer.element("title", ["type": "text"], text: comment.content)
        writer.element("category", ["scheme": Atom.typeScheme, "term": "comment"])
        Atom.person(&writer, "author", request.content.person(userid: comment.author))
        writer.element("published", text: comment.published)
        writer.element("updated", text: comment.published)
        writer.element("content", ["type": "text"], text: comment.content)
        writer.element(
            "thr:in-reply-to",
            [
                "ref": "tag:profiles.ibm.com,2006:entry\(message)",
                "href": request.base + "/profiles/atom/mv/theboard/entry.do?entryid=\(message)",
            ])
        writer.close("entry")
    }

    // MARK: Writes

    /// `PUT …/entry/status.do?key=…`: the signed-in person's own status; 200 without a body.
    static func putStatus(_ request: LotusRequest, _ entry: AtomEntry, _ state: inout LotusState) throws(LotusError) -> Rendered {
        guard let user = request.user else { throw .unauthorized }
        let person = try target(request, "key", "email", "userid")
        guard person.userid == user.userid else { throw .forbidden }
        guard let text = entry.content ?? entry.title, !text.isEmpty else { throw .badEntry }
        let status = Person.Status(text: text, updated: request.now.text)
        state.statuses[user.userid] = status
        // A status update is also a story in the public feed.
        state.stories.append(
            LotusDirectory.statusStory(user, status, id: UUIDText.make("status", user.userid, status.updated, String(state.version))))
        return Rendered(contentType: "text/plain;charset=UTF-8", body: [], lastModified: nil)
    }

    /// `POST …/theboard/entries.do?key=…`: a message on someone's board; 201 with the entry.
    static func postMessage(_ request: LotusRequest, _ entry: AtomEntry, _ state: inout LotusState) throws(LotusError) -> Rendered {
        guard let user = request.user else { throw .unauthorized }
        let owner = try target(request, "key", "email", "userid")
        guard entry.hasCategory("entry"), let text = entry.content, !text.isEmpty else { throw .badEntry }
        let message = BoardMessage(
            id: UUIDText.make("board", user.userid, owner.userid, request.now.text, String(state.version)),
            author: user.userid, owner: owner.userid, published: request.now.text, content: text)
        state.boardMessages.append(message)
        state.stories.append(LotusDirectory.story(for: message))
        var writer = XMLWriter()
        writer.declaration()
        messageEntry(&writer, message, request, inlineComments: false, namespaces: true)
        return Rendered(
            status: 201, contentType: Atom.entryType, body: writer.bytes, lastModified: request.now,
            headers: [("Location", request.base + "/profiles/atom/mv/theboard/entry.do?entryid=\(message.id)")])
    }

    /// `POST …/theboard/comments.do?entryid=…`: a comment on a board message; 201 with the entry.
    static func postComment(_ request: LotusRequest, _ entry: AtomEntry, _ state: inout LotusState) throws(LotusError) -> Rendered {
        guard let user = request.user else { throw .unauthorized }
        guard let id = request.query("entryid") else { throw .missingParameter("entryid") }
        guard request.content.boardMessages.contains(where: { $0.id == id }) else { throw .notFound }
        guard let text = entry.content, !text.isEmpty else { throw .badEntry }
        let comment = Comment(
            id: UUIDText.make("comment", id, user.userid, request.now.text, String(state.version)), author: user.userid,
            published: request.now.text, content: text)
        state.comments[id, default: []].append(comment)
        var writer = XMLWriter()
        writer.declaration()
        commentEntry(&writer, comment, on: id, request, namespaces: true)
        return Rendered(
            status: 201, contentType: Atom.entryType, body: writer.bytes, lastModified: request.now,
            headers: [("Location", request.base + "/profiles/atom/mv/theboard/entry.do?entryid=\(comment.id)")])
    }

    // MARK: Service document, tags, photo

    /// `profileService.do`: the collections of a person (the signed-in one without parameters).
    private static func serviceDocument(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let person: Person
        if request.query("userid") != nil || request.query("email") != nil || request.query("key") != nil {
            person = try target(request, "userid", "email", "key")
        } else {
            guard let user = request.user else { throw .unauthorized }
            person = user
        }
        var writer = XMLWriter()
        writer.declaration()
        writer.open("service", ["xmlns": "http://www.w3.org/2007/app", "xmlns:atom": Atom.namespace, "xmlns:snx": Atom.snx])
        writer.open("workspace")
        writer.element("atom:title", ["type": "text"], text: person.name)
        writer.element(
            "atom:link",
            [
                "rel": "http://www.ibm.com/xmlns/prod/sn/profile", "type": "application/atom+xml",
                "href": request.base + "/profiles/atom/profile.do?key=\(person.key)",
            ])
        for (title, path, relation) in [
            ("Board", "/profiles/atom/mv/theboard/entries.do?key=\(person.key)", "http://www.ibm.com/xmlns/prod/sn/mv/theboard"),
            ("Status", "/profiles/atom/mv/theboard/entry/status.do?key=\(person.key)", "http://www.ibm.com/xmlns/prod/sn/status"),
        ] {
            writer.open("collection", ["href": request.base + path])
            writer.element("atom:title", ["type": "text"], text: title)
            writer.element("accept", text: "application/atom+xml;type=entry")
            writer.element("atom:link", ["rel": relation, "href": request.base + path])
            writer.close("collection")
        }
        writer.close("workspace")
        writer.close("service")
        var rendered = Rendered(contentType: "application/atomsvc+xml; charset=UTF-8", body: writer.bytes, lastModified: nil)
        rendered.headers = [("Expires", "Thu, 01 Dec 1994 16:00:00 GMT"), ("Cache-Control", "no-cache=\"set-cookie, set-cookie2\"")]
        return rendered
    }

    /// `profileTags.do?targetKey=…` (or `targetEmail`): the person's tags as an app:categories document.
    private static func tags(_ request: LotusRequest) throws(LotusError) -> Rendered {
        let person = try target(request, "targetKey", "targetEmail")
        var writer = XMLWriter()
        writer.declaration()
        writer.open("app:categories", ["xmlns:app": "http://www.w3.org/2007/app", "xmlns:atom": Atom.namespace, "xmlns:snx": Atom.snx])
        for tag in person.tags { writer.element("atom:category", ["term": tag, "snx:frequency": "1"]) }
        writer.close("app:categories")
        return Rendered(contentType: "application/atomcat+xml; charset=UTF-8", body: writer.bytes, lastModified: nil)
    }

    /// A 1×1 grey PNG: every person's photo.
    static let placeholderPhoto: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3A, 0x7E, 0x9B, 0x55, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0x68, 0x00, 0x00, 0x00, 0x82, 0x00, 0x81, 0x77, 0xCD, 0x72, 0xB6, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

/// Profiles search wildcards: `*` any run of characters, `%` exactly one; case-insensitive.
enum Wildcard {
    static func matches(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text.lowercased())
        let pattern = Array(pattern.lowercased())
        var t = 0
        var p = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "%" || pattern[p] == text[t] {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
