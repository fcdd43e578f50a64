import Testing

@testable import MockCore

@Suite struct ValueTests {
    @Test func pathTableFindsExactPathsOnly() {
        var pairs: [String: Int] = [:]
        for index in 0..<500 { pairs["/path/\(index)"] = index }
        let table = PathTable(pairs)
        #expect(table.count == 500)
        #expect(table["/path/0"] == 0)
        #expect(table["/path/499"] == 499)
        #expect(table["/path/500"] == nil)
        #expect(table["/path/4"] == 4)
        #expect(table[""] == nil)
        #expect(PathTable<Int>([:])["/"] == nil)
    }

    @Test func mediaTypesByExtension() {
        #expect(MediaType.forFileExtension("JSON") == "application/json")
        #expect(MediaType.forFileExtension("xml") == "application/xml")
        #expect(MediaType.forFileExtension("bin") == "application/octet-stream")
    }
}
