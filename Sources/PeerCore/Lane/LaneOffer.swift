internal import PeerProtocol

/// `laneOffer` (type 0x33, feature `bulk-lane`; docs/protocol.md §12):
/// the session's responder tells its initiator where to open the bulk
/// lane. The feature registers the type with the session
/// (``WireMessage/feature(type:body:)``) and reads the body here. Layout
/// after `version · type`: `port` u16 · `token` (16 bytes).
///
/// A `port` of 0 says the responder has no lane to offer (its lane port
/// could not be opened): bulk stays on the session. The token is fresh
/// random bytes for each session: the lane's first frame names it, so
/// the responder finds the session the lane is for, and it is bound into
/// the lane's handshake (``LaneGreeting/prologue(token:)``).
package struct LaneOffer: Equatable, Sendable {
    /// The type, pinned by tests.
    package static let type: UInt8 = 0x33
    /// The token's length.
    package static let tokenLength = 16

    /// The responder's lane port; 0: no lane.
    package var port: UInt16
    /// The session's lane token.
    package var token: [UInt8]

    /// An offer of `port` under `token` (16 bytes).
    package init(port: UInt16, token: [UInt8]) {
        precondition(token.count == Self.tokenLength, "a lane token is 16 bytes")
        self.port = port
        self.token = token
    }

    /// The message as the session carries it.
    package var wire: WireMessage {
        var body: [UInt8] = []
        BigEndian.append(UInt64(port), width: 2, to: &body)
        body += token
        return .feature(type: Self.type, body: body)
    }

    /// Reads a body, checking every length as the session's codec does.
    package static func decode(_ body: [UInt8]) throws(WireError) -> LaneOffer {
        var reader = ByteReader(body)
        let port = try reader.u16("laneOffer port")
        let token = try reader.bytes(tokenLength, "laneOffer token")
        guard reader.isAtEnd else { throw .trailingBytes("laneOffer") }
        return LaneOffer(port: port, token: token)
    }
}
