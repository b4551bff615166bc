// The part of GNU libmicrohttpd that prefs-server uses, with the C-only parts (variadic
// start, per-connection state, body accumulation, suspending a connection while its answer
// is made) done here: Swift sees one call per complete request, with its method, path,
// headers and body, and answers it from any thread.
#ifndef PREFS_HTTP_H
#define PREFS_HTTP_H

#include <stddef.h>
#include <stdint.h>


/// A running server: libmicrohttpd's daemon and what its callbacks share.
typedef struct prefs_http_server prefs_http_server;
struct MHD_Connection;
struct MHD_Response;

/// A question to the handler: answered once, with prefs_http_answer.
typedef struct prefs_http_ticket prefs_http_ticket;

/// One request: complete, or (`headers_only`) its headers before its body is read.
/// `body_too_large`: the body passed the limit and was not kept. `largest_header`: the
/// longest header line's length (name and value).
typedef struct prefs_http_request {
    struct MHD_Connection *connection;
    const char *method;
    const char *url;
    const unsigned char *body;
    size_t body_length;
    int body_too_large;
    size_t largest_header;
    const char *peer;
    int headers_only;
    /// The body's length is told twice (two Content-Length headers, or one beside
    /// Transfer-Encoding): answered 400 at the headers, and the connection closed, so that
    /// no byte after it is read as another request (RFC 9112, 6.3).
    int badly_framed;
    /// What the handler noted when it let the headers through (prefs_http_answer), in the
    /// whole request; or NULL.
    const char *note;
    /// The request's own state.
    void *state;
    /// The question this call asks; the handler answers it, once.
    prefs_http_ticket *ticket;
} prefs_http_request;

/// Called on one of the server's few polling threads, with the connection suspended: once
/// with the headers alone (`headers_only`) when a body is announced, before any of it is
/// read, and once with the whole request. It copies what it needs of the request (which
/// lives only for the call), returns at once, and answers later from any thread with
/// prefs_http_answer: after the headers, with a response (the body is then never read, nor
/// `100 Continue` sent) or with none, to read it; the whole request, with a response.
typedef void (*prefs_http_handler)(void *context, const prefs_http_request *request);

/// Answers a ticket and resumes its connection: `response` (taken over, its status
/// `status`), or NULL after the headers alone to read the body, keeping `note` (may be
/// NULL) for the whole request's `note`. An answer to a request that went away (the server
/// stopped, the client left) is dropped.
void prefs_http_answer(
    prefs_http_ticket *ticket, unsigned int status, struct MHD_Response *response,
    const char *note);

/// A request's headers (`headers` 1) or query arguments (0): up to `capacity` pairs of key
/// and value (the value may be NULL) into `pairs` (2 x capacity pointers, valid for the
/// handler's call); returns how many there are.
size_t prefs_http_values(
    struct MHD_Connection *connection, int headers, const char **pairs, size_t capacity);

/// Starts a server on address:port (IPv4 or IPv6 text), `io_threads` threads polling the
/// sockets, at most
/// `connection_limit` connections, each closed after `timeout_seconds` without traffic, and
/// each whose request's headers are not all in `header_seconds` after the request began
/// (the connection opened, or its previous request ended). Bodies over `max_body` bytes are
/// refused (413) before they are read when their length is announced, and not kept
/// otherwise. NULL when it cannot start (errno set).
prefs_http_server *prefs_http_start(
    const char *address, uint16_t port, unsigned int connection_limit,
    unsigned int timeout_seconds, unsigned int header_seconds, size_t max_body,
    size_t header_memory, unsigned int io_threads, prefs_http_handler handler,
    void *context);

/// The port the server listens on (after port 0: the one the system gave).
uint16_t prefs_http_port(prefs_http_server *server);

/// A request header's value, or NULL.
const char *prefs_http_header(struct MHD_Connection *connection, const char *name);

/// A query argument's value, or NULL.
const char *prefs_http_query(struct MHD_Connection *connection, const char *key);

/// An answer with a copy of `body`, and the headers every answer has (Content-Type,
/// Cache-Control: no-store); NULL when there is no memory for it.
struct MHD_Response *prefs_http_response(
    const char *content_type, const void *body, size_t length);

/// Adds a header to the answer. 1 on success.
int prefs_http_response_header(
    struct MHD_Response *response, const char *name, const char *value);

/// Inflates a gzip body into a new buffer (freed with prefs_http_free), refusing to make
/// more than `max` bytes (a small body that inflates to gigabytes is refused, not made).
/// 0: done; 1: larger than `max`; 2: not gzip, or cut short.
int prefs_http_gunzip(
    const unsigned char *input, size_t length, size_t max, unsigned char **output,
    size_t *output_length);

/// Compresses a body with gzip into a new buffer (freed with prefs_http_free). 0: done.
int prefs_http_gzip(
    const unsigned char *input, size_t length, unsigned char **output, size_t *output_length);

void prefs_http_free(void *buffer);

/// Stops accepting connections; those open go on.
void prefs_http_quiesce(prefs_http_server *server);

/// How many connections are open.
unsigned int prefs_http_connections(prefs_http_server *server);

/// How many connections are suspended, waiting for the handler's answer.
unsigned int prefs_http_suspended(prefs_http_server *server);

/// Closes every connection and stops.
void prefs_http_stop(prefs_http_server *server);

#endif
