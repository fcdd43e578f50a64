import Templating
import WireFormat

/// `beginIndex`/`pageSize` paging over a list, with the links the page shows.
struct Paging {
    let begin: Int
    let size: Int
    let total: Int

    init(_ store: StoreRequest, total: Int, defaultSize: Int) {
        size = max(1, min(100, Int(store.text("pageSize")) ?? defaultSize))
        begin = max(0, min(Int(store.text("beginIndex")) ?? 0, max(0, total - 1)))
        self.total = total
    }

    var range: Range<Int> { begin..<min(total, begin + size) }

    func value(link: String) -> TemplateValue {
        object([
            ("first", .number(Double(total == 0 ? 0 : begin + 1))),
            ("last", .number(Double(range.upperBound))),
            ("total", .number(Double(total))),
            ("previous", begin > 0 ? .string(pageLink(link, from: max(0, begin - size))) : .null),
            ("next", range.upperBound < total ? .string(pageLink(link, from: range.upperBound)) : .null),
        ])
    }

    /// `link&beginIndex=…&pageSize=…`, written as bytes: interpolating it cost more than the rest
    /// of the paging.
    private func pageLink(_ link: String, from begin: Int) -> String {
        var out = ByteWriter(capacity: link.utf8.count + 40)
        out.write(link)
        out.write("&beginIndex=")
        out.decimal(UInt64(begin))
        out.write("&pageSize=")
        out.decimal(UInt64(size))
        return out.text
    }
}
