#include "crash_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 512

// What a block held when its file was last synced, and which of its bytes were written since.
typedef struct {
    int64_t index;
    int had;  // bytes of the block that existed then (0 past the end of the file)
    int lo, hi;
    int lost;  // a failed sync was to make it durable: it never will be
    unsigned char old[BLOCK];
} Block;

// A file, by path, with what a power cut would undo; outlives the open file.
typedef struct Tracked {
    char *path;
    int is_new;     // its directory entry is not durable yet
    int syncs_dir;  // SQLite syncs its folder when it syncs it (journals, WAL)
    int64_t synced_size;
    Block *blocks;
    int count, capacity;
    struct Tracked *next;
} Tracked;

typedef struct {
    sqlite3_file base;
    Tracked *tracked;
    sqlite3_file *real;
} CrashFile;

static struct {
    sqlite3_vfs vfs;
    sqlite3_vfs *base;
    int registered;
    Tracked *files;
    int64_t operations;
    int64_t cut_at;
    int torn;
    int off;
    int64_t error_at;
    int error_kind;
    int error;
    int errors;
    int64_t kind_counts[3];
    uint64_t random;
} G;

static uint64_t next_random(void) {
    G.random ^= G.random << 13;
    G.random ^= G.random >> 7;
    G.random ^= G.random << 17;
    return G.random;
}

static Tracked *find(const char *path) {
    for (Tracked *t = G.files; t; t = t->next)
        if (strcmp(t->path, path) == 0) return t;
    return NULL;
}

static int64_t size_of(const char *path) {
    struct stat status;
    return stat(path, &status) == 0 ? (int64_t)status.st_size : 0;
}

static Tracked *track(const char *path) {
    Tracked *t = find(path);
    if (t) return t;
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->path = strdup(path);
    t->synced_size = size_of(path);
    t->next = G.files;
    G.files = t;
    return t;
}

static void forget(Tracked *t) {
    for (Tracked **link = &G.files; *link; link = &(*link)->next) {
        if (*link == t) {
            *link = t->next;
            free(t->blocks);
            free(t->path);
            free(t);
            return;
        }
    }
}

static Block *block(Tracked *t, int64_t index) {
    for (int i = t->count - 1; i >= 0; i--)
        if (t->blocks[i].index == index) return &t->blocks[i];
    return NULL;
}

// Saves the synced content of the blocks [offset, offset + amount) touches, once each.
static int remember(CrashFile *file, int64_t offset, int64_t amount, int writes) {
    Tracked *t = file->tracked;
    if (!t || amount <= 0) return SQLITE_OK;
    sqlite3_int64 size = 0;
    file->real->pMethods->xFileSize(file->real, &size);
    for (int64_t index = offset / BLOCK; index * BLOCK < offset + amount; index++) {
        Block *b = block(t, index);
        if (!b) {
            if (t->count == t->capacity) {
                int capacity = t->capacity ? t->capacity * 2 : 64;
                Block *grown = realloc(t->blocks, (size_t)capacity * sizeof(Block));
                if (!grown) return SQLITE_NOMEM;
                t->blocks = grown;
                t->capacity = capacity;
            }
            b = &t->blocks[t->count++];
            memset(b, 0, sizeof *b);
            b->index = index;
            int64_t start = index * BLOCK;
            // Only what was synced can come back: bytes past the synced size never reached the disk.
            int64_t durable = size < t->synced_size ? size : t->synced_size;
            b->had = durable > start ? (int)(durable - start < BLOCK ? durable - start : BLOCK) : 0;
            if (b->had > 0) {
                int code = file->real->pMethods->xRead(file->real, b->old, b->had, start);
                if (code != SQLITE_OK && code != SQLITE_IOERR_SHORT_READ) return code;
            }
            b->lo = BLOCK;
            b->hi = 0;
        }
        if (writes) {
            // Written again after a failed sync, the block is dirty again: the next sync
            // writes it (what the failed sync lost is only what nothing wrote again).
            b->lost = 0;
            int64_t start = index * BLOCK;
            int lo = offset > start ? (int)(offset - start) : 0;
            int hi = offset + amount < start + BLOCK ? (int)(offset + amount - start) : BLOCK;
            if (lo < b->lo) b->lo = lo;
            if (hi > b->hi) b->hi = hi;
        }
    }
    return SQLITE_OK;
}

