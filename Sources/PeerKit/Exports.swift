// An app imports PeerKit alone: the protocol's types it hands out
// (PeerSnapshot, ConnectionState, ControlEvent, …) come with it.
@_exported import PeerProtocol
