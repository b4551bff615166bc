#include "prefs_http.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/// A connection the header deadline watches: when its request began (the connection's
/// start, or the end of its previous request), and whether its headers are all in.
typedef struct watched_connection {
    int fd;
    long long since;
    int has_headers;
    int cut;
    struct watched_connection *previous;
    struct watched_connection *next;
} watched_connection;

typedef struct server_state {
    prefs_http_handler handler;
    void *context;
    size_t max_body;
    unsigned int header_seconds;
    /// The open connections, for the deadline's watchdog; `lock` guards the list and each
    /// entry, so that a socket is never shut down after libmicrohttpd let go of it (its
    /// closing notice removes the entry under the lock, before the socket is closed).
    pthread_mutex_t lock;
    watched_connection *connections;
    pthread_t watchdog;
    int has_watchdog;
    int stopping;
    /// Set when the server stops (under ticket_lock): nothing more is suspended.
    int closing;
    /// The tickets of the suspended connections (under ticket_lock), and how many.
    struct prefs_http_ticket *suspended;
    unsigned int suspended_count;
} server_state;

struct prefs_http_server {
    struct MHD_Daemon *daemon;
    server_state *state;
};

static long long monotonic_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// A connection's entry, from its socket context.
static watched_connection *watched(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// Marks whether a connection's request has all its headers; without them, the request's
/// time starts now.
static void mark_headers(server_state *server, struct MHD_Connection *connection, int in) {
    watched_connection *entry = watched(connection);
    if (!entry) return;
    pthread_mutex_lock(&server->lock);
    entry->has_headers = in;
    if (!in) entry->since = monotonic_milliseconds();
    pthread_mutex_unlock(&server->lock);
}

static void on_connection(
    void *cls, struct MHD_Connection *connection, void **socket_context,
    enum MHD_ConnectionNotificationCode code) {
    server_state *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        watched_connection *entry = calloc(1, sizeof(watched_connection));
        if (!entry || !info) {
            free(entry);
            return;
        }
        entry->fd = info->connect_fd;
        entry->since = monotonic_milliseconds();
        pthread_mutex_lock(&server->lock);
        entry->next = server->connections;
        if (server->connections) server->connections->previous = entry;
        server->connections = entry;
        pthread_mutex_unlock(&server->lock);
        *socket_context = entry;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        watched_connection *entry = *socket_context;
        if (!entry) return;
        pthread_mutex_lock(&server->lock);
        if (entry->previous) entry->previous->next = entry->next;
        else server->connections = entry->next;
        if (entry->next) entry->next->previous = entry->previous;
        pthread_mutex_unlock(&server->lock);
        free(entry);
        *socket_context = NULL;
    }
}

/// The header deadline: a request whose headers are not all in within `header_seconds` of
/// its start has its connection shut down, however slowly its bytes keep coming (the idle
/// timeout alone is reset by every byte). A request being answered, a long poll or a body
/// on its way, is not touched.
static void *watch_headers(void *cls) {
    server_state *server = cls;
    for (;;) {
        usleep(250000);
        pthread_mutex_lock(&server->lock);
        if (server->stopping) {
            pthread_mutex_unlock(&server->lock);
            return NULL;
        }
        long long now = monotonic_milliseconds();
        for (watched_connection *entry = server->connections; entry; entry = entry->next) {
            if (!entry->has_headers && !entry->cut
                && now - entry->since >= (long long)server->header_seconds * 1000) {
                shutdown(entry->fd, SHUT_RDWR);
                entry->cut = 1;
            }
        }
        pthread_mutex_unlock(&server->lock);
    }
}

/// What one request gathered so far.
typedef struct request_state {
    unsigned char *body;
    size_t length;
    size_t capacity;
    int too_large;
    int answered;
    char *note;
    /// The question the handler has while the connection is suspended, or NULL.
    struct prefs_http_ticket *asked;
    /// Whether the question asked was about the headers alone.
    int asked_headers;
} request_state;

/// One question to the handler, while its connection is suspended: the handler answers it
/// once, from any thread (prefs_http_answer), and the connection's own thread takes the
/// answer when it resumes. Each side holds a reference; `ticket_lock` guards every field of
/// every ticket, and is never held while libmicrohttpd holds a lock of its own (it is
/// taken only in the access handler, the completion notice and the calls below).
struct prefs_http_ticket {
    int references;
    /// The answer is in: a response (`response`, `status`), or none (`proceed`: read the
    /// body) after the headers alone.
    int ready;
    int proceed;
    unsigned int status;
    struct MHD_Response *response;
    char *note;
    /// The request went away (the server stopped, or the connection closed): an answer is
    /// dropped.
    int abandoned;
    struct MHD_Connection *connection;
    struct server_state *server;
    struct prefs_http_ticket *previous;
    struct prefs_http_ticket *next;
};

