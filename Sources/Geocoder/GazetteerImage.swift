import MockCore
import WireFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The gazetteer's tables as one block of bytes, laid out to be read in place: built once from the
/// CSV files (`GazetteerImageWriter`), cached in a file and memory-mapped on the next start, so a
/// start neither parses nor indexes, and only the pages a lookup touches become resident.
///
/// Layout (native byte order; the file is a local cache, never shipped): a header of 8-byte words
/// — magic, version, the CSV files' checksum, the total length, then an (offset, count) pair per
/// `Section` — followed by the sections, each 8-byte aligned. Records are rows of 8-byte words; a
/// string is one word, its offset in `strings` (low 32 bits) and its length (high 32 bits).
/// Every read is bounds-checked and answers an empty value out of range: a damaged cache file gives
/// wrong places, never a trap.
final class GazetteerImage: @unchecked Sendable {
    static let magic: UInt64 = 0x5a47_5355_4452_5355  // "USRDUSGZ"
    /// Bumped whenever the layout or what the loader puts in it changes.
    static let version: UInt64 = 1

    enum Section: Int, CaseIterable {
        case strings, countries, states, postalCodes, localities, postalCodeTowns
        case postalCodesByZIP, localitiesByName, localityLists
        case postalGridPoints, postalGridCells, postalGridIndices
        case localityGridPoints, localityGridCells, localityGridIndices
        case problems

        /// Bytes per element: records are rows of words, lists 32-bit indices, hash slots, grid points
        /// and grid cells two words each.
        var stride: Int {
            switch self {
            case .strings: 1
            case .countries: 9 * 8
            case .states: 11 * 8
            case .postalCodes: 9 * 8
            case .localities: 15 * 8
            case .postalCodeTowns, .localityLists, .postalGridIndices, .localityGridIndices: 4
            case .postalCodesByZIP, .localitiesByName: 2 * 8
            case .postalGridPoints, .localityGridPoints: 2 * 8
            case .postalGridCells, .localityGridCells: 2 * 8
            case .problems: 3 * 8
            }
        }
    }

    static let headerWords = 4 + 2 * Section.allCases.count

    private let base: UnsafeRawPointer
    private let release: () -> Void
    /// Whether the bytes held an image of this version (else every section is empty).
    let isValid: Bool
    /// The checksum of the CSV files the image was made from.
    let sourceChecksum: UInt64
    private let sections: [(offset: Int, count: Int)]

