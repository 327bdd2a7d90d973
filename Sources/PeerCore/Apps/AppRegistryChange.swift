/// What the shell does after a change to the registry (``AppRegistry``).
package import PeerProtocol
package enum AppRegistryChange: Sendable, Equatable {
    /// The published app list or an app's info changed: publish the TXT
    /// record and the subtypes again.
    case republish
    /// The app is gone from this host: its state with every peer ends.
    case withdrawn(AppName)
    /// The declared apps changed: write them to disk.
    case saveDeclared
}
