// The control protocol's types are their own target (PeerProtocol), which
// clients such as PeerKit use without the daemon's rules; everything built
// on PeerCore sees them as part of it.
@_exported import PeerProtocol
