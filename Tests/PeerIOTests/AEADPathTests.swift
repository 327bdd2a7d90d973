import XCTest
@testable import PeerCore
@testable import PeerCrypto
@testable import PeerIO

/// Which library computes a frame is a speed choice, never a wire one
/// (issue 25): OpenSSL's large frames and libsodium's small ones must be
/// the same bytes as the reference (libsodium's allocating call, which the
/// Noise vectors check), and each must open the other's.
final class AEADPathTests: XCTestCase {
    override func setUp() { try? Sodium.initialize() }

    private let key = (0..<32).map { UInt8($0 &* 7 &+ 3) }

    /// libcrypto opens here (make deps installs it): without this, the
    /// tests below would pass on libsodium alone and prove nothing of OpenSSL.
    func testOpenSSLIsTheLargeFramePathHere() throws {
        let context = key.withUnsafeBytes { AEADContext(key: $0, sealing: true) }
        XCTAssertNotNil(context, "libcrypto.so.3 could not be opened")
    }

    /// The in-place path (OpenSSL from ``NoiseCipherState/largeFrame`` on)
    /// seals exactly as libsodium's reference call, at every size that
    /// matters: empty, small, either side of the threshold, a full frame.
    func testInPlaceSealingMatchesTheReferenceAtEverySize() throws {
        let threshold = NoiseCipherState.largeFrame
        for size in [0, 1, 100, threshold - 1, threshold, threshold + 1, 4096, 65_519] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
            var reference = NoiseCipherState(key: key)
            var inPlace = NoiseCipherState(key: key)
            // Three frames each: the nonce moves on alike on both paths.
            for round in 0..<3 {
                let expected = try reference.encrypt(ad: [], plaintext)
                var frame = [9, 9] + plaintext + [UInt8](repeating: 0, count: NoiseCipherState.tagLength)
                try inPlace.sealInPlace(&frame, offset: 2, count: size)
                XCTAssertEqual(Array(frame[2...]), expected, "size \(size), frame \(round)")
                XCTAssertEqual(frame[0..<2], [9, 9], "the bytes before the plaintext are untouched")
            }
        }
    }

    /// Each path opens what the other sealed, and a flipped bit fails on both.
    func testEachPathOpensTheOthersFramesAndRejectsTampering() throws {
        for size in [10, NoiseCipherState.largeFrame + 5, 65_519] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
            var sealer = NoiseCipherState(key: key)
            let sealed = try sealer.encrypt(ad: [], plaintext)
            var opener = NoiseCipherState(key: key)
            var copy = sealed
            let count = try copy.withUnsafeMutableBytes { try opener.openInPlace($0) }
            XCTAssertEqual(Array(copy[0..<count]), plaintext, "size \(size)")

            var tampered = sealed
            tampered[size / 2] ^= 0x40
            var strict = NoiseCipherState(key: key)
            XCTAssertThrowsError(try tampered.withUnsafeMutableBytes { try strict.openInPlace($0) }, "size \(size)") {
                XCTAssertEqual($0 as? NoiseError, .decryptFailed)
            }
            // The nonce did not move: the genuine frame still opens.
            var genuine = sealed
            XCTAssertEqual(try genuine.withUnsafeMutableBytes { try strict.openInPlace($0) }, size)
        }
    }

    /// A copy of a cipher state does not share OpenSSL's context with the
    /// original (copy on write): both go on sealing their own frames alike.
    func testACopiedStateSealsOnItsOwn() throws {
        let plaintext = [UInt8](repeating: 0xA5, count: 8192)
        var original = NoiseCipherState(key: key)
        var frame = plaintext + [UInt8](repeating: 0, count: 16)
        try original.sealInPlace(&frame, offset: 0, count: plaintext.count)
        var copy = original
        var a = plaintext + [UInt8](repeating: 0, count: 16), b = a
        try original.sealInPlace(&a, offset: 0, count: plaintext.count)
        try copy.sealInPlace(&b, offset: 0, count: plaintext.count)
        XCTAssertEqual(a, b, "the same key and nonce give the same frame")
        var reference = NoiseCipherState(key: key)
        _ = try reference.encrypt(ad: [], plaintext)
        XCTAssertEqual(a, try reference.encrypt(ad: [], plaintext))
    }
}
