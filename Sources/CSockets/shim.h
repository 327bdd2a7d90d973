// recvmmsg(2) and sendmmsg(2), which Glibc's Swift module does not export
// (glibc declares them only under _GNU_SOURCE). The datagram path reads
// and writes many datagrams, and many records of its clients, in one
// system call each way (issue 26): a call per datagram was what held the
// rate at 125,000 a second.
//
// struct peerd_mmsghdr has struct mmsghdr's layout (the kernel's ABI): a
// msghdr, then the length the call filled in.
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

struct peerd_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// recvmmsg with no timeout: what waits now, up to vlen messages.
static inline int peerd_recvmmsg(int fd, struct peerd_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, vec, vlen, flags, NULL);
}

/// sendmmsg: the number of messages sent, or -1 when the first failed.
static inline int peerd_sendmmsg(int fd, struct peerd_mmsghdr *vec, unsigned int vlen, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, vec, vlen, flags);
}