static void directory_synced(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t length = slash ? (size_t)(slash - path) : 0;
    for (Tracked *t = G.files; t; t = t->next) {
        const char *other = strrchr(t->path, '/');
        size_t other_length = other ? (size_t)(other - t->path) : 0;
        if (other_length == length && strncmp(t->path, path, length) == 0) t->is_new = 0;
    }
}

static void scribble(int fd, int64_t offset, int length) {
    unsigned char garbage[BLOCK];
    for (int i = 0; i < length; i++) garbage[i] = (unsigned char)next_random();
    if (length > 0 && pwrite(fd, garbage, (size_t)length, offset) < 0) { /* the test sees the result */ }
}

void crashvfs_power_cut(int torn) {
    if (G.off) return;
    G.off = 1;
    for (Tracked *t = G.files; t; t = t->next) {
        if (t->is_new) {
            unlink(t->path);
            continue;
        }
        int fd = open(t->path, O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        int64_t current = size_of(t->path);
        int64_t size = t->synced_size;
        for (int i = 0; i < t->count; i++) {
            Block *b = &t->blocks[i];
            int64_t start = b->index * BLOCK;
            int choice = (!torn || b->lost) ? 1 : (int)(next_random() % 3);  // 0 kept, 1 dropped, 2 garbage
            if (choice == 1) {
                if (b->had > 0 && pwrite(fd, b->old, (size_t)b->had, start) < 0) { /* seen on reopen */ }
                continue;
            }
            if (choice == 2 && b->hi > b->lo) scribble(fd, start + b->lo, b->hi - b->lo);
            if (start + b->hi > size && b->hi > 0) size = start + b->hi;
        }
        // A truncation not yet synced may have reached the disk, torn.
        if (torn && current < t->synced_size && next_random() % 2) size = current;
        if (size > current && !torn) size = t->synced_size;
        if (ftruncate(fd, size) != 0) { /* seen on reopen */ }
        close(fd);
        // SQLite rebuilds the shared-memory index: whatever it holds after a cut is garbage.
        size_t length = strlen(t->path);
        char *shm = malloc(length + 5);
        if (shm) {
            memcpy(shm, t->path, length);
            memcpy(shm + length, "-shm", 5);
            int shm_fd = open(shm, O_RDWR | O_CLOEXEC);
            if (shm_fd >= 0) {
                int64_t shm_size = size_of(shm);
                for (int64_t offset = 0; offset < shm_size; offset += BLOCK)
                    scribble(shm_fd, offset, shm_size - offset < BLOCK ? (int)(shm_size - offset) : BLOCK);
                close(shm_fd);
            }
            free(shm);
        }
    }
    while (G.files) forget(G.files);
}

// Counts an operation; returns the error it must fail with, or SQLITE_OK.
static int gate(int kind) {
    if (G.off) return kind == 1 ? SQLITE_IOERR_FSYNC : kind == 2 ? SQLITE_IOERR_TRUNCATE : SQLITE_IOERR_WRITE;
    G.operations++;
    G.kind_counts[kind]++;
    if (G.cut_at > 0 && G.operations >= G.cut_at) {
        crashvfs_power_cut(G.torn);
        return kind == 1 ? SQLITE_IOERR_FSYNC : kind == 2 ? SQLITE_IOERR_TRUNCATE : SQLITE_IOERR_WRITE;
    }
    int64_t count = G.error_kind < 0 ? G.operations : G.kind_counts[kind];
    if (G.error_at > 0 && count == G.error_at && (G.error_kind < 0 || G.error_kind == kind)) {
        G.errors++;
        if (G.error == ENOSPC) return SQLITE_FULL;
        return kind == 1 ? SQLITE_IOERR_FSYNC : kind == 2 ? SQLITE_IOERR_TRUNCATE : SQLITE_IOERR_WRITE;
    }
    return SQLITE_OK;
}

#define REAL(file) (((CrashFile *)(file))->real)

static int crash_close(sqlite3_file *file) {
    int code = REAL(file)->pMethods ? REAL(file)->pMethods->xClose(REAL(file)) : SQLITE_OK;
    return code;
}

static int crash_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (G.off) return SQLITE_IOERR_READ;
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int crash_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    int code = gate(0);
    if (code != SQLITE_OK) return code;
    code = remember((CrashFile *)file, offset, amount, 1);
    if (code != SQLITE_OK) return code;
    return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}

