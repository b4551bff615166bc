// libpq, loaded when the first PostgreSQL connection string is opened rather than when the
// program starts: a program that only ever opens SQLite files does not map libpq and the
// dozen libraries it brings (Kerberos, LDAP, GnuTLS...), and does not need them installed.
//
// Declared here from libpq's documented, stable interface (libpq.so.5), not from its
// header, so that building needs no libpq-dev. Each function PostgresCore calls is a
// `static inline` with libpq's own name that calls through the loaded table; call
// `prefs_libpq_load` first (PGConnection and ConnectionString do).
#ifndef PREFS_LIBPQ_LOADER_H
#define PREFS_LIBPQ_LOADER_H

#include <stddef.h>
#include <stdio.h>

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
typedef unsigned int Oid;

typedef enum { CONNECTION_OK, CONNECTION_BAD } ConnStatusType;

typedef enum {
    PGRES_EMPTY_QUERY = 0,
    PGRES_COMMAND_OK,
    PGRES_TUPLES_OK,
    PGRES_COPY_OUT,
    PGRES_COPY_IN,
    PGRES_BAD_RESPONSE,
    PGRES_NONFATAL_ERROR,
    PGRES_FATAL_ERROR,
    PGRES_COPY_BOTH,
    PGRES_SINGLE_TUPLE,
    PGRES_PIPELINE_SYNC,
    PGRES_PIPELINE_ABORTED
} ExecStatusType;

typedef enum {
    PQTRANS_IDLE,
    PQTRANS_ACTIVE,
    PQTRANS_INTRANS,
    PQTRANS_INERROR,
    PQTRANS_UNKNOWN
} PGTransactionStatusType;

typedef struct pgNotify {
    char *relname;
    int be_pid;
    char *extra;
    struct pgNotify *next;  // libpq's own
} PGnotify;

typedef struct {
    char *keyword;
    char *envvar;
    char *compiled;
    char *val;
    char *label;
    char *dispchar;  // "*" for a secret
    int dispsize;
} PQconninfoOption;

typedef void (*PQnoticeProcessor)(void *arg, const char *message);

// Every function used, once: (return type, name, parameters, arguments).
#define PREFS_LIBPQ_FUNCTIONS(X)                                                           \
    X(PGconn *, PQconnectdb, (const char *conninfo), (conninfo))                           \
    X(void, PQfinish, (PGconn * conn), (conn))                                             \
    X(void, PQreset, (PGconn * conn), (conn))                                              \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                              \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))          \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn))                                \
    X(char *, PQuser, (const PGconn *conn), (conn))                                        \
    X(int, PQsocket, (const PGconn *conn), (conn))                                         \
    X(int, PQbackendPID, (const PGconn *conn), (conn))                                     \
    X(PQnoticeProcessor, PQsetNoticeProcessor,                                             \
      (PGconn * conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))               \
    X(PGresult *, PQexec, (PGconn * conn, const char *query), (conn, query))               \
    X(PGresult *, PQexecParams,                                                            \
      (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,             \
       const char *const *paramValues, const int *paramLengths, const int *paramFormats,   \
       int resultFormat),                                                                  \
      (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,        \
       resultFormat))                                                                      \
    X(PGresult *, PQprepare,                                                               \
      (PGconn * conn, const char *stmtName, const char *query, int nParams,                \
       const Oid *paramTypes),                                                             \
      (conn, stmtName, query, nParams, paramTypes))                                        \
    X(PGresult *, PQexecPrepared,                                                          \
      (PGconn * conn, const char *stmtName, int nParams, const char *const *paramValues,   \
       const int *paramLengths, const int *paramFormats, int resultFormat),                \
      (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))    \
    X(int, PQsendQueryParams,                                                              \
      (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,             \
       const char *const *paramValues, const int *paramLengths, const int *paramFormats,   \
       int resultFormat),                                                                  \
      (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,        \
       resultFormat))                                                                      \
    X(int, PQsendQueryPrepared,                                                            \
      (PGconn * conn, const char *stmtName, int nParams, const char *const *paramValues,   \
       const int *paramLengths, const int *paramFormats, int resultFormat),                \
      (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))    \
    X(int, PQenterPipelineMode, (PGconn * conn), (conn))                                   \
    X(int, PQexitPipelineMode, (PGconn * conn), (conn))                                    \
    X(int, PQpipelineSync, (PGconn * conn), (conn))                                        \
    X(PGresult *, PQgetResult, (PGconn * conn), (conn))                                    \
    X(int, PQconsumeInput, (PGconn * conn), (conn))                                        \
    X(PGnotify *, PQnotifies, (PGconn * conn), (conn))                                     \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                        \
    X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))  \
    X(int, PQntuples, (const PGresult *res), (res))                                        \
    X(int, PQnfields, (const PGresult *res), (res))                                        \
    X(char *, PQcmdTuples, (PGresult * res), (res))                                        \
    X(char *, PQgetvalue, (const PGresult *res, int row, int column), (res, row, column))  \
    X(int, PQgetisnull, (const PGresult *res, int row, int column), (res, row, column))    \
    X(void, PQclear, (PGresult * res), (res))                                              \
    X(void, PQfreemem, (void *pointer), (pointer))                                         \
    X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg),          \
      (conninfo, errmsg))                                                                  \
    X(void, PQconninfoFree, (PQconninfoOption * options), (options))                       \
    X(void, PQtrace, (PGconn * conn, FILE *stream), (conn, stream))                        \
    X(void, PQuntrace, (PGconn * conn), (conn))                                            \
    X(void, PQsetTraceFlags, (PGconn * conn, int flags), (conn, flags))

#define PREFS_LIBPQ_POINTER(type, name, parameters, arguments) type(*name) parameters;
struct prefs_libpq_table {
    PREFS_LIBPQ_FUNCTIONS(PREFS_LIBPQ_POINTER)
};
#undef PREFS_LIBPQ_POINTER

extern struct prefs_libpq_table prefs_libpq;

// Loads libpq once per process (thread-safe); later calls return the first call's answer.
// Tries $PREFS_LIBPQ when set (a path; nothing else is tried then), else the platform's
// names for libpq.so.5. Returns 1 when every function was found; else 0, with the reason
// (the loader's message, naming the file or the missing function) in `reason`.
int prefs_libpq_load(char *reason, size_t size);

// 1 when this build can load libpq at all; 0 in the fully static build, compiled with
// PREFS_NO_LIBPQ, which never tries.
int prefs_libpq_is_built_in(void);

#define PREFS_LIBPQ_CALL(type, name, parameters, arguments)                                \
    static inline type name parameters { return prefs_libpq.name arguments; }
PREFS_LIBPQ_FUNCTIONS(PREFS_LIBPQ_CALL)
#undef PREFS_LIBPQ_CALL

#endif
