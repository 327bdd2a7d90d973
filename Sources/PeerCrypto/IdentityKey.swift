import Glibc
import PeerCore
internal import PeerSystem

/// The host's persistent identity: an X25519 key pair (the Noise static key
/// of later sessions) and the peer id derived from it.
///
/// File format (`<state-dir>/identity.key`, mode 0600), text, two lines:
///
///     peerd-identity v1
///     x25519 <64 lowercase hex digits: the secret key>
///
/// The peer id is the lowercase hex of the first 16 bytes of
/// SHA-256(public key): 32 characters. docs/identity.md has the details.
package struct IdentityKey: Sendable {
    /// The file name inside the state directory.
    package static let fileName = "identity.key"
    /// The first line of the file.
    package static let header = "peerd-identity v1"

    /// The 32-byte X25519 secret key.
    package let secretKey: [UInt8]
    /// The 32-byte X25519 public key.
    package let publicKey: [UInt8]

    /// Derives the key pair from a secret key.
    package init(secretKey: [UInt8]) {
        self.secretKey = secretKey
        publicKey = Sodium.x25519PublicKey(secret: secretKey)
    }

    /// The advertised peer id: hex of the first 16 bytes of SHA-256(public key).
    package var peerID: String { Self.fingerprint(of: publicKey) }

    /// The fingerprint of any static public key, as advertised in `id`.
    package static func fingerprint(of publicKey: [UInt8]) -> String {
        Hex.encode(Sodium.sha256(publicKey).prefix(16))
    }

    /// The file's contents.
    package var fileContents: String { "\(Self.header)\nx25519 \(Hex.encode(secretKey))\n" }

    /// Parses a key file's contents.
    package static func parse(_ text: String, path: String) throws(IdentityKeyError) -> IdentityKey {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard lines.first == Substring(header) else {
            throw .corrupt(path: path, reason: "first line is not '\(header)'")
        }
        guard lines.count == 2 else { throw .corrupt(path: path, reason: "expected 2 lines, found \(lines.count)") }
        let fields = lines[1].split(separator: " ")
        guard fields.count == 2, fields[0] == "x25519" else { throw .corrupt(path: path, reason: "second line is not 'x25519 <hex>'") }
        guard let secret = Hex.decode(fields[1]), secret.count == 32 else {
            throw .corrupt(path: path, reason: "the secret key is not 64 hex digits")
        }
        return IdentityKey(secretKey: secret)
    }

    /// Loads the key from `directory`, or makes one and stores it there
    /// (crash-safe: temporary file, fsync, rename, fsync of the directory).
    /// Returns the key and whether it was newly made.
    package static func loadOrCreate(in directory: String) throws(IdentityKeyError) -> (key: IdentityKey, created: Bool) {
        do {
            try AtomicFile.makeDirectories(directory)
            let path = directory + "/" + fileName
            if let bytes = try AtomicFile.read(path, limit: 65536) {
                return (try parse(String(decoding: bytes, as: UTF8.self), path: path), false)
            }
            var secret = Sodium.randomBytes(32)
            // X25519 clamping (RFC 7748 §5); scalarmult clamps too, but the
            // stored key is then canonical.
            secret[0] &= 248
            secret[31] &= 127
            secret[31] |= 64
            let key = IdentityKey(secretKey: secret)
            try AtomicFile.write(path, contents: Array(key.fileContents.utf8), mode: 0o600)
            return (key, true)
        } catch let error as SystemError {
            throw .system(error)
        } catch let error as IdentityKeyError {
            throw error
        } catch {
            throw .corrupt(path: directory, reason: "\(error)")
        }
    }
}
