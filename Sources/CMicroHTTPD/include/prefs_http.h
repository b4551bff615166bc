// The part of GNU libmicrohttpd that prefs-server uses, with the C-only parts (variadic
// start, per-connection state, body accumulation) done here: Swift sees one call per
// complete request, with its method, path, headers and body.
#ifndef PREFS_HTTP_H
#define PREFS_HTTP_H

#include <stddef.h>
#include <stdint.h>


/// A running server: libmicrohttpd's daemon and what its callbacks share.
typedef struct prefs_http_server prefs_http_server;
struct MHD_Connection;

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
    /// What the handler noted at the headers (prefs_http_note), in the whole request; or
    /// NULL.
    const char *note;
    /// The request's own state (for prefs_http_note).
    void *state;
} prefs_http_request;

/// Keeps a copy of `text` with the request, handed back in its whole request's `note`:
/// what the handler found out from the headers alone (the account a token opens).
void prefs_http_note(const prefs_http_request *request, const char *text);

/// Called on the connection's thread: once with the headers alone (`headers_only`) when a
/// body is announced, before any of it is read, and once with the whole request. It returns
/// 1 when it answered (prefs_http_respond): after the headers, the body is then never read
/// (nor `100 Continue` sent); 0 to read it. The whole request must be answered.
typedef int (*prefs_http_handler)(void *context, const prefs_http_request *request);

/// Starts a server on address:port (IPv4 or IPv6 text), one thread per connection, at most
/// `connection_limit` connections, each closed after `timeout_seconds` without traffic, and
/// each whose request's headers are not all in `header_seconds` after the request began
/// (the connection opened, or its previous request ended). Bodies over `max_body` bytes are
/// refused (413) before they are read when their length is announced, and not kept
/// otherwise. NULL when it cannot start (errno set).
prefs_http_server *prefs_http_start(
    const char *address, uint16_t port, unsigned int connection_limit,
    unsigned int timeout_seconds, unsigned int header_seconds, size_t max_body,
    size_t header_memory, prefs_http_handler handler, void *context);

/// The port the server listens on (after port 0: the one the system gave).
uint16_t prefs_http_port(prefs_http_server *server);

/// A request header's value, or NULL.
const char *prefs_http_header(struct MHD_Connection *connection, const char *name);

/// A query argument's value, or NULL.
const char *prefs_http_query(struct MHD_Connection *connection, const char *key);

struct MHD_Response;

/// An answer with a copy of `body`, and the headers every answer has (Content-Type,
/// Cache-Control: no-store); NULL when there is no memory for it.
struct MHD_Response *prefs_http_response(
    const char *content_type, const void *body, size_t length);

/// Adds a header to the answer. 1 on success.
int prefs_http_response_header(
    struct MHD_Response *response, const char *name, const char *value);

/// Queues the answer on the connection and lets go of it. 1 on success.
int prefs_http_respond(
    struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response);

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

/// Closes every connection and stops.
void prefs_http_stop(prefs_http_server *server);

#endif