static pthread_mutex_t ticket_lock = PTHREAD_MUTEX_INITIALIZER;

/// Lets go of one reference (under ticket_lock); the last frees the ticket.
static void release_ticket(prefs_http_ticket *ticket) {
    if (--ticket->references > 0) return;
    if (ticket->response) MHD_destroy_response(ticket->response);
    free(ticket->note);
    free(ticket);
}

/// Takes a ticket off its server's list of suspended connections (under ticket_lock).
static void unlink_ticket(prefs_http_ticket *ticket) {
    server_state *server = ticket->server;
    if (!server) return;
    if (ticket->previous) ticket->previous->next = ticket->next;
    else server->suspended = ticket->next;
    if (ticket->next) ticket->next->previous = ticket->previous;
    ticket->previous = ticket->next = NULL;
    ticket->server = NULL;
    server->suspended_count -= 1;
}

void prefs_http_answer(
    prefs_http_ticket *ticket, unsigned int status, struct MHD_Response *response,
    const char *note) {
    pthread_mutex_lock(&ticket_lock);
    if (ticket->abandoned || ticket->ready) {
        if (response) MHD_destroy_response(response);
        release_ticket(ticket);
        pthread_mutex_unlock(&ticket_lock);
        return;
    }
    ticket->ready = 1;
    ticket->proceed = response == NULL;
    ticket->status = status;
    ticket->response = response;
    ticket->note = note ? strdup(note) : NULL;
    unlink_ticket(ticket);
    // Resumed under the lock: the server cannot be stopped between the two.
    MHD_resume_connection(ticket->connection);
    release_ticket(ticket);
    pthread_mutex_unlock(&ticket_lock);
}

static enum MHD_Result measure_header(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    size_t *largest = cls;
    size_t length = (key ? strlen(key) : 0) + (value ? strlen(value) : 0);
    if (length > *largest) *largest = length;
    return MHD_YES;
}

static enum MHD_Result count_lengths(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    (void)value;
    int *count = cls;
    if (key && strcasecmp(key, "Content-Length") == 0) *count += 1;
    return MHD_YES;
}

static void peer_text(struct MHD_Connection *connection, char *text, size_t size) {
    text[0] = 0;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size);
    }
}

/// The request as the handler sees it: what the connection knows of it so far. `peer` is
/// the caller's buffer for the client's address.
static void describe(prefs_http_request *request, struct MHD_Connection *connection,
    const char *method, const char *url, request_state *state, char *peer, size_t peer_size) {
    memset(request, 0, sizeof *request);
    peer_text(connection, peer, peer_size);
    request->connection = connection;
    request->method = method;
    request->url = url;
    request->peer = peer;
    request->state = state;
    MHD_get_connection_values(connection, MHD_HEADER_KIND, measure_header,
        &request->largest_header);
}

