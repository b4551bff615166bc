// libcurl, loaded when a sync server is first named (dlopen), not linked: the command line
// starts without it and its dependencies (TLS, HTTP/2, ...), as it does without libpq. One
// call does one request of the sync protocol.
#ifndef PREFS_CURL_H
#define PREFS_CURL_H

#include <stddef.h>

/// The answer, or why there is none.
typedef struct prefs_curl_response {
    long status;
    unsigned char *body;
    size_t length;
    /// Set when no answer came: what libcurl said.
    char error[256];
    /// Whether sending again may work (a broken connection, a timeout), when no answer came.
    int retryable;
    /// Whether no answer came because the server's certificate is not trusted (or the CA
    /// file could not be read): sending again cannot help, naming the right CA can.
    int untrusted;
} prefs_curl_response;

/// Loads libcurl once (PREFS_LIBCURL names it); 0 with the reason when it cannot.
int prefs_curl_load(char *reason, size_t size);

/// Whether this build may load it (the fully static one may not).
int prefs_curl_is_built_in(void);

/// One request: http and https only, no redirect followed, TLS verified (against `ca_file`
/// alone when given), the answer's body kept up to `max_body` bytes. 1 when an answer came.
int prefs_curl_perform(
    const char *url, const char *method, const char *const *headers, size_t header_count,
    const unsigned char *body, size_t body_length, const char *ca_file, long timeout_ms,
    size_t max_body, prefs_curl_response *response);

/// Frees the answer's body.
void prefs_curl_free(prefs_curl_response *response);

#endif
