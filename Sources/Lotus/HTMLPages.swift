/// The web pages the feeds link to (`alternate` and `related` links, the vcard spans of stories,
/// the service configurations), so that an app's detail view has something to show: a blog,
/// a blog entry with its comments, a profile and its vCard, an item of the features emulated
/// only as stories, and each component's front page. Plain, light HTML in the request's
/// language; everything from the fixtures or from clients is escaped — a posted entry's HTML
/// shows as its markup and can never script the page. An unknown key or entry is a 404 page.
enum HTMLPages {
    static let htmlType = "text/html;charset=UTF-8"
    static let vcardType = "text/directory;charset=UTF-8"

    /// The page at the request's path, or nil when the path is not a page's.
    static func render(_ request: LotusRequest) -> Rendered? {
        let path = request.path
        if LotusConnections.services.contains(path) { return frontPage(request) }
        switch path {
        case "/profiles/html/profileView.do": return profile(request)
        case "/profiles/vcard/profile.do":
            guard let person = named(request) else { return notFound(request) }
            return Rendered(contentType: vcardType, body: Array((ProfilesAPI.vcard(person, full: true) + "\r\n").utf8), lastModified: nil)
        default: break
        }
        // Feeds, the bulk of the requests, leave here without splitting their path.
        guard path.hasSuffix("/html/item") || (path.hasPrefix("/blogs/") && !path.hasSuffix("/atom")) else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        if parts.count == 3, StoryKind.otherSources.contains(parts[0]), parts[1] == "html", parts[2] == "item" {
            return item(request, source: parts[0])
        }
        guard parts.first == "blogs", parts.count == 2 || (parts.count == 4 && parts[2] == "entry"), parts[1] != "roller-ui" else { return nil }
        guard let blog = request.content.blog(parts[1]) else { return notFound(request) }
        return parts.count == 2 ? blogPage(request, blog) : entryPage(request, blog, parts[3])
    }

    // MARK: Pages

    private static func blogPage(_ request: LotusRequest, _ blog: Blog) -> Rendered {
        let entries = request.content.entries(of: blog).sorted { $0.published > $1.published }
        var html = "<h1>\(e(blog.title))</h1>\n<p class=\"summary\">\(e(blog.summary))</p>\n"
        html += "<p class=\"owner\">\(request.labels.by(personLink(request, blog.owner)))</p>\n"
        html += "<h2>\(e(request.labels.entries))</h2>\n<ul class=\"entries\">\n"
        for entry in entries {
            html +=
                "<li><a href=\"\(e(request.base))/blogs/\(e(blog.handle))/entry/\(e(entry.id))\">\(e(entry.title))</a> "
                + "<time datetime=\"\(e(entry.published))\">\(e(entry.published))</time></li>\n"
        }
        html += "</ul>\n"
        return page(request, title: blog.title, body: html, lastModified: entries.compactMap { AtomDate($0.updated) }.max())
    }

    private static func entryPage(_ request: LotusRequest, _ blog: Blog, _ id: String) -> Rendered {
        guard let (entry, source) = request.content.entry(id), source.handle == blog.handle else { return notFound(request) }
        var html = "<p class=\"blog\"><a href=\"\(e(request.base))/blogs/\(e(blog.handle))\">\(e(blog.title))</a></p>\n"
        html += "<h1>\(e(entry.title))</h1>\n"
        html +=
            "<p class=\"byline\">\(request.labels.by(personLink(request, entry.author))) <time datetime=\"\(e(entry.published))\">\(e(entry.published))</time></p>\n"
        if !entry.tags.isEmpty { html += "<p class=\"tags\">\(e(entry.tags.joined(separator: ", ")))</p>\n" }
        html += "<div class=\"content\">\(e(entry.content))</div>\n"
        html += "<h2>\(e(request.labels.comments)) (\(entry.comments.count))</h2>\n"
        if entry.comments.isEmpty { html += "<p>\(e(request.labels.noComments))</p>\n" }
        for comment in entry.comments {
            html +=
                "<div class=\"comment\" id=\"comment-\(e(comment.id))\"><p class=\"byline\">\(personLink(request, comment.author)) "
                + "<time datetime=\"\(e(comment.published))\">\(e(comment.published))</time></p><p>\(e(comment.content))</p></div>\n"
        }
        let changes = [AtomDate(entry.updated)] + entry.comments.map { AtomDate($0.published) }
        return page(request, title: entry.title, body: html, lastModified: changes.compactMap { $0 }.max())
    }