static int crash_truncate(sqlite3_file *file, sqlite3_int64 size) {
    int code = gate(2);
    if (code != SQLITE_OK) return code;
    sqlite3_int64 current = 0;
    REAL(file)->pMethods->xFileSize(REAL(file), &current);
    if (current > size) {
        code = remember((CrashFile *)file, size, current - size, 0);
        if (code != SQLITE_OK) return code;
    }
    return REAL(file)->pMethods->xTruncate(REAL(file), size);
}

static int crash_sync(sqlite3_file *file, int flags) {
    CrashFile *crash = (CrashFile *)file;
    int code = gate(1);
    if (code != SQLITE_OK) {
        // fsyncgate: what this sync was to write is gone, whatever a later sync says.
        if (!G.off && crash->tracked)
            for (int i = 0; i < crash->tracked->count; i++) crash->tracked->blocks[i].lost = 1;
        return code;
    }
    code = REAL(file)->pMethods->xSync(REAL(file), flags);
    Tracked *t = crash->tracked;
    if (code == SQLITE_OK && t) {
        int kept = 0;
        for (int i = 0; i < t->count; i++)
            if (t->blocks[i].lost) t->blocks[kept++] = t->blocks[i];
        t->count = kept;
        sqlite3_int64 size = 0;
        REAL(file)->pMethods->xFileSize(REAL(file), &size);
        t->synced_size = size;
        if (t->syncs_dir) directory_synced(t->path);
    }
    return code;
}

static int crash_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}
static int crash_lock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xLock(REAL(file), lock); }
static int crash_unlock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xUnlock(REAL(file), lock); }
static int crash_check_reserved(sqlite3_file *file, int *result) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), result);
}
static int crash_file_control(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}
static int crash_sector_size(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int crash_device(sqlite3_file *file) { return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file)); }
static int crash_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pointer) {
    if (G.off) return SQLITE_IOERR_SHMMAP;
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, pointer);
}
static int crash_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}
static void crash_shm_barrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int crash_shm_unmap(sqlite3_file *file, int delete_flag) {
    // After the cut nothing is deleted.
    return REAL(file)->pMethods->xShmUnmap(REAL(file), G.off ? 0 : delete_flag);
}

static const sqlite3_io_methods crash_methods = {
    2, crash_close, crash_read, crash_write, crash_truncate, crash_sync, crash_file_size, crash_lock,
    crash_unlock, crash_check_reserved, crash_file_control, crash_sector_size, crash_device, crash_shm_map,
    crash_shm_lock, crash_shm_barrier, crash_shm_unmap, NULL, NULL,
};

