#define _GNU_SOURCE
#include "raw_sqlite.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct raw_db {
    sqlite3 *db;
    sqlite3_stmt *get;
    sqlite3_stmt *set;
    sqlite3_stmt *begin;
    sqlite3_stmt *commit;
    sqlite3_stmt *next_position;
    sqlite3_stmt *insert_bookmark;
    sqlite3_stmt *insert_tag;
    sqlite3_stmt *insert_search;
    sqlite3_stmt *list_category;
    sqlite3_stmt *search;
};

static const char *upsert_sql =
    "INSERT INTO preference (suite, key, type, value, updated_at, value_version) "
    "VALUES (?, ?, 'int', ?, ?, NULL) "
    "ON CONFLICT (suite, key) DO UPDATE SET type = excluded.type, value = excluded.value, "
    "updated_at = excluded.updated_at, value_version = excluded.value_version";

static const char *insert_bookmark_sql =
    "INSERT INTO bookmark (kind, item_id, title, url, category, note, position, created_at, updated_at) "
    "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)";

static const char *columns =
    "b.id, b.kind, b.item_id, b.title, b.url, b.category, b.note, b.position, "
    "b.created_at, b.updated_at, "
    "(SELECT group_concat(t.tag, char(31)) FROM bookmark_tag t WHERE t.bookmark_id = b.id), "
    "b.folder_id";

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **statement) {
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, statement, NULL);
}

