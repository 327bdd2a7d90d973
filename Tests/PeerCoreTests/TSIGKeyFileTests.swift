import XCTest
@testable import PeerCore

/// Issue 46: a TSIG key file as BIND's `tsig-keygen` and Knot's `keymgr -t`
/// write it, taken as it was made; anything else refused with where and why.
final class TSIGKeyFileTests: XCTestCase {
    private let secret = "lncYREJI6MKGLlRMuYVAC/pj3/ONCCAJNxLDgn+e4hs="

    func testBothServersFormatsGiveTheSameKey() throws {
        // Knot 3.2's `keymgr -t peerd-update hmac-sha256`, as it printed it here.
        let knot = """
        # hmac-sha256:peerd-update:\(secret)
        key:
          - id: peerd-update
            algorithm: hmac-sha256
            secret: \(secret)

        """
        // BIND's `tsig-keygen peerd-update` (tabs, a trailing `};`).
        let bind = "key \"peerd-update\" {\n\talgorithm hmac-sha256;\n\tsecret \"\(secret)\";\n};\n"
        let expected = TSIGKey(name: "peerd-update", algorithm: .hmacSHA256, secret: Array(Data(base64Encoded: secret)!))
        XCTAssertEqual(try TSIGKeyFile.parse(knot).get(), expected)
        XCTAssertEqual(try TSIGKeyFile.parse(bind).get(), expected)
        XCTAssertEqual(expected.secret.count, 32)
        // Comments, a quoted algorithm, CRLF, a dotted upper-case name.
        let edited = "// for peerd\r\nkey \"Update.Example.ORG.\" { /* site key */\r\n  algorithm \"HMAC-SHA512\";\r\n  secret \"\(secret)\"; # rotated\r\n};\r\n"
        XCTAssertEqual(try TSIGKeyFile.parse(edited).get(), TSIGKey(name: "update.example.org", algorithm: .hmacSHA512, secret: expected.secret))
    }

    /// Base64 holds `/`: a secret with `//` in it (one keymgr key
    /// in a few dozen) is the secret, not a comment. The lab's first runs
    /// met one and refused it.
    func testSlashesInASecretAreNoComment() throws {
        let slashes = "ab//cd+ef/gh/ij="
        let knot = "key:\n  - id: k\n    algorithm: hmac-sha256\n    secret: \(slashes)\n"
        let bind = "key \"k\" {\n\talgorithm hmac-sha256;\n\tsecret \"\(slashes)\"; // a comment\n};\n"
        let expected = TSIGKey(name: "k", algorithm: .hmacSHA256, secret: Array(try XCTUnwrap(Data(base64Encoded: slashes))))
        XCTAssertEqual(try TSIGKeyFile.parse(knot).get(), expected)
        XCTAssertEqual(try TSIGKeyFile.parse(bind).get(), expected)
    }

    func testWhatIsRefusedSaysWhy() {
        let good = "key \"k\" {\n algorithm hmac-sha256;\n secret \"\(secret)\";\n};\n"
        let rows: [(String, String)] = [
            ("", "no key name"),
            (good.replacingOccurrences(of: "hmac-sha256", with: "hmac-md5"), "algorithm 'hmac-md5': use one of hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512"),
            (good.replacingOccurrences(of: "hmac-sha256", with: "hmac-sha1"), "algorithm 'hmac-sha1'"),
            (good.replacingOccurrences(of: secret, with: "not base64!"), "the secret is not base64"),
            (good.replacingOccurrences(of: " secret \"\(secret)\";\n", with: ""), "no secret"),
            (good.replacingOccurrences(of: " algorithm hmac-sha256;\n", with: ""), "no algorithm"),
            (good + good, "more than one key"),
            (good.replacingOccurrences(of: "\"k\"", with: "\"bad name\""), "is not a DNS name"),
            (good.replacingOccurrences(of: "key \"k\" {", with: "key k {"), "line 1: expected key \"NAME\" {"),
            ("options { directory \"/var/cache/bind\"; };\n", "is not part of a TSIG key"),
            ("\n\nzone \"example.org\" {\n", "line 3: 'zone"),
            (String(repeating: "#\n", count: 9000), "longer than 16384 bytes"),
        ]
        for (text, words) in rows {
            switch TSIGKeyFile.parse(text) {
            case .success(let key): XCTFail("taken: \(key.name) from \(text.prefix(60).debugDescription)")
            case .failure(let refusal): XCTAssertTrue(refusal.description.contains(words), "\(refusal) should say \(words)")
            }
        }
    }
}
