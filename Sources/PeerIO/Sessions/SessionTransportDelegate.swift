/// What a ``SessionTransport`` reports to its session.
@MainActor
package protocol SessionTransportDelegate: AnyObject {
    /// A dial's TCP connect completed.
    func transportConnected()
    /// A dial's TCP connect failed, for `reason` (the system's words).
    func transportConnectFailed(_ reason: String)
    /// Bytes arrived (whole frames or not): the peer is alive.
    func transportBytesArrived()
    /// One whole frame arrived: a view into the transport's read buffer,
    /// which the session may decrypt in place, valid only during the call.
    /// Returns whether to go on reading.
    func transportReceived(_ frame: UnsafeMutableRawBufferPointer) -> Bool
    /// The connection ended or broke without a close frame.
    func transportBroke(_ why: String)
    /// A write left less than half of ``PeerSession/bulkHighWater`` queued.
    func transportHasRoom()
    /// The peer sent something that is not a frame (a bad length).
    func transportCorrupt(_ why: String)
}
