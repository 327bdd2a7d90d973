/// Why the trust store could not be opened or saved.
package enum TrustStoreError: Error, CustomStringConvertible, Sendable {
    /// A system call failed.
    case system(SystemError)
    /// The file does not parse, or has a version this build does not read.
    /// peerd never replaces it silently: start with `--reset-trust` to move it aside.
    case corrupt(path: String, reason: String)

    /// A message naming the file and the way out.
    package var description: String {
        switch self {
        case .system(let error): return "trust store: \(error)"
        case .corrupt(let path, let reason):
            return "trust store \(path) is not valid (\(reason)); peerd will not overwrite it. Start once with --reset-trust to move it aside (every pairing is then forgotten), or restore it from a backup."
        }
    }
}
