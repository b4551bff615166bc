#ifndef PREFS_CSQLITE_SHIM_H
#define PREFS_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type prefs_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic; Swift cannot call C variadic functions directly.
// This wrapper covers the boolean options (an int in, an int* out).
static inline int prefs_sqlite_db_config_flag(sqlite3 *db, int option, int value, int *result) {
    return sqlite3_db_config(db, option, value, result);
}

#endif
