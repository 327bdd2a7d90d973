// PeerCore is `package` throughout (issue 43): its users in this package
// import PeerProtocol themselves where they name its types.
