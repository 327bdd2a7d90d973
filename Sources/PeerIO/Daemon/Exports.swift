// The plain-syscall layer (descriptors, typed syscalls and errors, the
// control client) is its own target, so `peerctl` links neither libavahi
// nor libsodium; everything built on it here sees it as part of PeerIO.
@_exported import PeerSystem
