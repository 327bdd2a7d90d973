// epoll(7), which Glibc's Swift module does not export. peerd watches its
// descriptors with its own epoll instance rather than Dispatch sources:
// libdispatch's epoll backend on Linux traps ("Source finalized twice") or
// reads freed memory when descriptors are watched, cancelled, closed and
// their numbers reused quickly (docs/architecture.md, "Watching
// descriptors").
//
// struct epoll_event is packed on x86_64; these helpers take and give plain
// values so Swift never lays out the packed struct itself.
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>

static const uint32_t PEERD_POLL_IN = EPOLLIN;
static const uint32_t PEERD_POLL_OUT = EPOLLOUT;
static const uint32_t PEERD_POLL_ERR = EPOLLERR;
static const uint32_t PEERD_POLL_HUP = EPOLLHUP;
static const uint32_t PEERD_POLL_RDHUP = EPOLLRDHUP;
static const uint32_t PEERD_POLL_ONESHOT = EPOLLONESHOT;

/// One readiness report: the token a descriptor was registered with, and its events.
struct peerd_poll_event {
    uint64_t token;
    uint32_t events;
};

static inline int peerd_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/// EPOLL_CTL_ADD (op 1), EPOLL_CTL_DEL (op 2) or EPOLL_CTL_MOD (op 3).
static inline int peerd_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

/// epoll_wait into plain structs; at most 64 at once.
static inline int peerd_epoll_wait(int epfd, struct peerd_poll_event *out, int max, int timeout) {
    struct epoll_event events[64];
    if (max > 64) max = 64;
    int count = epoll_wait(epfd, events, max, timeout);
    for (int i = 0; i < count; i++) {
        out[i].token = events[i].data.u64;
        out[i].events = events[i].events;
    }
    return count;
}

// The main queue's wake descriptor and its drain: libdispatch's hooks for a
// run loop that owns the main thread (Core Foundation's on Linux uses the
// same two). peerd's main thread waits on its epoll instance with this
// descriptor in it, and drains the main queue when it is readable, so a
// descriptor's report and the main actor's work share one thread
// (docs/architecture.md, "Threads"). On Linux the handle is an eventfd
// that libdispatch writes to each time it queues work for the main queue.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

/// Empties the main queue's eventfd (non-blocking): 1 when it held a count.
static inline int peerd_eventfd_drain(int fd) {
    uint64_t count;
    return read(fd, &count, sizeof count) == sizeof count;
}
