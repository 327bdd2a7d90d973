/* A wall-clock step for one process (the soak's clock fault).
 *
 * Preloaded into peerd (LD_PRELOAD), it adds an offset in seconds to
 * CLOCK_REALTIME (clock_gettime, gettimeofday, time), as a step of the
 * system clock would; CLOCK_MONOTONIC and the rest are untouched, as they
 * are by a real step. The offset is read from the file named by
 * $CLOCKSTEP_FILE (one integer, "+3600" or "-120"), at most once a second
 * of monotonic time, so a test steps the clock by rewriting the file.
 * libfaketime does the same, but under it a Swift program sees no
 * command-line arguments.
 *
 * Build: cc -O2 -shared -fPIC -o clockstep.so clockstep.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static _Atomic long offset_seconds;
static _Atomic long next_read;

static clock_gettime_fn real_clock_gettime(void) {
    static _Atomic(clock_gettime_fn) real;
    clock_gettime_fn found = atomic_load(&real);
    if (!found) {
        found = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        atomic_store(&real, found);
    }
    return found;
}

/* The offset now: the file again once a second has passed. */
static long offset(void) {
    struct timespec now;
    if (real_clock_gettime()(CLOCK_MONOTONIC, &now) == 0 && now.tv_sec >= atomic_load(&next_read)) {
        atomic_store(&next_read, now.tv_sec + 1);
        const char *path = getenv("CLOCKSTEP_FILE");
        FILE *file = path ? fopen(path, "re") : NULL;
        if (file) {
            long value;
            if (fscanf(file, "%ld", &value) == 1) atomic_store(&offset_seconds, value);
            fclose(file);
        }
    }
    return atomic_load(&offset_seconds);
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int result = real_clock_gettime()(clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) ts->tv_sec += offset();
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec ts;
    struct timeval *volatile out = tv;   /* glibc calls it nonnull; callers pass NULL anyway */
    (void)tz;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
    if (out) {
        out->tv_sec = ts.tv_sec;
        out->tv_usec = ts.tv_nsec / 1000;
    }
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
