#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import; it tells SQLite to copy bound
// text and blobs before sqlite3_bind_* returns.
static inline void (*_Nonnull csqlite_transient(void))(void *) {
    return (void (*)(void *))-1;
}