static int crash_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    CrashFile *crash = (CrashFile *)file;
    crash->base.pMethods = NULL;
    crash->real = (sqlite3_file *)(crash + 1);
    crash->tracked = NULL;
    if (G.off) return SQLITE_CANTOPEN;
    int existed = name ? access(name, F_OK) == 0 : 1;
    int code = G.base->xOpen(G.base, name, crash->real, flags, out_flags);
    if (code != SQLITE_OK) return code;
    if (name) {
        crash->tracked = track(name);
        if (crash->tracked) {
            if (!existed) {
                crash->tracked->is_new = 1;
                crash->tracked->synced_size = 0;
            }
            if (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL | SQLITE_OPEN_SUPER_JOURNAL))
                crash->tracked->syncs_dir = 1;
        }
    }
    crash->base.pMethods = &crash_methods;
    return SQLITE_OK;
}

static int crash_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    if (G.off) return SQLITE_IOERR_DELETE;
    int code = G.base->xDelete(G.base, name, sync_dir);
    // (A deletion is taken to be durable at once: the model loses created files, not
    // deleted ones.)
    Tracked *t = find(name);
    if (t) forget(t);
    if (code == SQLITE_OK && sync_dir) directory_synced(name);
    return code;
}

static int crash_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return G.base->xAccess(G.base, name, flags, result);
}
static int crash_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return G.base->xFullPathname(G.base, name, size, out);
}
static void *crash_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return G.base->xDlOpen(G.base, name); }
static void crash_dl_error(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; G.base->xDlError(G.base, size, out); }
static void (*crash_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return G.base->xDlSym(G.base, handle, symbol);
}
static void crash_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; G.base->xDlClose(G.base, handle); }
static int crash_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return G.base->xRandomness(G.base, size, out);
}
static int crash_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return G.base->xSleep(G.base, microseconds); }
static int crash_current_time(sqlite3_vfs *vfs, double *out) { (void)vfs; return G.base->xCurrentTime(G.base, out); }
static int crash_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return G.base->xGetLastError ? G.base->xGetLastError(G.base, size, out) : 0;
}
static int crash_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return G.base->xCurrentTimeInt64(G.base, out);
}

int crashvfs_register(void) {
    if (G.registered) return SQLITE_OK;
    G.base = sqlite3_vfs_find(NULL);
    if (!G.base) return SQLITE_ERROR;
    sqlite3_vfs vfs = {
        1, (int)(sizeof(CrashFile) + (size_t)G.base->szOsFile), G.base->mxPathname, NULL, "crashsim", NULL,
        crash_open, crash_delete, crash_access, crash_full_pathname, crash_dl_open, crash_dl_error,
        crash_dl_sym, crash_dl_close, crash_randomness, crash_sleep, crash_current_time, crash_last_error,
        crash_current_time_int64, NULL, NULL, NULL,
    };
    vfs.iVersion = 2;
    G.vfs = vfs;
    int code = sqlite3_vfs_register(&G.vfs, 0);
    if (code == SQLITE_OK) G.registered = 1;
    return code;
}

void crashvfs_reset(uint64_t seed) {
    while (G.files) forget(G.files);
    G.operations = 0;
    G.cut_at = 0;
    G.torn = 0;
    G.off = 0;
    G.error_at = 0;
    G.error_kind = -1;
    G.error = 0;
    G.errors = 0;
    memset(G.kind_counts, 0, sizeof G.kind_counts);
    G.random = seed * 2654435761u + 0x9E3779B97F4A7C15u;
    if (G.random == 0) G.random = 1;
}

void crashvfs_arm_power_cut(int64_t operation, int torn) {
    G.cut_at = operation;
    G.torn = torn;
}

void crashvfs_arm_error(int64_t operation, int kind, int error) {
    G.error_at = operation;
    G.error_kind = kind;
    G.error = error;
}

int64_t crashvfs_operations(void) { return G.operations; }
int64_t crashvfs_operations_of_kind(int kind) { return kind >= 0 && kind < 3 ? G.kind_counts[kind] : G.operations; }
int crashvfs_is_off(void) { return G.off; }
int crashvfs_errors(void) { return G.errors; }

void crashvfs_mark_new(const char *path) {
    Tracked *t = track(path);
    if (t) {
        t->is_new = 1;
        t->synced_size = 0;
    }
}
