// renameat2(2), which Glibc's Swift module does not export (glibc declares
// it only under _GNU_SOURCE). peerd renames a received file into place
// with RENAME_NOREPLACE, so an existing file is never overwritten, even by
// one that appeared a moment ago.
#include <sys/syscall.h>
#include <unistd.h>

#define PEERD_RENAME_NOREPLACE 1

// sync_file_range(2) with SYNC_FILE_RANGE_WRITE (2): starts writing a
// received range to disk while the rest arrives, so the fsync before the
// rename has little left to do.
#define PEERD_SYNC_FILE_RANGE_WRITE 2

static inline int peerd_sync_file_range(int fd, long long offset, long long count, unsigned int flags) {
    return (int)syscall(SYS_sync_file_range, fd, offset, count, flags);
}

// copy_file_range(2), which glibc declares only under _GNU_SOURCE: a
// landed file is copied into a client's descriptor in the kernel (fetch).
static inline long peerd_copy_file_range(int infd, long long *inoff, int outfd, long long *outoff, unsigned long count) {
    return (long)syscall(SYS_copy_file_range, infd, inoff, outfd, outoff, count, 0U);
}

static inline int peerd_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

// O_DIRECT, which glibc declares only under _GNU_SOURCE: a large received
// file is written past the page cache (issue 44; StagedWrites). Its value
// differs by architecture.
#if defined(__aarch64__) || defined(__arm__)
#define PEERD_O_DIRECT 0200000
#elif defined(__powerpc__) || defined(__powerpc64__)
#define PEERD_O_DIRECT 0400000
#else
#define PEERD_O_DIRECT 040000
#endif
