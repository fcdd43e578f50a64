// SQLite's C API as a Swift module (system library, pkg-config "sqlite3"), with the constants Swift
// cannot import from macros.
#ifndef UNDERSTUDY_CSQLITE_SHIM_H
#define UNDERSTUDY_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
static inline sqlite3_destructor_type understudy_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Defensive mode: no writable_schema, no direct writes to the schema table, no journal tricks.
static inline int understudy_sqlite_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

#endif
