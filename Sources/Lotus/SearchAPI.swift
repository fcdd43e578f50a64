/// Search (`/search/atom/search`, and `/search/atom/mysearch` signed in): keyword, tag and
/// person search across blog entries, profiles and the other features' items, ranked by a
/// relevance score. The parameter names of the 2.5 service are unverified; these are `query`,
/// `tag`, `email`/`userid`, `scope` (a feature, or `allFeatures`), `page` (from 1) and
/// `pageSize` (or `ps`).
enum SearchAPI {
    private struct Hit {
        let id: String
        let component: String
        let title: String
        let summary: String
        let link: String
        let tags: [String]
        let author: String
        let updated: AtomDate
        var score = 0.0
    }

    static func handle(_ request: LotusRequest) throws(LotusError) -> Rendered {
        switch request.path {
        case "/search/atom/search": break
        case "/search/atom/mysearch": guard request.user != nil else { throw .unauthorized }
        default: throw .notFound
        }
        let terms = (request.query("query") ?? "").lowercased().split(separator: " ").map(String.init)
        let tags = (request.query("tag") ?? "").lowercased().split(separator: ",").map(String.init)
        let person = try request.namedPerson()
        guard !terms.isEmpty || !tags.isEmpty || person != nil else { throw .missingParameter("query, tag, email or userid") }
        let scope = (request.query("scope") ?? "allFeatures").lowercased()
        let components = ["activities", "blogs", "communities", "dogear", "files", "profiles", "wikis"]
        guard scope == "allfeatures" || components.contains(scope) else { throw .badParameter("scope", scope) }

        var hits: [Hit] = []
        if scope == "allfeatures" || scope == "blogs" {
            for blog in request.content.blogs {
                for entry in request.content.entries(of: blog) {
                    hits.append(
                        Hit(
                            id: "urn:lsid:ibm.com:blogs:entry-\(entry.id)", component: "blogs", title: entry.title, summary: entry.content,
                            link: "/blogs/\(blog.handle)/entry/\(entry.id)", tags: entry.tags, author: entry.author,
                            updated: AtomDate(entry.updated) ?? request.now))
                }
            }
        }
        if scope == "allfeatures" || scope == "profiles" {
            for someone in request.content.people {
                hits.append(
                    Hit(
                        id: "tag:profiles.ibm.com,2006:entry\(someone.key)", component: "profiles", title: someone.name,
                        summary: "\(someone.jobTitle), \(someone.organization), \(someone.city), \(someone.country)",
                        link: "/profiles/html/profileView.do?key=\(someone.key)", tags: someone.tags, author: someone.userid,
                        updated: ProfilesAPI.updated(someone, request)))
            }
        }
        for story in request.content.directory.fixtures.stories {
            let component = story.source == "bookmarks" ? "dogear" : story.source
            guard scope == "allfeatures" || scope == component else { continue }
            hits.append(
                Hit(
                    id: "urn:lsid:ibm.com:\(component):\(story.id)", component: component, title: story.object, summary: story.summary,
                    link: "/\(story.source)/html/item?id=\(story.id)", tags: story.tags, author: story.actor,
                    updated: AtomDate(story.published) ?? request.now))
        }
        hits = hits.compactMap { hit in
            guard person == nil || hit.author == person!.userid,
                tags.allSatisfy({ tag in hit.tags.contains { $0.lowercased() == tag } })
            else { return nil }
            var hit = hit
            let title = hit.title.lowercased()
            let body = hit.summary.lowercased()
            let hitTags = hit.tags.map { $0.lowercased() }
            var weight = 0.0
            for term in terms {
                let inTitle = title.contains(term)
                let inBody = body.contains(term)
                let inTags = hitTags.contains(term)
                guard inTitle || inBody || inTags else { return nil }
                weight += (inTitle ? 3 : 0) + (inBody ? 1 : 0) + (inTags ? 2 : 0)
            }
            weight += Double(tags.count)
            hit.score = (weight / (weight + 5) * 10_000_000).rounded() / 10_000_000
            return hit
        }
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.updated > $1.updated }

        let paging = try Paging(
            request, firstPage: 1, defaultSize: 10, maximumSize: 100, sizeParameter: request.query("ps") != nil ? "ps" : "pageSize")
        var writer = XMLWriter()
        Atom.openFeed(
            &writer, id: "urn:lsid:ibm.com:search:results", title: request.labels.searchResults, generator: "Search",
            updated: hits.map(\.updated).max() ?? request.now)
        Atom.paging(&writer, paging, total: hits.count, request: request, path: request.path)
        for hit in paging.slice(hits) {
            writer.open("entry")
            writer.element("id", text: hit.id)
            writer.element("title", ["type": "text"], text: hit.title)
            writer.element("category", ["term": "search", "scheme": Atom.typeScheme])
            writer.element("category", ["term": hit.component, "scheme": "http://www.ibm.com/xmlns/prod/sn/component"])
            for tag in hit.tags { writer.element("category", ["term": tag]) }
            writer.element("link", ["rel": "alternate", "type": "text/html", "href": request.base + hit.link])
            writer.element("relevance:score", ["xmlns:relevance": "http://a9.com/-/opensearch/extensions/relevance/1.0/"], text: String(hit.score))
            writer.element("summary", ["type": "text"], text: hit.summary)
            writer.element("updated", text: hit.updated.text)
            Atom.person(&writer, "author", request.content.person(userid: hit.author))
            writer.close("entry")
        }
        writer.close("feed")
        return .atom(writer.bytes, lastModified: nil)
    }
}

/// `/{component}/serviceconfigs`: every feature's URL, for service discovery.
enum ServiceConfigs {
    static func render(_ request: LotusRequest) -> Rendered {
        var writer = XMLWriter()
        Atom.openFeed(
            &writer, id: "urn:lsid:ibm.com:serviceconfigs", title: "Lotus Connections service configurations",
            generator: "Configuration", updated: AtomDate("2010-09-01T09:00:00.000Z")!)
        for service in ["blogs", "news", "profiles", "search"] {
            writer.open("entry")
            writer.element("id", text: "urn:lsid:ibm.com:serviceconfigs:\(service)")
            writer.element("title", ["type": "text"], text: service)
            writer.element(
                "link",
                [
                    "rel": "http://www.ibm.com/xmlns/prod/sn/service/\(service)", "type": "text/html",
                    "href": request.base + "/" + service,
                ])
            writer.element("updated", text: "2010-09-01T09:00:00.000Z")
            writer.close("entry")
        }
        writer.close("feed")
        var rendered = Rendered.atom(writer.bytes, lastModified: nil)
        rendered.headers = [("X-APIVersion", "2.0")]
        return rendered
    }
}
