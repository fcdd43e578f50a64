#include "CAllocatorSettings.h"

// jemalloc keeps freed pages for 10 s by default, and returns them only while it is being called:
// an idle server that has just deleted its scopes (Informix's copies are most of their memory)
// would hold them until its next requests. One background thread returns pages unused for about a
// second, whether requests come or not (docs/performance-machinery.md, "jemalloc linked as one object").
const char *malloc_conf = "background_thread:true,max_background_threads:1,dirty_decay_ms:1000";