/// An answer made here, not by the handler: a JSON error of the protocol's form.
static enum MHD_Result answer_here(
    struct MHD_Connection *connection, unsigned int status, const char *body) {
    struct MHD_Response *response = prefs_http_response("application/json", body, strlen(body));
    if (!response) return MHD_NO;
    if (status == 503) MHD_add_response_header(response, "Retry-After", "1");
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

static const char *stopping_body =
    "{\"error\":\"busy\",\"message\":\"the server is stopping; ask another\"}";

/// Suspends the connection and hands the request to the handler, which answers it from any
/// thread (prefs_http_answer): no thread of the server waits while the handler works or a
/// long poll waits. 0 when it cannot (no memory, or the server is stopping): the caller
/// answers instead.
static int ask(server_state *server, struct MHD_Connection *connection, request_state *state,
    prefs_http_request *request, int headers) {
    prefs_http_ticket *ticket = calloc(1, sizeof *ticket);
    if (!ticket) return 0;
    ticket->references = 2;
    ticket->connection = connection;
    pthread_mutex_lock(&ticket_lock);
    if (server->closing) {
        pthread_mutex_unlock(&ticket_lock);
        free(ticket);
        return 0;
    }
    ticket->server = server;
    ticket->next = server->suspended;
    if (server->suspended) server->suspended->previous = ticket;
    server->suspended = ticket;
    server->suspended_count += 1;
    // Suspended under the lock: a stop resumes every suspended connection it lists.
    MHD_suspend_connection(connection);
    pthread_mutex_unlock(&ticket_lock);
    state->asked = ticket;
    state->asked_headers = headers;
    request->ticket = ticket;
    server->handler(server->context, request);
    return 1;
}

/// The handler's answer to the question asked before the connection was suspended, taken
/// when it resumes: 1 when the body is to be read (`*proceed`), else the answer is queued.
static enum MHD_Result take_answer(
    struct MHD_Connection *connection, request_state *state, int *proceed) {
    prefs_http_ticket *ticket = state->asked;
    *proceed = 0;
    pthread_mutex_lock(&ticket_lock);
    if (!ticket->ready && !ticket->abandoned) {
        pthread_mutex_unlock(&ticket_lock);
        return MHD_YES;
    }
    int abandoned = ticket->abandoned;
    int go_on = ticket->proceed && state->asked_headers;
    struct MHD_Response *response = ticket->response;
    unsigned int status = ticket->status;
    ticket->response = NULL;
    if (ticket->note) {
        free(state->note);
        state->note = ticket->note;
        ticket->note = NULL;
    }
    state->asked = NULL;
    release_ticket(ticket);
    pthread_mutex_unlock(&ticket_lock);
    if (abandoned || (!go_on && !response)) {
        if (response) MHD_destroy_response(response);
        state->answered = 1;
        return answer_here(connection, abandoned ? 503 : 500,
            abandoned ? stopping_body
                      : "{\"error\":\"internal\",\"message\":\"no answer was made\"}");
    }
    if (go_on) {
        *proceed = 1;
        return MHD_YES;
    }
    state->answered = 1;
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

static enum MHD_Result on_request(
    void *cls, struct MHD_Connection *connection, const char *url, const char *method,
    const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)version;
    server_state *server = cls;
    request_state *state = *con_cls;
    if (state && state->asked) {
        int proceed = 0;
        enum MHD_Result taken = take_answer(connection, state, &proceed);
        // Let through at the headers: the body comes in the calls that follow.
        if (!proceed || *upload_data_size == 0) return taken;
    } else if (!state) {
        state = calloc(1, sizeof(request_state));
        if (!state) return MHD_NO;
        *con_cls = state;
        mark_headers(server, connection, 1);
        // A length told twice is answered now, and the connection closed.
        int lengths = 0;
        MHD_get_connection_values(connection, MHD_HEADER_KIND, count_lengths, &lengths);
        if (lengths > 1
            || (lengths == 1
                && MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Transfer-Encoding"))) {
            prefs_http_request early;
            char peer[INET6_ADDRSTRLEN + 1];
            describe(&early, connection, method, url, state, peer, sizeof peer);
            early.headers_only = 1;
            early.badly_framed = 1;
            state->answered = 1;
            if (ask(server, connection, state, &early, 1)) return MHD_YES;
            return answer_here(connection, 503, stopping_body);
        }
        // An announced length over the limit is refused before the body is read.
        const char *announced =
            MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        int has_body = MHD_lookup_connection_value(
                           connection, MHD_HEADER_KIND, "Transfer-Encoding") != NULL;
        if (announced) {
            errno = 0;
            char *end = NULL;
            unsigned long long length = strtoull(announced, &end, 10);
            if (errno != 0 || end == announced || length > server->max_body) {
                state->too_large = 1;
            }
            if (length > 0) has_body = 1;
        }
        // A body is coming: the handler looks at the headers (the token) first, and may
        // answer before a byte of it is read. (One announced too large is answered below.)
        if (!state->too_large && has_body) {
            prefs_http_request early;
            char peer[INET6_ADDRSTRLEN + 1];
            describe(&early, connection, method, url, state, peer, sizeof peer);
            early.headers_only = 1;
            if (ask(server, connection, state, &early, 1)) return MHD_YES;
            state->answered = 1;
            return answer_here(connection, 503, stopping_body);
        }
        if (!state->too_large) return MHD_YES;
    }
    if (*upload_data_size > 0 && !state->answered) {
        size_t size = *upload_data_size;
        if (!state->too_large && state->length + size <= server->max_body) {
            if (state->length + size > state->capacity) {
                size_t capacity = state->capacity ? state->capacity : 4096;
                while (capacity < state->length + size) capacity *= 2;
                if (capacity > server->max_body) capacity = server->max_body;
                unsigned char *grown = realloc(state->body, capacity);
                if (!grown) return MHD_NO;
                state->body = grown;
                state->capacity = capacity;
            }
            memcpy(state->body + state->length, upload_data, size);
            state->length += size;
        } else {
            state->too_large = 1;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (state->answered) return MHD_YES;
    state->answered = 1;
    prefs_http_request request;
    char peer[INET6_ADDRSTRLEN + 1];
    describe(&request, connection, method, url, state, peer, sizeof peer);
    request.body = state->body;
    request.body_length = state->length;
    request.body_too_large = state->too_large;
    request.note = state->note;
    if (ask(server, connection, state, &request, 0)) return MHD_YES;
    return answer_here(connection, 503, stopping_body);
}

static void on_completed(
    void *cls, struct MHD_Connection *connection, void **con_cls,
    enum MHD_RequestTerminationCode code) {
    (void)code;
    // The next request on the connection has its own deadline, from now.
    mark_headers(cls, connection, 0);
    request_state *state = *con_cls;
    if (state) {
        if (state->asked) {
            // Gone before its answer was taken: the handler's answer is dropped.
            pthread_mutex_lock(&ticket_lock);
            state->asked->abandoned = 1;
            unlink_ticket(state->asked);
            release_ticket(state->asked);
            pthread_mutex_unlock(&ticket_lock);
        }
        free(state->body);
        free(state->note);
        free(state);
        *con_cls = NULL;
    }
}

/// libmicrohttpd's own messages, on standard error with the server's prefix, on one line;
/// but a client that went away mid-request, which is routine, not an error of the server.
static void log_message(void *cls, const char *format, va_list arguments) {
    (void)cls;
    char text[512];
    vsnprintf(text, sizeof text, format, arguments);
    if (strstr(text, "connection closure") || strstr(text, "closed by remote")) return;
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == '\r')) {
        text[--length] = 0;
    }
    fprintf(stderr, "prefs-server: libmicrohttpd: %s\n", text);
}

static int hex_value(char digit) {
    if (digit >= '0' && digit <= '9') return digit - '0';
    if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
    if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
    return -1;
}

/// Decodes %XX in the path and the query, but %00, which is kept as it is written: a NUL
/// would cut the text short where C reads it, and the service refuses a path with '%'.
static size_t unescape(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    char *read = text;
    char *write = text;
    while (*read) {
        if (read[0] == '%' && read[1] && read[2]) {
            int high = hex_value(read[1]);
            int low = hex_value(read[2]);
            if (high >= 0 && low >= 0 && (high | low) != 0) {
                *write++ = (char)(high * 16 + low);
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = 0;
    return (size_t)(write - text);
}

prefs_http_server *prefs_http_start(
    const char *address, uint16_t port, unsigned int connection_limit,
    unsigned int timeout_seconds, unsigned int header_seconds, size_t max_body,
    size_t header_memory, unsigned int io_threads, prefs_http_handler handler,
    void *context) {
    prefs_http_server *made = calloc(1, sizeof(prefs_http_server));
    server_state *server = calloc(1, sizeof(server_state));
    if (!made || !server) {
        free(made);
        free(server);
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    server->max_body = max_body;
    server->header_seconds = header_seconds;
    pthread_mutex_init(&server->lock, NULL);
    struct sockaddr_storage storage;
    memset(&storage, 0, sizeof storage);
    // A few threads wait on the sockets (epoll where there is one: a socket numbered past
    // FD_SETSIZE is served, so --connection-limit means what it says); none of them waits
    // for the handler, which answers a suspended connection from threads of its own.
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO
        | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&storage;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&storage;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
    } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        free(server);
        free(made);
        errno = EINVAL;
        return NULL;
    }
    // The logger first: libmicrohttpd prints what comes before it its own way.
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, port, NULL, NULL, on_request, server,
        MHD_OPTION_EXTERNAL_LOGGER, log_message, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&storage,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_THREAD_POOL_SIZE, io_threads > 1 ? io_threads : 1,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, header_memory,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, server,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_END);
    if (!daemon) {
        free(server);
        free(made);
        return NULL;
    }
    made->daemon = daemon;
    made->state = server;
    server->has_watchdog = pthread_create(&server->watchdog, NULL, watch_headers, server) == 0;
    return made;
}

uint16_t prefs_http_port(prefs_http_server *server) {
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

const char *prefs_http_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

const char *prefs_http_query(struct MHD_Connection *connection, const char *key) {
    return MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, key);
}

struct MHD_Response *prefs_http_response(
    const char *content_type, const void *body, size_t length) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!response) return NULL;
    MHD_add_response_header(response, "Content-Type", content_type);
    MHD_add_response_header(response, "Cache-Control", "no-store");
    return response;
}

int prefs_http_response_header(
    struct MHD_Response *response, const char *name, const char *value) {
    return MHD_add_response_header(response, name, value) == MHD_YES;
}

/// Where prefs_http_values puts what it finds.
typedef struct value_list {
    const char **pairs;
    size_t capacity;
    size_t count;
} value_list;

static enum MHD_Result list_value(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    value_list *list = cls;
    if (!key) return MHD_YES;
    if (list->count < list->capacity) {
        list->pairs[2 * list->count] = key;
        list->pairs[2 * list->count + 1] = value;
    }
    list->count += 1;
    return MHD_YES;
}

size_t prefs_http_values(
    struct MHD_Connection *connection, int headers, const char **pairs, size_t capacity) {
    value_list list = {pairs, capacity, 0};
    MHD_get_connection_values(
        connection, headers ? MHD_HEADER_KIND : MHD_GET_ARGUMENT_KIND, list_value, &list);
    return list.count;
}

unsigned int prefs_http_suspended(prefs_http_server *server) {
    pthread_mutex_lock(&ticket_lock);
    unsigned int count = server->state->suspended_count;
    pthread_mutex_unlock(&ticket_lock);
    return count;
}

void prefs_http_quiesce(prefs_http_server *server) {
    MHD_socket socket = MHD_quiesce_daemon(server->daemon);
    if (socket != MHD_INVALID_SOCKET) close(socket);
}

unsigned int prefs_http_connections(prefs_http_server *server) {
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

void prefs_http_stop(prefs_http_server *server) {
    server_state *state = server->state;
    pthread_mutex_lock(&state->lock);
    state->stopping = 1;
    pthread_mutex_unlock(&state->lock);
    if (state->has_watchdog) pthread_join(state->watchdog, NULL);
    // libmicrohttpd may not stop with a connection suspended: each is resumed, and answered
    // 503 if it comes back before the daemon is gone; the handler's answer is dropped.
    pthread_mutex_lock(&ticket_lock);
    state->closing = 1;
    for (prefs_http_ticket *ticket = state->suspended; ticket;) {
        prefs_http_ticket *next = ticket->next;
        ticket->abandoned = 1;
        ticket->server = NULL;
        ticket->previous = ticket->next = NULL;
        MHD_resume_connection(ticket->connection);
        ticket = next;
    }
    state->suspended = NULL;
    state->suspended_count = 0;
    pthread_mutex_unlock(&ticket_lock);
    MHD_stop_daemon(server->daemon);
    pthread_mutex_destroy(&state->lock);
    free(state);
    free(server);
}

int prefs_http_gunzip(
    const unsigned char *input, size_t length, size_t max, unsigned char **output,
    size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // 16 + MAX_WBITS: a gzip header and trailer, nothing else.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) return 2;
    size_t capacity = length * 4 + 1024;
    if (capacity > max + 1) capacity = max + 1;
    unsigned char *buffer = malloc(capacity);
    if (buffer == NULL) {
        inflateEnd(&stream);
        return 2;
    }
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    int result = Z_OK;
    size_t produced = 0;
    while (result != Z_STREAM_END) {
        if (produced == capacity) {
            if (capacity > max) break;
            size_t grown = capacity * 2;
            if (grown > max + 1) grown = max + 1;
            unsigned char *larger = realloc(buffer, grown);
            if (larger == NULL) break;
            buffer = larger;
            capacity = grown;
        }
        stream.next_out = buffer + produced;
        stream.avail_out = (uInt)(capacity - produced);
        result = inflate(&stream, Z_NO_FLUSH);
        produced = capacity - stream.avail_out;
        if (result != Z_OK && result != Z_STREAM_END) break;
        if (result == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) break;
    }
    inflateEnd(&stream);
    if (produced > max) {
        free(buffer);
        return 1;
    }
    // Anything after the gzip member, or a member cut short, is not a body.
    if (result != Z_STREAM_END || stream.avail_in != 0) {
        free(buffer);
        return 2;
    }
    *output = buffer;
    *output_length = produced;
    return 0;
}

int prefs_http_gzip(
    const unsigned char *input, size_t length, unsigned char **output, size_t *output_length) {
    *output = NULL;
    *output_length = 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return 1;
    }
    size_t capacity = deflateBound(&stream, (uLong)length) + 32;
    unsigned char *buffer = malloc(capacity);
    if (buffer == NULL) {
        deflateEnd(&stream);
        return 1;
    }
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = buffer;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t produced = capacity - stream.avail_out;
    deflateEnd(&stream);
    if (result != Z_STREAM_END) {
        free(buffer);
        return 1;
    }
    *output = buffer;
    *output_length = produced;
    return 0;
}

void prefs_http_free(void *buffer) { free(buffer); }
