#include "libpq_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prefs_libpq_table prefs_libpq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char failure[512];

// Where libpq.so.5 is found without a path: the loader's search (ld.so.cache, Homebrew's
// and Postgres.app's folders on macOS, which are not on its path).
static const char *const candidates[] = {
#if defined(__APPLE__)
    "libpq.5.dylib",
    "/opt/homebrew/opt/libpq/lib/libpq.5.dylib",
    "/usr/local/opt/libpq/lib/libpq.5.dylib",
    "/opt/homebrew/lib/libpq.5.dylib",
    "/usr/local/lib/libpq.5.dylib",
    "/Applications/Postgres.app/Contents/Versions/latest/lib/libpq.5.dylib",
#else
    "libpq.so.5",
#endif
};

#if defined(PREFS_NO_LIBPQ)
// The fully static build (Install/build-static): a static executable cannot load a shared
// libpq, and Debian ships libpq's dependencies without static libraries.
static void load(void) {
    snprintf(failure, sizeof failure,
             "this build of prefs leaves PostgreSQL out (the fully static build); build it"
             " with 'swift build -c release'");
}

int prefs_libpq_is_built_in(void) { return 0; }
#else
int prefs_libpq_is_built_in(void) { return 1; }

static void load(void) {
    void *library = NULL;
    const char *chosen = getenv("PREFS_LIBPQ");
    if (chosen != NULL && chosen[0] != '\0') {
        library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    } else {
        for (size_t i = 0; library == NULL && i < sizeof candidates / sizeof *candidates; i++) {
            library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
            chosen = candidates[i];
        }
    }
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why != NULL ? why : chosen);
        return;
    }
#define PREFS_LIBPQ_RESOLVE(type, name, parameters, arguments)                             \
    *(void **)(&prefs_libpq.name) = dlsym(library, #name);                                 \
    if (prefs_libpq.name == NULL) {                                                        \
        snprintf(failure, sizeof failure, "%s has no %s (libpq 14 or newer is needed)",    \
                 chosen, #name);                                                           \
        return;                                                                            \
    }
    PREFS_LIBPQ_FUNCTIONS(PREFS_LIBPQ_RESOLVE)
#undef PREFS_LIBPQ_RESOLVE
    loaded = 1;
}
#endif

int prefs_libpq_load(char *reason, size_t size) {
    pthread_once(&once, load);
    if (!loaded && reason != NULL && size > 0) snprintf(reason, size, "%s", failure);
    return loaded;
}
