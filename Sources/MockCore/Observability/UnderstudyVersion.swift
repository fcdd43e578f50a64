/// The release this build is; shown by `understudy --version` and `/__admin/health`.
public enum UnderstudyVersion {
    public static let current = "0.1.0"
}
