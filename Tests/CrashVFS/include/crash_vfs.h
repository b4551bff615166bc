// A test-only SQLite VFS that simulates power loss and I/O errors (in the spirit of
// SQLite's own crash tests). It wraps the default VFS: writes reach the real files, but
// the VFS remembers, per 512-byte block, what each file held when it was last synced. A
// power cut then puts back what was never synced: every unsynced block is dropped, or,
// torn, each block is kept, dropped or filled with garbage (chosen by the seed). A file
// created since its folder was last synced disappears. The -shm file, which SQLite
// rebuilds, is filled with garbage.
//
// Registered as "crashsim"; state is global (one test at a time).
#ifndef PREFS_CRASH_VFS_H
#define PREFS_CRASH_VFS_H

#include <stdint.h>

// Registers the VFS (once); 0 on success.
int crashvfs_register(void);

// Forgets every file and counter, and seeds the generator.
void crashvfs_reset(uint64_t seed);

// The power goes at the operation numbered `operation` (writes, syncs and truncates of
// every file, counted from 1): that operation and every one after it fail, and the files
// are put in their after-the-cut state. torn: 0 drops every unsynced block, 1 tears.
void crashvfs_arm_power_cut(int64_t operation, int torn);

// The operation numbered `operation` of the kind (0 write, 1 sync, 2 truncate, -1 any)
// fails with the error (5 EIO or 28 ENOSPC) and does nothing; later ones work. A failed
// sync loses, for good, what it was to make durable ("fsyncgate"): a later sync does not
// bring it back, and the next power cut drops it.
void crashvfs_arm_error(int64_t operation, int kind, int error);

// Cuts the power now (if it has not gone yet).
void crashvfs_power_cut(int torn);

// Operations counted so far; whether the power is off; injected errors so far.
int64_t crashvfs_operations(void);
int64_t crashvfs_operations_of_kind(int kind);
int crashvfs_is_off(void);
int crashvfs_errors(void);

// Says that a file was just created outside the VFS (PrefsKit creates the database file
// with open(2)): its directory entry is not durable until its folder is synced.
void crashvfs_mark_new(const char *path);

#endif
