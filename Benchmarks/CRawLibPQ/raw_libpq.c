#include "raw_libpq.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct raw_pg {
    PGconn *conn;
    char account[64];
};

static int ok(PGresult *result) {
    ExecStatusType status = PQresultStatus(result);
    int good = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    PQclear(result);
    return good;
}

static int prepare(PGconn *conn, const char *name, const char *sql, int count) {
    return ok(PQprepare(conn, name, sql, count, NULL));
}

// Reads the int of a row of (type, value, bytes), and clears the result: 1 when found, 0
// when absent, -1 for a failed statement (NULL included).
static int read_int(PGresult *result, int64_t *value) {
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
        PQclear(result);
        return -1;
    }
    int found = PQntuples(result) > 0 && strcmp(PQgetvalue(result, 0, 0), "int") == 0;
    if (found) *value = strtoll(PQgetvalue(result, 0, 1), NULL, 10);
    PQclear(result);
    return found;
}

// Connects, for `account`; NULL on failure.
static raw_pg *connected(const char *conninfo, const char *account) {
    PGconn *conn = PQconnectdb(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        PQfinish(conn);
        return NULL;
    }
    raw_pg *db = calloc(1, sizeof(raw_pg));
    db->conn = conn;
    snprintf(db->account, sizeof db->account, "%s", account);
    return db;
}

raw_pg *raw_pg_open(const char *conninfo, const char *account) {
    raw_pg *db = connected(conninfo, account);
    if (!db) return NULL;
    PGconn *conn = db->conn;
    const char *values[1] = {account};
    if (!ok(PQexecParams(conn, "SELECT set_config('prefs.account', $1, false)", 1, NULL, values,
                         NULL, NULL, 0))
        || !prepare(conn, "get",
                    "SELECT type, value, bytes FROM preference"
                    " WHERE account = $1 AND suite = $2 AND key = $3", 3)
        || !prepare(conn, "begin", "BEGIN", 0) || !prepare(conn, "commit", "COMMIT", 0)
        || !prepare(conn, "declared",
                    "SELECT type FROM preference_declaration"
                    " WHERE account = $1 AND suite = $2 AND key = $3", 3)
        || !prepare(conn, "set",
                    "INSERT INTO preference (account, suite, key, type, value, bytes, updated_at,"
                    " value_version)"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)"
                    " ON CONFLICT (account, suite, key) DO UPDATE"
                    " SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,"
                    " updated_at = excluded.updated_at, value_version = excluded.value_version", 7)
        || !prepare(conn, "insert",
                    "INSERT INTO bookmark (account, id, kind, item_id, title, url, category, note,"
                    " position, created_at, updated_at, folder_id, search_text)"
                    " VALUES ($1, DEFAULT, $2, $3, $4, $5, $6, $7,"
                    " (SELECT coalesce(max(position) + 1, 0) FROM bookmark"
                    " WHERE account = $1 AND kind = $2), $8, $9, $10, $11)"
                    " ON CONFLICT (account, kind, item_id) DO NOTHING RETURNING id, position", 11)
        || !prepare(conn, "tag",
                    "INSERT INTO bookmark_tag (account, bookmark_id, tag) VALUES ($1, $2, $3)"
                    " ON CONFLICT DO NOTHING", 3)) {
        raw_pg_close(db);
        return NULL;
    }
    return db;
}

raw_pg *raw_pg_open_pooled(const char *conninfo, const char *account) {
    return connected(conninfo, account);
}

// The upsert's seven parameters for an int value, with the texts they point into.
typedef struct {
    char text[32], when[40];
    const char *values[7];
} upsert_parameters;

static void fill(upsert_parameters *p, const raw_pg *db, const char *suite, const char *key,
                 int64_t value, double now) {
    snprintf(p->text, sizeof p->text, "%lld", (long long)value);
    snprintf(p->when, sizeof p->when, "%.17g", now);
    const char *values[7] = {db->account, suite, key, "int", p->text, NULL, p->when};
    memcpy(p->values, values, sizeof values);
}

static const char *upsert_sql =
    "INSERT INTO preference (account, suite, key, type, value, bytes, updated_at,"
    " value_version)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)"
    " ON CONFLICT (account, suite, key) DO UPDATE"
    " SET type = excluded.type, value = excluded.value, bytes = excluded.bytes,"
    " updated_at = excluded.updated_at, value_version = excluded.value_version";

