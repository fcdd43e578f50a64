/// FNV-1a, 64 bits: a hash that is stable across runs and platforms, unlike `Hasher`, for ids,
/// names and validators that must come out the same every time.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// `seed` chains hashes: hash(b, seed: hash(a)) == hash(a + b).
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>, seed: UInt64 = offsetBasis) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
