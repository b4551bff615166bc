#include "prefs_curl.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PREFS_CURL_FUNCTIONS(X)                                                            \
    X(CURLcode, curl_global_init, (long flags))                                            \
    X(CURL *, curl_easy_init, (void))                                                      \
    X(CURLcode, curl_easy_setopt, (CURL * handle, CURLoption option, ...))                 \
    X(CURLcode, curl_easy_perform, (CURL * handle))                                        \
    X(CURLcode, curl_easy_getinfo, (CURL * handle, CURLINFO info, ...))                    \
    X(void, curl_easy_cleanup, (CURL * handle))                                            \
    X(const char *, curl_easy_strerror, (CURLcode code))                                   \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *text)) \
    X(void, curl_slist_free_all, (struct curl_slist * list))

static struct {
#define PREFS_CURL_FIELD(type, name, parameters) type(*name) parameters;
    PREFS_CURL_FUNCTIONS(PREFS_CURL_FIELD)
#undef PREFS_CURL_FIELD
} lib;

/// zlib, which libcurl has loaded already: request bodies of 8 KB or more go in gzip.
static struct {
    int (*deflateInit2_)(z_streamp, int, int, int, int, int, const char *, int);
    int (*deflate)(z_streamp, int);
    int (*deflateEnd)(z_streamp);
    uLong (*deflateBound)(z_streamp, uLong);
} zlib;
static int zlib_loaded = 0;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[512];

#if defined(PREFS_NO_LIBCURL)
static void load(void) {
    snprintf(failure, sizeof failure,
             "this build of prefs leaves HTTPS sync out (the fully static build); build it"
             " with 'swift build -c release'");
}

int prefs_curl_is_built_in(void) { return 0; }
#else
int prefs_curl_is_built_in(void) { return 1; }

static void load(void) {
#if defined(__APPLE__)
    const char *chosen = "libcurl.4.dylib";
#else
    const char *chosen = "libcurl.so.4";
#endif
    const char *named = getenv("PREFS_LIBCURL");
    if (named != NULL && named[0] != '\0') chosen = named;
    void *library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why != NULL ? why : chosen);
        return;
    }
