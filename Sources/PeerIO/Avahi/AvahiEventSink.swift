/// Where the C trampolines put events: an ordered stream, tagged with the
/// generation of the client whose objects point here.
///
/// One sink per Avahi client. Its address is the `userdata` of that client's
/// callbacks; the ``AvahiController`` keeps it alive until the client is
/// freed, after which Avahi makes no more calls with it.
package final class AvahiEventSink: Sendable {
    /// The client generation.
    package let generation: UInt64
    private let continuation: AsyncStream<AvahiBridgeEvent>.Continuation

    /// A sink for client `generation` feeding `continuation`.
    package init(generation: UInt64, continuation: AsyncStream<AvahiBridgeEvent>.Continuation) {
        self.generation = generation
        self.continuation = continuation
    }

    /// Queues an event. `yield` on an unbounded stream never blocks, so
    /// Avahi's thread is never held up by the daemon.
    package func send(_ event: AvahiBridgeEvent) {
        continuation.yield(event)
    }

    /// The `userdata` pointer handed to Avahi.
    package var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Recovers the sink from Avahi's `userdata`.
    package static func from(_ userdata: UnsafeMutableRawPointer?) -> AvahiEventSink? {
        guard let userdata else { return nil }
        return Unmanaged<AvahiEventSink>.fromOpaque(userdata).takeUnretainedValue()
    }
}
