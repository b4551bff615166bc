// The whole-process baseline for `prefs set KEY INT`: open the database with the pragmas
// prefs sets on every connection, store one int with the upsert prefs runs (its history
// trigger fires as for prefs), in autocommit, exit. Usage: prefs-cset DB KEY INT
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: prefs-cset DB KEY INT\n");
        return 64;
    }
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) return 66;
    if (sqlite3_exec(db,
                     "PRAGMA busy_timeout = 5000; PRAGMA synchronous = FULL;"
                     " PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;"
                     " PRAGMA trusted_schema = OFF",
                     NULL, NULL, NULL) != SQLITE_OK) {
        return 70;
    }
    sqlite3_stmt *statement;
    int status = 70;
    if (sqlite3_prepare_v2(
            db,
            "INSERT INTO preference (suite, key, type, value, updated_at, value_version) "
            "VALUES ('standard', ?, 'int', ?, (julianday('now') - 2451910.5) * 86400, NULL) "
            "ON CONFLICT (suite, key) DO UPDATE SET type = excluded.type, value = excluded.value, "
            "updated_at = excluded.updated_at, value_version = excluded.value_version",
            -1, &statement, NULL) == SQLITE_OK) {
        sqlite3_bind_text(statement, 1, argv[2], -1, SQLITE_STATIC);
        sqlite3_bind_int64(statement, 2, strtoll(argv[3], NULL, 10));
        if (sqlite3_step(statement) == SQLITE_DONE) status = 0;
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return status;
}
