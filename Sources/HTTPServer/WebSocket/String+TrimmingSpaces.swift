extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }
        let trimmed = scalars.reversed().drop { $0 == " " || $0 == "\t" }
        return String(String.UnicodeScalarView(trimmed.reversed()))
    }
}
