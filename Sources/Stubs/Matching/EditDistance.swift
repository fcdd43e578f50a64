/// Levenshtein distance over UTF-8 bytes: how far a request's path is from a mapping's (near
/// misses) and a mistyped key from a known one ("did you mean").
enum EditDistance {
    /// Insertions, deletions and substitutions that turn `a` into `b`.
    static func edits(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var previous = Array(0...y.count)
        var current = previous
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