    /// `profileView.do?key=…` (or `userid`, `email`).
    private static func profile(_ request: LotusRequest) -> Rendered {
        guard let person = named(request) else { return notFound(request) }
        let base = e(request.base)
        let key = e(person.key)
        var html = "<div class=\"vcard\">\n<img class=\"photo\" src=\"\(base)/profiles/photo.do?key=\(key)\" alt=\"\">\n"
        html += "<h1 class=\"fn\">\(e(person.name))</h1>\n"
        for (field, value) in [
            ("title", person.jobTitle), ("org", person.organization),
            ("adr", [person.city, person.country].filter { !$0.isEmpty }.joined(separator: ", ")),
            ("tel", person.phone),
        ] where !value.isEmpty {
            html += "<p class=\"\(field)\">\(e(value))</p>\n"
        }
        html += "<p><a class=\"email\" href=\"mailto:\(e(person.email))\">\(e(person.email))</a></p>\n"
        if !person.tags.isEmpty { html += "<p class=\"tags\">\(e(person.tags.joined(separator: ", ")))</p>\n" }
        html += "<p><a href=\"\(base)/profiles/vcard/profile.do?key=\(key)\" type=\"text/directory\">vCard</a></p>\n</div>\n"
        if let status = request.content.status(of: person) {
            html +=
                "<h2>\(e(request.labels.status))</h2>\n<p class=\"status\">\(e(status.text)) <time datetime=\"\(e(status.updated))\">\(e(status.updated))</time></p>\n"
        }
        for blog in request.content.blogs where blog.owner == person.userid {
            html += "<p class=\"blog\"><a href=\"\(base)/blogs/\(e(blog.handle))\">\(e(blog.title))</a></p>\n"
        }
        let network = request.content.network(of: person).sorted()
        if !network.isEmpty {
            html += "<h2>\(e(request.labels.network))</h2>\n<ul class=\"network\">\n"
            for userid in network { html += "<li>\(personLink(request, userid))</li>\n" }
            html += "</ul>\n"
        }
        return page(request, title: person.name, body: html, lastModified: ProfilesAPI.updated(person, request))
    }

    /// An activity, bookmark, community, file or wiki page: only its story is known.
    private static func item(_ request: LotusRequest, source: String) -> Rendered {
        guard let id = request.query("id"),
            let story = request.content.directory.fixtures.stories.first(where: { $0.id == id && $0.source == source })
        else { return notFound(request) }
        var html = "<h1>\(e(story.object))</h1>\n<p class=\"byline\">\(request.labels.by(personLink(request, story.actor))) "
        html += "<time datetime=\"\(e(story.published))\">\(e(story.published))</time></p>\n"
        if !story.summary.isEmpty { html += "<p class=\"summary\">\(e(story.summary))</p>\n" }
        if !story.tags.isEmpty { html += "<p class=\"tags\">\(e(story.tags.joined(separator: ", ")))</p>\n" }
        return page(request, title: story.object, body: html, lastModified: AtomDate(story.published))
    }

    /// `/blogs`, `/news`, … (the service configurations link there): the blogs list for Blogs,
    /// the component's name for the others.
    private static func frontPage(_ request: LotusRequest) -> Rendered {
        let name = String(request.path.dropFirst())
        var html = "<h1>\(e("Lotus Connections - " + name.prefix(1).uppercased() + name.dropFirst()))</h1>\n"
        if name == "blogs" {
            html += "<ul class=\"blogs\">\n"
            for blog in request.content.blogs { html += "<li><a href=\"\(e(request.base))/blogs/\(e(blog.handle))\">\(e(blog.title))</a></li>\n" }
            html += "</ul>\n"
        }
        return page(request, title: name, body: html, lastModified: nil)
    }

    // MARK: Parts

    private static func e(_ text: String) -> String { XMLWriter.escaped(text) }

    /// The person named by `key`, `userid` or `email`, if any.
    private static func named(_ request: LotusRequest) -> Person? {
        if let key = request.query("key") { return request.content.person(key: key) }
        if let userid = request.query("userid") { return request.content.person(userid: userid) }
        return request.query("email").flatMap { request.content.person(email: $0) }
    }

    private static func personLink(_ request: LotusRequest, _ userid: String) -> String {
        guard let person = request.content.person(userid: userid) else { return "" }
        return "<a class=\"fn url\" href=\"\(e(request.base))/profiles/html/profileView.do?key=\(e(person.key))\">\(e(person.name))</a>"
    }

    private static func page(_ request: LotusRequest, status: Int = 200, title: String, body: String, lastModified: AtomDate?) -> Rendered {
        let html =
            "<!DOCTYPE html>\n<html lang=\"\(request.labels.language)\">\n<head><meta charset=\"utf-8\"><title>\(e(title))</title></head>\n<body>\n"
            + body + "</body>\n</html>\n"
        return Rendered(status: status, contentType: htmlType, body: Array(html.utf8), lastModified: lastModified)
    }

    private static func notFound(_ request: LotusRequest) -> Rendered {
        page(request, status: 404, title: request.labels.pageNotFound, body: "<h1>\(e(request.labels.pageNotFound))</h1>\n", lastModified: nil)
    }
}
