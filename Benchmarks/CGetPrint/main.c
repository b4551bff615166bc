// The whole-process baseline for `prefs get KEY`: open the database, read one value,
// print it, exit. Usage: prefs-cget DB KEY
#include <sqlite3.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: prefs-cget DB KEY\n");
        return 64;
    }
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return 66;
    sqlite3_stmt *statement;
    int status = 1;
    if (sqlite3_prepare_v2(db, "SELECT value FROM preference WHERE suite = 'standard' AND key = ?",
                           -1, &statement, NULL) == SQLITE_OK) {
        sqlite3_bind_text(statement, 1, argv[2], -1, SQLITE_STATIC);
        if (sqlite3_step(statement) == SQLITE_ROW) {
            puts((const char *)sqlite3_column_text(statement, 0));
            status = 0;
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return status;
}
