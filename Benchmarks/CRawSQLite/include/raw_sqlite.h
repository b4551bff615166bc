// The benchmark's ceiling: the same workloads as PrefsKit, written directly against
// SQLite's C API with prepared statements, on a database with the same schema and pragmas.
#ifndef PREFS_RAW_SQLITE_H
#define PREFS_RAW_SQLITE_H

#include <stdint.h>

typedef struct raw_db raw_db;

// Opens a database that PrefsKit created (the schema must exist). synchronous: 0 OFF,
// 1 NORMAL, 2 FULL. Returns NULL on failure.
raw_db *raw_open(const char *path, int synchronous);
void raw_close(raw_db *db);

// The value of `PRAGMA name` on this connection, as text, into `out`; 0 on success.
int raw_pragma(raw_db *db, const char *name, char *out, int size);

// Reads an int preference: SELECT type, value ... with a prepared statement, autocommit.
// Returns 1 when found.
int raw_get_int(raw_db *db, const char *suite, const char *key, int64_t *value);

// Stores an int preference in its own BEGIN IMMEDIATE transaction (the history trigger
// fires as for PrefsKit). Returns SQLITE_OK or an error code.
int raw_set_int(raw_db *db, const char *suite, const char *key, int64_t value, double now);

// Stores `count` int preferences named key0, key1... in one transaction.
int raw_set_batch(raw_db *db, const char *suite, int count, int64_t base, double now);

// Inserts `count` bookmarks (kind 'movie', item IDs prefix0..., category cycling through
// `categories` names "category0"...), each with two tags and its search row, in one
// transaction, as BookmarkStore.add does.
int raw_insert_bookmarks(raw_db *db, const char *prefix, int count, int categories, double now);

// The same with the strings made beforehand (as PrefsKit's side gets its drafts made): item
// IDs, titles, URLs and categories of `count` rows.
int raw_insert_bookmark_rows(raw_db *db, int count, const char *const *items, const char *const *titles,
                             const char *const *urls, const char *const *categories, double now);

// Lists the bookmarks of a category in position order, reading every column and tags.
// Returns the number of rows, or -1 on error.
int raw_list_category(raw_db *db, const char *category);

// Full-text search, first page. Returns the number of rows, or -1 on error.
int raw_search(raw_db *db, const char *query, int limit);

// Prepares and finalizes a hot statement once: 0 the preference upsert, 1 the bookmark
// insert. SQLite compiles the triggers of the table into the statement, so this is what a
// short-lived process (the command line) pays per write statement. Returns SQLITE_OK.
int raw_prepare_hot(raw_db *db, int statement);

// Runs SQL on the connection (for a benchmark's set-up). Returns SQLITE_OK.
int raw_exec(raw_db *db, const char *sql);

#endif