    /// The image in `length` bytes at `base`, which `release` frees. Bytes that are not an image
    /// of this version, or whose sections do not fit, read as an empty image (`isValid` false).
    init(base: UnsafeRawPointer, length: Int, release: @escaping () -> Void) {
        func word(_ index: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
        self.base = base
        self.release = release
        var sections: [(offset: Int, count: Int)] = []
        if length >= Self.headerWords * 8, word(0) == Self.magic, word(1) == Self.version, word(3) == UInt64(length) {
            for section in Section.allCases {
                let offset = word(4 + 2 * section.rawValue)
                let count = word(5 + 2 * section.rawValue)
                guard offset <= UInt64(length), count <= UInt64(length), offset + count * UInt64(section.stride) <= UInt64(length) else { break }
                sections.append((Int(offset), Int(count)))
            }
        }
        isValid = sections.count == Section.allCases.count
        self.sections = isValid ? sections : Array(repeating: (0, 0), count: Section.allCases.count)
        sourceChecksum = isValid ? word(2) : 0
    }

    /// An image over a copy of `bytes`.
    convenience init(copying bytes: [UInt8]) {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        bytes.withUnsafeBytes { source in
            if let start = source.baseAddress { copy.copyMemory(from: start, byteCount: source.count) }
        }
        self.init(base: copy, length: bytes.count, release: { copy.deallocate() })
    }

    /// The image in the file at `path`, mapped read-only; nil if it is missing or not a valid
    /// image of `checksum`.
    static func mapped(path: String, checksum: UInt64) -> GazetteerImage? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_size >= headerWords * 8 else { return nil }
        let length = Int(status.st_size)
        guard let region = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), region != MAP_FAILED else { return nil }
        // Lookups read a few scattered pages: no read-ahead around them, so only those become resident.
        _ = madvise(region, length, MADV_RANDOM)
        let image = GazetteerImage(base: UnsafeRawPointer(region), length: length, release: { munmap(region, length) })
        return image.isValid && image.sourceChecksum == checksum ? image : nil
    }

    deinit { release() }

    func count(_ section: Section) -> Int { sections[section.rawValue].count }

    /// Word `field` of record `index`, or 0 out of range.
    @inline(__always)
    func word(_ section: Section, _ index: Int, _ field: Int) -> UInt64 {
        let (offset, count) = sections[section.rawValue]
        guard index >= 0, index < count, field >= 0, field * 8 < section.stride else { return 0 }
        return base.loadUnaligned(fromByteOffset: offset + index * section.stride + field * 8, as: UInt64.self)
    }

    func double(_ section: Section, _ index: Int, _ field: Int) -> Double { Double(bitPattern: word(section, index, field)) }

    func coordinate(_ section: Section, _ index: Int, _ field: Int) -> Coordinate {
        Coordinate(lat: double(section, index, field), lng: double(section, index, field + 1))
    }

    func integer(_ section: Section, _ index: Int, _ field: Int) -> Int { Int(truncatingIfNeeded: word(section, index, field)) }

    func string(_ section: Section, _ index: Int, _ field: Int) -> String { text(section, index, field).string }

    /// The bytes of a string field, in place.
    func text(_ section: Section, _ index: Int, _ field: Int) -> PlaceText {
        let (offset, length) = stringBounds(word(section, index, field))
        return PlaceText(UnsafeRawBufferPointer(start: base + offset, count: length))
    }

    /// A 32-bit index of a list section, or -1 out of range.
    @inline(__always)
    func index(_ section: Section, _ position: Int) -> Int {
        let (offset, count) = sections[section.rawValue]
        guard position >= 0, position < count else { return -1 }
        return Int(base.loadUnaligned(fromByteOffset: offset + position * 4, as: Int32.self))
    }

    /// The positions of a list section a range word (start in the low 32 bits, count in the high)
    /// names, clamped to the section.
    func range(_ word: UInt64, in list: Section) -> Range<Int> {
        let count = self.count(list)
        let start = min(Int(word & 0xffff_ffff), count)
        return start..<min(start + Int(word >> 32), count)
    }

    /// Where a string word's bytes are, clamped to the strings section.
    private func stringBounds(_ word: UInt64) -> (offset: Int, length: Int) {
        let strings = sections[Section.strings.rawValue]
        let start = Int(word & 0xffff_ffff)
        let length = Int(word >> 32)
        guard start <= strings.count, length <= strings.count - start else { return (strings.offset, 0) }
        return (strings.offset + start, length)
    }

    /// Whether the string word `word` holds exactly `key`'s bytes.
    func stringEquals(_ word: UInt64, _ key: String) -> Bool {
        let (offset, length) = stringBounds(word)
        var key = key
        return key.withUTF8 { bytes in
            guard bytes.count == length, let start = bytes.baseAddress else { return bytes.count == length }
            return memcmp(start, base + offset, length) == 0
        }
    }

    /// The value a hash table section maps `key` to: slots of (string word, value word), open
    /// addressing with linear probing from the key's FNV-1a hash; an empty slot's string word is
    /// all ones.
    func lookup(_ table: Section, _ key: String) -> UInt64? {
        let slots = count(table)
        guard slots > 0, slots & (slots - 1) == 0 else { return nil }
        var slot = Int(truncatingIfNeeded: Self.hash(key)) & (slots - 1)
        for _ in 0..<slots {
            let keyWord = word(table, slot, 0)
            if keyWord == .max { return nil }
            if stringEquals(keyWord, key) { return word(table, slot, 1) }
            slot = (slot + 1) & (slots - 1)
        }
        return nil
    }

    static func hash(_ key: String) -> UInt64 { FNV1a.hash(key.utf8) }
}
