import CEvhttpHeaders

/// The status and header lines evhttp writes through the executable's own `evbuffer_add_printf`
/// (target CEvhttpHeaders) instead of vsnprintf.
public enum ResponseHeaderLines {
    /// How many so far on the calling thread (a loop's, where evhttp writes them); 0 where the
    /// dynamic linker keeps libevent's definition.
    public static var writtenDirectlyOnThisThread: UInt { UInt(understudy_fast_printf_lines()) }
}
