// LLVMFuzzerRunDriver comes from the libFuzzer runtime that -sanitize=fuzzer links.
#include "CFuzzer.h"

// Read by AddressSanitizer at start-up. Leak checking is off: Swift keeps enum tags in the spare
// bits of pointers, which LeakSanitizer cannot follow, so values kept in globals are reported as
// leaked when the process exits.
const char *__asan_default_options(void) {
    return "detect_leaks=0";
}