// Sends the account's set_config for this transaction, then `sql`, and a sync; returns the
// second statement's result (NULL when anything failed), the rest read and cleared.
static PGresult *pooled(raw_pg *db, const char *sql, int count, const char *const *values) {
    const char *account[1] = {db->account};
    if (PQenterPipelineMode(db->conn) != 1) return NULL;
    int sent = PQsendQueryParams(db->conn, "SELECT set_config('prefs.account', $1, true)", 1,
                                 NULL, account, NULL, NULL, 0) == 1
               && PQsendQueryParams(db->conn, sql, count, NULL, values, NULL, NULL, 0) == 1
               && PQpipelineSync(db->conn) == 1;
    PGresult *answer = NULL;
    int good = sent;
    for (int statement = 0; sent && statement < 2; statement++) {
        PGresult *result = PQgetResult(db->conn);
        ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) good = 0;
        if (statement == 1) answer = result; else PQclear(result);
        PGresult *end;
        while ((end = PQgetResult(db->conn)) != NULL) PQclear(end);
    }
    PGresult *sync;
    while (sent && (sync = PQgetResult(db->conn)) != NULL) {
        int done = PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
        PQclear(sync);
        if (done) break;
    }
    PQexitPipelineMode(db->conn);
    if (!good) {
        PQclear(answer);
        return NULL;
    }
    return answer;
}

int raw_pg_set_int_pooled(raw_pg *db, const char *suite, const char *key, int64_t value,
                          double now) {
    upsert_parameters p;
    fill(&p, db, suite, key, value, now);
    const char **values = p.values;
    PGresult *result = pooled(db, upsert_sql, 7, values);
    if (!result) return -1;
    PQclear(result);
    return 0;
}

int raw_pg_get_int_pooled(raw_pg *db, const char *suite, const char *key, int64_t *value) {
    const char *values[3] = {db->account, suite, key};
    return read_int(pooled(db,
                           "SELECT type, value, bytes FROM preference"
                           " WHERE account = $1 AND suite = $2 AND key = $3", 3, values),
                    value);
}

void raw_pg_close(raw_pg *db) {
    if (!db) return;
    PQfinish(db->conn);
    free(db);
}

int raw_pg_get_int(raw_pg *db, const char *suite, const char *key, int64_t *value) {
    const char *values[3] = {db->account, suite, key};
    return read_int(PQexecPrepared(db->conn, "get", 3, values, NULL, NULL, 0), value);
}

int raw_pg_set_int(raw_pg *db, const char *suite, const char *key, int64_t value, double now) {
    upsert_parameters p;
    fill(&p, db, suite, key, value, now);
    const char **values = p.values;
    const char *declared[3] = {db->account, suite, key};
    if (!ok(PQexecPrepared(db->conn, "begin", 0, NULL, NULL, NULL, 0))) return -1;
    if (!ok(PQexecPrepared(db->conn, "declared", 3, declared, NULL, NULL, 0))
        || !ok(PQexecPrepared(db->conn, "set", 7, values, NULL, NULL, 0))
        || !ok(PQexecPrepared(db->conn, "commit", 0, NULL, NULL, NULL, 0))) {
        PQclear(PQexec(db->conn, "ROLLBACK"));
        return -1;
    }
    return 0;
}

int raw_pg_set_int_floor(raw_pg *db, const char *suite, const char *key, int64_t value,
                         double now) {
    upsert_parameters p;
    fill(&p, db, suite, key, value, now);
    const char **values = p.values;
    return ok(PQexecPrepared(db->conn, "set", 7, values, NULL, NULL, 0)) ? 0 : -1;
}

int raw_pg_insert_bookmarks(raw_pg *db, const char *prefix, int count, double now) {
    char when[40];
    snprintf(when, sizeof when, "%.17g", now);
    if (!ok(PQexecPrepared(db->conn, "begin", 0, NULL, NULL, NULL, 0))) return -1;
    for (int i = 0; i < count; i++) {
        char item[64], title[64], url[96], search[256];
        snprintf(item, sizeof item, "%s%d", prefix, i);
        snprintf(title, sizeof title, "Movie %d", i);
        snprintf(url, sizeof url, "https://example.com/movies/%d", i);
        snprintf(search, sizeof search, "%s category%d featured marvel %s", title, i % 10, url);
        char category[32];
        snprintf(category, sizeof category, "category%d", i % 10);
        const char *values[11] = {db->account, "movie", item, title, url, category, NULL,
                                  when, when, NULL, search};
        PGresult *result = PQexecPrepared(db->conn, "insert", 11, values, NULL, NULL, 0);
        if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1) {
            PQclear(result);
            PQclear(PQexec(db->conn, "ROLLBACK"));
            return -1;
        }
        char id[32];
        snprintf(id, sizeof id, "%s", PQgetvalue(result, 0, 0));
        PQclear(result);
        const char *tags[2] = {"featured", "marvel"};
        for (int t = 0; t < 2; t++) {
            const char *tagValues[3] = {db->account, id, tags[t]};
            if (!ok(PQexecPrepared(db->conn, "tag", 3, tagValues, NULL, NULL, 0))) {
                PQclear(PQexec(db->conn, "ROLLBACK"));
                return -1;
            }
        }
    }
    return ok(PQexecPrepared(db->conn, "commit", 0, NULL, NULL, NULL, 0)) ? 0 : -1;
}

int raw_pg_exec(raw_pg *db, const char *sql) { return ok(PQexec(db->conn, sql)); }
