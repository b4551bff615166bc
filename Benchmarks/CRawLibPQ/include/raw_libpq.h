// The PostgreSQL benchmark's ceiling: the statements PrefsKit's PostgreSQL engine sends,
// sent directly through libpq with prepared statements, on the same schema.
#ifndef PREFS_RAW_LIBPQ_H
#define PREFS_RAW_LIBPQ_H

#include <stdint.h>

typedef struct raw_pg raw_pg;

// Connects and acts for `account` (the schema must exist: PrefsKit migrated it). Returns
// NULL on failure.
raw_pg *raw_pg_open(const char *conninfo, const char *account);
void raw_pg_close(raw_pg *db);

// Reads an int preference (SELECT type, value, bytes ... by account, suite and key).
// Returns 1 when found, 0 when absent, -1 on error.
int raw_pg_get_int(raw_pg *db, const char *suite, const char *key, int64_t *value);

// Stores an int preference in its own transaction: BEGIN, the declared-type check, the
// upsert (the history trigger fires as for PrefsKit), COMMIT. Returns 0 on success.
int raw_pg_set_int(raw_pg *db, const char *suite, const char *key, int64_t value, double now);

// The floor of a set: the upsert alone, in autocommit (one round trip; the history trigger
// fires as for PrefsKit), with no declared-type check. Returns 0 on success.
int raw_pg_set_int_floor(raw_pg *db, const char *suite, const char *key, int64_t value,
                         double now);

// Behind a pooler in transaction mode (PgBouncer), where nothing stays in a session:
// connects without preparing anything. Returns NULL on failure.
raw_pg *raw_pg_open_pooled(const char *conninfo, const char *account);

// The floor of a set and of an uncached get behind such a pooler: one implicit transaction
// of two unnamed statements in one round trip (libpq's pipeline), the account set for
// this transaction (set_config(..., true)) and the upsert or the read. Return as
// raw_pg_set_int_floor and raw_pg_get_int.
int raw_pg_set_int_pooled(raw_pg *db, const char *suite, const char *key, int64_t value,
                          double now);
int raw_pg_get_int_pooled(raw_pg *db, const char *suite, const char *key, int64_t *value);

// Runs SQL text (one or more statements, no parameters) as it is: 1 when it succeeded.
int raw_pg_exec(raw_pg *db, const char *sql);

// Inserts `count` bookmarks (kind 'movie', item IDs prefix0..., two tags each, the search
// text as PrefsKit builds it) in one transaction. Returns 0 on success.
int raw_pg_insert_bookmarks(raw_pg *db, const char *prefix, int count, double now);

#endif
