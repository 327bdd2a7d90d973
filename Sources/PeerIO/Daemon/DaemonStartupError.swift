import PeerCore

/// Why peerd could not start. Each names what to fix.
package enum DaemonStartupError: Error, CustomStringConvertible {
    /// The control socket could not be bound.
    case controlSocket(SystemError)
    /// The session port could not be bound.
    case sessionPort(SystemError)
    /// An `--interface` does not exist.
    case interface(SystemError)
    /// The identity key could not be loaded or made.
    case identity(IdentityKeyError)
    /// The TXT record is invalid.
    case txt(String)
    /// Avahi's poll thread could not start.
    case avahi(AvahiError)
    /// libsodium could not start.
    case crypto(String)
    /// The trust store could not be opened.
    case trust(TrustStoreError)
    /// The message queues could not be opened.
    case queue(MessageQueueStoreError)
    /// A state file of a layout this release cannot read (a newer one, or a
    /// damaged header): `found` says what is there. Nothing was changed.
    case stateFile(path: String, found: String)
    /// An app reservation names a user or group that does not exist.
    case appReservation(app: String, rule: AppReservationRule)
    /// `--dns-update-key` cannot be used: the words say why.
    case dnsUpdateKey(String)

    /// A message for the log.
    package var description: String {
        switch self {
        case .controlSocket(let error): return "control socket: \(error)"
        case .sessionPort(let error): return "session port: \(error)"
        case .interface(let error): return "--interface: \(error)"
        case .identity(let error): return "\(error)"
        case .txt(let message): return message
        case .avahi(let error): return "avahi: \(error)"
        case .crypto(let message): return message
        case .trust(let error): return "\(error)"
        case .queue(let error): return "message queue: \(error)"
        case .appReservation(let app, let rule):
            switch rule {
            case .user(let who): return "app '\(app)' is reserved for user '\(who)', who does not exist (--app-user)"
            case .group(let who): return "app '\(app)' is reserved for group '\(who)', which does not exist (--app-group)"
            }
        case .dnsUpdateKey(let why): return "--dns-update-key \(why)"
        case .stateFile(let path, let found):
            return "\(path): \(found); this release cannot read it. Nothing was changed: run the release that wrote it, or move the file away to start without it"
        }
    }
}
