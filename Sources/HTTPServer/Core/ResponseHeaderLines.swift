import CEvhttpHeaders

/// The status and header lines evhttp writes through the executable's own `evbuffer_add_printf`
/// (target CEvhttpHeaders) instead of vsnprintf.
public enum ResponseHeaderLines {
    /// How many so far, over all loops; 0 where the dynamic linker keeps libevent's definition.
    public static var writtenDirectly: UInt { UInt(understudy_fast_printf_lines()) }
}
