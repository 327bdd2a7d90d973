/// The receiving side's memory of datagram counters (issue 26), as
/// WireGuard and DTLS keep it (RFC 6479's bitmap): the highest counter
/// accepted, and which of the ``size`` counters below it were seen.
///
/// Used in two steps, so that a forged datagram can never move it:
/// ``check(_:)`` before the datagram is opened (a duplicate or a counter
/// too old costs no decryption), and ``accept(_:)`` only once it opened.
/// Both are O(1) apart from a jump ahead, which clears at most the
/// bitmap's 32 words.
package struct DatagramReplayWindow: Sendable, Equatable {
    /// What ``check(_:)`` says of a counter.
    package enum Verdict: String, Sendable, Equatable {
        /// Not seen, and inside the window or ahead of it.
        case fresh
        /// Seen already: a replay, or the network's duplicate.
        case duplicate
        /// Older than the window remembers: it may be a replay, so it is dropped.
        case tooOld
        /// The largest counter, which no sender may use (its nonce would
        /// wrap): the key's life is over.
        case exhausted
    }

    /// Counters remembered below the highest, the highest included: the
    /// bitmap's 2,048 bits less one word, since the word the window moves
    /// into is cleared whole and shares its place in the ring with the
    /// oldest word (RFC 6479, §3).
    package static let size: UInt64 = 2_048 - 64
    private static let wordBits: UInt64 = 64
    private static let words = 32

    /// The highest counter accepted, if any.
    package private(set) var highest: UInt64?
    private var bitmap = [UInt64](repeating: 0, count: DatagramReplayWindow.words)

    /// A window that has seen nothing.
    package init() {}

    /// Whether `counter` may be opened.
    package func check(_ counter: UInt64) -> Verdict {
        guard counter != .max else { return .exhausted }
        guard let highest, counter <= highest else { return .fresh }
        if highest - counter >= Self.size { return .tooOld }
        return bitmap[Self.word(counter)] & Self.bit(counter) != 0 ? .duplicate : .fresh
    }

    /// `counter`'s datagram opened: it is remembered, and the window moves
    /// ahead when it is the highest. False, and nothing changes, when
    /// ``check(_:)`` would not say `fresh`.
    @discardableResult
    package mutating func accept(_ counter: UInt64) -> Bool {
        guard check(counter) == .fresh else { return false }
        if let highest, counter <= highest {
            bitmap[Self.word(counter)] |= Self.bit(counter)
            return true
        }
        // Ahead: clear the words the window moves past (all, for a jump
        // of the whole window or more), then mark.
        let from = highest.map { $0 / Self.wordBits + 1 } ?? 0
        let to = counter / Self.wordBits
        if highest == nil || (from <= to && to - from >= UInt64(Self.words)) {
            for index in bitmap.indices { bitmap[index] = 0 }
        } else if from <= to {
            for word in from...to { bitmap[Int(word % UInt64(Self.words))] = 0 }
        }
        bitmap[Self.word(counter)] |= Self.bit(counter)
        highest = counter
        return true
    }

    private static func word(_ counter: UInt64) -> Int { Int((counter / wordBits) % UInt64(words)) }
    private static func bit(_ counter: UInt64) -> UInt64 { 1 << (counter % wordBits) }
}
