/// An answer before its HTTP framing: the emulated service's bytes and what conditional GET
/// needs.
struct Rendered: Sendable {
    var status = 200
    var contentType: String
    var body: [UInt8]
    /// The newest change shown: Last-Modified, and the answer to If-Modified-Since.
    var lastModified: AtomDate?
    var headers: [(String, String)] = []

    static func atom(_ body: [UInt8], lastModified: AtomDate?, contentType: String = Atom.feedType) -> Rendered {
        Rendered(contentType: contentType, body: body, lastModified: lastModified)
    }
}

/// The Atom vocabulary Connections 2.5 writes: namespaces, generator, paging, people.
enum Atom {
    static let namespace = "http://www.w3.org/2005/Atom"
    static let snx = "http://www.ibm.com/xmlns/prod/sn"
    static let typeScheme = "http://www.ibm.com/xmlns/prod/sn/type"
    static let feedType = "application/atom+xml;charset=UTF-8"
    static let entryType = "application/atom+xml;type=entry;charset=UTF-8"

    /// `<?xml …?><feed …>` with `id`, `title`, the generator naming the product and version,
    /// and `updated`.
    static func openFeed(_ writer: inout XMLWriter, id: String, title: String, generator: String, updated: AtomDate) {
        writer.declaration()
        writer.open(
            "feed",
            [
                "xmlns": namespace, "xmlns:app": "http://www.w3.org/2007/app", "xmlns:thr": "http://purl.org/syndication/thread/1.0",
                "xmlns:snx": snx, "xmlns:opensearch": "http://a9.com/-/spec/opensearch/1.1/",
            ])
        writer.element("id", text: id)
        writer.element("generator", ["version": "2.5", "uri": snx], text: "Lotus Connections - \(generator)")
        writer.element("title", ["type": "text"], text: title)
        writer.element("updated", text: updated.text)
    }

    /// `opensearch:*` and the `self`, `first`, `previous`, `next`, `last` links of a paged feed.
    static func paging(_ writer: inout XMLWriter, _ paging: Paging, total: Int, request: LotusRequest, path: String) {
        writer.element("opensearch:totalResults", text: String(total))
        writer.element("opensearch:startIndex", text: String(paging.startIndex))
        writer.element("opensearch:itemsPerPage", text: String(paging.size))
        let last = paging.lastPage(total)
        func link(_ relation: String, _ page: Int) {
            writer.element(
                "link",
                [
                    "rel": relation, "type": "application/atom+xml",
                    "href": request.link(path, [("page", String(page)), ("ps", String(paging.size))]),
                ])
        }
        link("self", paging.page)
        link("first", paging.firstPage)
        if paging.page > paging.firstPage { link("previous", min(paging.page - 1, last)) }
        if paging.page < last { link("next", paging.page + 1) }
        link("last", last)
    }

    /// `<author>`/`<contributor>` with name, e-mail, `snx:userid` and `snx:userState`.
    static func person(_ writer: inout XMLWriter, _ element: String, _ person: Person?) {
        writer.open(element)
        writer.element("name", text: person?.name ?? "")
        writer.element("email", text: person?.email ?? "")
        writer.element("snx:userid", text: person?.userid ?? "")
        writer.element("snx:userState", text: "active")
        writer.close(element)
    }

    /// HTML naming a person as Connections does (a vcard span with the hidden user id), cut where
    /// the base URL of its link goes: `vcardStart`, the base, `vcardEnd(person)`.
    static let vcardStart = "<span class=\"vcard\"><a class=\"fn url\" href=\""

    static func vcardEnd(_ person: Person) -> String {
        "/profiles/html/profileView.do?userid=\(person.userid)\">"
            + "\(XMLWriter.escaped(person.name))</a><span class=\"x-lconn-userid\" style=\"display : none\">\(person.userid)</span></span>"
    }
}
