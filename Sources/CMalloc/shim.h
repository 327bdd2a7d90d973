// glibc's malloc tuning: mallopt and malloc_trim, which Glibc's Swift module
// does not export. peerd uses them to hand memory back after bulk work.
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

// glibc declares it only under _GNU_SOURCE, which Glibc's Swift module is
// built without; the signature is glibc's own.
extern int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);

// Gives back the pages of the calling thread's stack that lie more than
// `keep` bytes below this call's frame: nothing there is live (the ABI's
// red zone is 128 bytes), and a later call that goes that deep faults in
// zeroed pages, as a new thread's would. A thread that once ran deep keeps
// those pages touched for its life otherwise. Returns the bytes given
// back, 0 when there is nothing to give, or -1 with errno set.
static inline long peerd_release_stack_below(size_t keep) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return -1;
    void *low = 0;
    size_t size = 0;
    int got = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    if (got != 0) return -1;
    volatile char here = 0;
    uintptr_t frame = (uintptr_t)&here;
    uintptr_t page = 4096;
    uintptr_t start = ((uintptr_t)low + page - 1) & ~(page - 1);
    if (frame < start + keep + page) return 0;
    uintptr_t end = (frame - keep) & ~(page - 1);
    if (end <= start) return 0;
    // For the main thread the range reaches below the mapped stack:
    // madvise then gives back what is mapped and says ENOMEM.
    if (madvise((void *)start, end - start, MADV_DONTNEED) != 0) return -1;
    return (long)(end - start);
}