#define PREFS_CURL_RESOLVE(type, name, parameters)                                         \
    *(void **)(&lib.name) = dlsym(library, #name);                                         \
    if (lib.name == NULL) {                                                                \
        snprintf(failure, sizeof failure, "%s has no %s", chosen, #name);                  \
        return;                                                                            \
    }
    PREFS_CURL_FUNCTIONS(PREFS_CURL_RESOLVE)
#undef PREFS_CURL_RESOLVE
#if defined(__APPLE__)
    void *z = dlopen("libz.1.dylib", RTLD_NOW | RTLD_LOCAL);
#else
    void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
#endif
    if (z != NULL) {
        *(void **)(&zlib.deflateInit2_) = dlsym(z, "deflateInit2_");
        *(void **)(&zlib.deflate) = dlsym(z, "deflate");
        *(void **)(&zlib.deflateEnd) = dlsym(z, "deflateEnd");
        *(void **)(&zlib.deflateBound) = dlsym(z, "deflateBound");
        zlib_loaded = zlib.deflateInit2_ && zlib.deflate && zlib.deflateEnd && zlib.deflateBound;
    }
    if (lib.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(failure, sizeof failure, "libcurl could not start");
        return;
    }
    loaded = 1;
}
#endif

int prefs_curl_load(char *reason, size_t size) {
    pthread_once(&once, load);
    if (!loaded && reason != NULL && size > 0) snprintf(reason, size, "%s", failure);
    return loaded;
}

/// The body in gzip (freed by the caller), or NULL.
static unsigned char *compress_body(const unsigned char *body, size_t length, size_t *out) {
    if (!zlib_loaded) return NULL;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (zlib.deflateInit2_(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                           ZLIB_VERSION, (int)sizeof stream) != Z_OK) {
        return NULL;
    }
    size_t capacity = zlib.deflateBound(&stream, (uLong)length) + 32;
    unsigned char *buffer = malloc(capacity);
    if (buffer != NULL) {
        stream.next_in = (unsigned char *)body;
        stream.avail_in = (uInt)length;
        stream.next_out = buffer;
        stream.avail_out = (uInt)capacity;
        if (zlib.deflate(&stream, Z_FINISH) == Z_STREAM_END) {
            *out = capacity - stream.avail_out;
        } else {
            free(buffer);
            buffer = NULL;
        }
    }
    zlib.deflateEnd(&stream);
    return buffer;
}

typedef struct sink {
    prefs_curl_response *response;
    size_t capacity;
    size_t limit;
} sink;

static size_t keep(char *data, size_t size, size_t count, void *context) {
    sink *into = context;
    prefs_curl_response *response = into->response;
    size_t bytes = size * count;
    if (response->length + bytes > into->limit) return 0;
    if (response->length + bytes > into->capacity) {
        size_t capacity = into->capacity ? into->capacity : 4096;
        while (capacity < response->length + bytes) capacity *= 2;
        unsigned char *grown = realloc(response->body, capacity);
        if (grown == NULL) return 0;
        response->body = grown;
        into->capacity = capacity;
    }
    memcpy(response->body + response->length, data, bytes);
    response->length += bytes;
    return bytes;
}

int prefs_curl_perform(
    const char *url, const char *method, const char *const *headers, size_t header_count,
    const unsigned char *body, size_t body_length, const char *ca_file, long timeout_ms,
    size_t max_body, prefs_curl_response *response) {
    memset(response, 0, sizeof *response);
    if (!prefs_curl_load(response->error, sizeof response->error)) return 0;
    CURL *handle = lib.curl_easy_init();
    if (handle == NULL) {
        snprintf(response->error, sizeof response->error, "libcurl could not make a handle");
        return 0;
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = lib.curl_slist_append(list, headers[i]);
    size_t compressed_length = 0;
    unsigned char *compressed =
        body_length >= 8192 ? compress_body(body, body_length, &compressed_length) : NULL;
    if (compressed != NULL) {
        list = lib.curl_slist_append(list, "Content-Encoding: gzip");
        body = compressed;
        body_length = compressed_length;
    }
    // No "Expect: 100-continue" round trip before a body.
    list = lib.curl_slist_append(list, "Expect:");
    sink into = {response, 0, max_body};
    lib.curl_easy_setopt(handle, CURLOPT_URL, url);
    // Plain http:// goes only to this machine (SyncServerAddress): never through a proxy
    // that http_proxy or ALL_PROXY name, which would read the token in clear. (Through a
    // proxy, https:// is a tunnel: the token stays inside TLS.) An empty proxy turns the
    // variables off.
    if (strncmp(url, "http://", 7) == 0) lib.curl_easy_setopt(handle, CURLOPT_PROXY, "");
    lib.curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    lib.curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    lib.curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    lib.curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms);
    lib.curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    lib.curl_easy_setopt(handle, CURLOPT_HTTPHEADER, list);
    lib.curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, keep);
    lib.curl_easy_setopt(handle, CURLOPT_WRITEDATA, &into);
    // The server may compress its answer (gzip): libcurl undoes it.
    lib.curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");
    if (ca_file != NULL) lib.curl_easy_setopt(handle, CURLOPT_CAINFO, ca_file);
    if (strcmp(method, "GET") != 0) {
        lib.curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
        lib.curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
        lib.curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body_length ? (const char *)body : "");
    }
    CURLcode code = lib.curl_easy_perform(handle);
    int answered = 0;
    if (code == CURLE_OK) {
        lib.curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response->status);
        answered = 1;
    } else {
        snprintf(response->error, sizeof response->error, "%s", lib.curl_easy_strerror(code));
        response->retryable = code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT
            || code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING
            || code == CURLE_PARTIAL_FILE;
        response->untrusted = code == CURLE_PEER_FAILED_VERIFICATION
            || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_CERTPROBLEM;
        free(response->body);
        response->body = NULL;
        response->length = 0;
    }
    lib.curl_slist_free_all(list);
    lib.curl_easy_cleanup(handle);
    free(compressed);
    return answered;
}

void prefs_curl_free(prefs_curl_response *response) {
    free(response->body);
    response->body = NULL;
    response->length = 0;
}
