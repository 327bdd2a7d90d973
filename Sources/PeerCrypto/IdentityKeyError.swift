package import PeerSystem

/// Why the identity key could not be loaded or made.
package enum IdentityKeyError: Error, CustomStringConvertible, Sendable {
    /// A system call failed.
    case system(SystemError)
    /// The key file exists but is not a valid key file. peerd never replaces
    /// it: the peer id would change and every pairing with it would break.
    case corrupt(path: String, reason: String)

    /// A message naming the file.
    package var description: String {
        switch self {
        case .system(let error): return "identity key: \(error)"
        case .corrupt(let path, let reason):
            return "identity key \(path) is not valid (\(reason)); peerd will not overwrite it. Move it aside to generate a new identity (the peer id will change)."
        }
    }
}