raw_db *raw_open(const char *path, int synchronous) {
    raw_db *raw = calloc(1, sizeof(raw_db));
    if (!raw) return NULL;
    if (sqlite3_open_v2(path, &raw->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL)
        != SQLITE_OK) {
        raw_close(raw);
        return NULL;
    }
    // The connection options PrefsKit's Connection sets.
    sqlite3_db_config(raw->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
    sqlite3_db_config(raw->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(raw->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = %d; PRAGMA temp_store = MEMORY;"
             "PRAGMA journal_mode = WAL;", synchronous);
    char list_sql[1024];
    snprintf(list_sql, sizeof list_sql,
             "SELECT %s FROM bookmark b WHERE b.category = ? ORDER BY b.kind, b.position", columns);
    char search_sql[1024];
    snprintf(search_sql, sizeof search_sql,
             "SELECT %s FROM bookmark_search s JOIN bookmark b ON b.id = s.rowid "
             "WHERE bookmark_search MATCH ? ORDER BY s.rank, b.id LIMIT ?", columns);
    if (sqlite3_exec(raw->db, pragmas, NULL, NULL, NULL) != SQLITE_OK
        || prepare(raw->db, "SELECT type, value FROM preference WHERE suite = ? AND key = ?", &raw->get)
        || prepare(raw->db, upsert_sql, &raw->set)
        || prepare(raw->db, "BEGIN IMMEDIATE", &raw->begin)
        || prepare(raw->db, "COMMIT", &raw->commit)
        || prepare(raw->db, "SELECT coalesce(max(position) + 1, 0) FROM bookmark WHERE kind = ?", &raw->next_position)
        || prepare(raw->db, insert_bookmark_sql, &raw->insert_bookmark)
        || prepare(raw->db, "INSERT OR IGNORE INTO bookmark_tag (bookmark_id, tag) VALUES (?, ?)", &raw->insert_tag)
        || prepare(raw->db,
                   "INSERT INTO bookmark_search (rowid, title, category, tags, note, url) VALUES (?, ?, ?, ?, NULL, ?)",
                   &raw->insert_search)
        || prepare(raw->db, list_sql, &raw->list_category)
        || prepare(raw->db, search_sql, &raw->search)) {
        raw_close(raw);
        return NULL;
    }
    return raw;
}

void raw_close(raw_db *raw) {
    if (!raw) return;
    sqlite3_stmt *statements[] = {raw->get, raw->set, raw->begin, raw->commit, raw->next_position,
                                  raw->insert_bookmark, raw->insert_tag, raw->insert_search,
                                  raw->list_category, raw->search};
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) sqlite3_finalize(statements[i]);
    sqlite3_close_v2(raw->db);
    free(raw);
}

static int run(sqlite3_stmt *statement) {
    int code = sqlite3_step(statement);
    sqlite3_reset(statement);
    return code == SQLITE_DONE || code == SQLITE_ROW ? SQLITE_OK : code;
}

int raw_pragma(raw_db *raw, const char *name, char *out, int size) {
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    sqlite3_stmt *s = NULL;
    if (size < 1 || sqlite3_prepare_v2(raw->db, sql, -1, &s, NULL) != SQLITE_OK) return 1;
    out[0] = 0;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0)) {
        snprintf(out, (size_t)size, "%s", (const char *)sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    return 0;
}

int raw_get_int(raw_db *raw, const char *suite, const char *key, int64_t *value) {
    sqlite3_stmt *s = raw->get;
    sqlite3_bind_text(s, 1, suite, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    int found = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *type = sqlite3_column_text(s, 0);
        if (type && strcmp((const char *)type, "int") == 0) {
            *value = sqlite3_column_int64(s, 1);
            found = 1;
        }
    }
    sqlite3_reset(s);
    return found;
}

static int upsert(raw_db *raw, const char *suite, const char *key, int64_t value, double now) {
    sqlite3_stmt *s = raw->set;
    sqlite3_bind_text(s, 1, suite, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 3, value);
    sqlite3_bind_double(s, 4, now);
    return run(s);
}

int raw_set_int(raw_db *raw, const char *suite, const char *key, int64_t value, double now) {
    int code = run(raw->begin);
    if (code != SQLITE_OK) return code;
    code = upsert(raw, suite, key, value, now);
    if (code != SQLITE_OK) {
        sqlite3_exec(raw->db, "ROLLBACK", NULL, NULL, NULL);
        return code;
    }
    return run(raw->commit);
}

int raw_set_batch(raw_db *raw, const char *suite, int count, int64_t base, double now) {
    int code = run(raw->begin);
    if (code != SQLITE_OK) return code;
    char key[32];
    for (int i = 0; i < count; i++) {
        snprintf(key, sizeof key, "key%d", i);
        code = upsert(raw, suite, key, base + i, now);
        if (code != SQLITE_OK) {
            sqlite3_exec(raw->db, "ROLLBACK", NULL, NULL, NULL);
            return code;
        }
    }
    return run(raw->commit);
}

int raw_insert_bookmark_rows(raw_db *raw, int count, const char *const *items, const char *const *titles,
                             const char *const *urls, const char *const *categories, double now) {
    sqlite3_int64 *ids = malloc((size_t)(count > 0 ? count : 1) * sizeof(sqlite3_int64));
    if (!ids) return SQLITE_NOMEM;
    int code = run(raw->begin);
    if (code != SQLITE_OK) {
        free(ids);
        return code;
    }
    for (int i = 0; i < count && code == SQLITE_OK; i++) {
        sqlite3_stmt *next = raw->next_position;
        sqlite3_bind_text(next, 1, "movie", -1, SQLITE_STATIC);
        sqlite3_step(next);
        int64_t position = sqlite3_column_int64(next, 0);
        sqlite3_reset(next);
        sqlite3_stmt *s = raw->insert_bookmark;
        sqlite3_bind_text(s, 1, "movie", -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, items[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 3, titles[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 4, urls[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 5, categories[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 6, position);
        sqlite3_bind_double(s, 7, now);
        sqlite3_bind_double(s, 8, now);
        code = run(s);
        sqlite3_int64 id = sqlite3_last_insert_rowid(raw->db);
        ids[i] = id;
        const char *tags[] = {"featured", "watchlist"};
        for (int t = 0; t < 2 && code == SQLITE_OK; t++) {
            sqlite3_bind_int64(raw->insert_tag, 1, id);
            sqlite3_bind_text(raw->insert_tag, 2, tags[t], -1, SQLITE_STATIC);
            code = run(raw->insert_tag);
        }
    }
    // The search rows after the others, as PrefsKit writes a bulk insert's: FTS5 writes its
    // pending rows out at every statement savepoint (each insert into the triggered tables
    // opens one), so rows written between those inserts cost a segment each.
    for (int i = 0; i < count && code == SQLITE_OK; i++) {
        sqlite3_stmt *f = raw->insert_search;
        sqlite3_bind_int64(f, 1, ids[i]);
        sqlite3_bind_text(f, 2, titles[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(f, 3, categories[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(f, 4, "featured watchlist", -1, SQLITE_STATIC);
        sqlite3_bind_text(f, 5, urls[i], -1, SQLITE_STATIC);
        code = run(f);
    }
    free(ids);
    if (code != SQLITE_OK) {
        sqlite3_exec(raw->db, "ROLLBACK", NULL, NULL, NULL);
        return code;
    }
    return run(raw->commit);
}

int raw_insert_bookmarks(raw_db *raw, const char *prefix, int count, int categories, double now) {
    char **strings = calloc((size_t)count * 4, sizeof(char *));
    if (!strings) return SQLITE_NOMEM;
    char **items = strings, **titles = strings + count, **urls = strings + 2 * count,
         **category_names = strings + 3 * count;
    int code = SQLITE_OK;
    for (int i = 0; i < count && code == SQLITE_OK; i++) {
        if (asprintf(&items[i], "%s%d", prefix, i) < 0 || asprintf(&titles[i], "Movie %s%d", prefix, i) < 0
            || asprintf(&urls[i], "https://example.com/%s%d", prefix, i) < 0
            || asprintf(&category_names[i], "category%d", i % categories) < 0) {
            code = SQLITE_NOMEM;
        }
    }
    if (code == SQLITE_OK) {
        code = raw_insert_bookmark_rows(raw, count, (const char *const *)items, (const char *const *)titles,
                                        (const char *const *)urls, (const char *const *)category_names, now);
    }
    for (int i = 0; i < count * 4; i++) free(strings[i]);
    free(strings);
    return code;
}

static int read_rows(sqlite3_stmt *s) {
    int rows = 0;
    int code;
    while ((code = sqlite3_step(s)) == SQLITE_ROW) {
        // Touch every column as the Swift side decodes them.
        volatile int64_t sink = sqlite3_column_int64(s, 0) + sqlite3_column_int64(s, 7);
        (void)sink;
        for (int c = 1; c <= 6; c++) (void)sqlite3_column_text(s, c);
        (void)sqlite3_column_double(s, 8);
        (void)sqlite3_column_double(s, 9);
        (void)sqlite3_column_text(s, 10);
        // The folder id, read when not NULL.
        if (sqlite3_column_type(s, 11) != SQLITE_NULL) sink = sqlite3_column_int64(s, 11);
        rows++;
    }
    sqlite3_reset(s);
    return code == SQLITE_DONE ? rows : -1;
}

int raw_list_category(raw_db *raw, const char *category) {
    sqlite3_bind_text(raw->list_category, 1, category, -1, SQLITE_STATIC);
    return read_rows(raw->list_category);
}

int raw_search(raw_db *raw, const char *query, int limit) {
    sqlite3_bind_text(raw->search, 1, query, -1, SQLITE_STATIC);
    sqlite3_bind_int(raw->search, 2, limit);
    return read_rows(raw->search);
}

int raw_prepare_hot(raw_db *raw, int statement) {
    sqlite3_stmt *s = NULL;
    int code = sqlite3_prepare_v3(raw->db, statement == 0 ? upsert_sql : insert_bookmark_sql, -1, 0, &s, NULL);
    sqlite3_finalize(s);
    return code;
}

int raw_exec(raw_db *raw, const char *sql) {
    return sqlite3_exec(raw->db, sql, NULL, NULL, NULL);
}
