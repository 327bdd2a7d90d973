/// A TSIG key (RFC 8945) that signs wide-area DNS updates (issue 46):
/// its name, its HMAC algorithm and its secret, as `tsig-keygen` (BIND)
/// and `keymgr -t` (Knot) write them (``TSIGKeyFile``).
package struct TSIGKey: Sendable, Equatable {
    /// The HMACs TSIG names that peerd accepts: the SHA-2 family.
    /// HMAC-MD5 and HMAC-SHA1 are refused (RFC 8945 §6: not to be used).
    package enum Algorithm: String, Sendable, CaseIterable {
        case hmacSHA224 = "hmac-sha224"
        case hmacSHA256 = "hmac-sha256"
        case hmacSHA384 = "hmac-sha384"
        case hmacSHA512 = "hmac-sha512"
    }

    /// The key's name, lowercase, without a trailing dot
    /// (`peerd-update`, `update.example.org`).
    package var name: String
    /// Its algorithm.
    package var algorithm: Algorithm
    /// The shared secret.
    package var secret: [UInt8]

    /// A key.
    package init(name: String, algorithm: Algorithm, secret: [UInt8]) {
        self.name = name
        self.algorithm = algorithm
        self.secret = secret
    }
}
