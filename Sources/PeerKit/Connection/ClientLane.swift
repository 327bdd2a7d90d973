import Dispatch
import PeerProtocol
import Synchronization

/// One connection to the daemon and the one serial queue that uses it: the
/// blocking ``ControlClient`` turned into async calls without blocking
/// Swift's cooperative threads.
///
/// Its state is behind a `Mutex` the compiler checks; every use is a block
/// on `queue`, which is serial, so the lock is never contended and a call
/// holds it for the whole request, as the queue already orders them.
final class ClientLane: Sendable {
    /// The connection, when open, and the apps each new one registers
    /// (the daemon forgets a connection's apps when it goes).
    private struct State {
        var client: ControlClient?
        var registrations: [ControlParams] = []
    }

    private let queue: DispatchQueue
    private let state: Mutex<State>
    /// The socket it connects to.
    let path: String

    /// A lane to the daemon at `path`; it connects on first use.
    init(path: String, label: String) {
        self.path = path
        state = Mutex(State())
        queue = DispatchQueue(label: "PeerKit.\(label)")
    }

    /// A lane over a client connected already (tests: a socketpair).
    init(_ client: sending ControlClient, label: String) {
        path = client.path
        state = Mutex(State(client: client))
        queue = DispatchQueue(label: "PeerKit.\(label)")
    }

    /// Runs `body` with the client on the lane's queue, connecting first
    /// if need be.
    func run<T: Sendable>(_ body: @escaping @Sendable (ControlClient) throws(ControlClientError) -> T) async throws(PeerError) -> T {
        let outcome: Result<T, PeerError> = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, PeerError>, Never>) in
            queue.async { [self] in continuation.resume(returning: perform(body)) }
        }
        return try outcome.get()
    }

    /// On the queue: connects if need be, then runs `body`.
    private func perform<T: Sendable>(_ body: (ControlClient) throws(ControlClientError) -> T) -> Result<T, PeerError> {
        state.withLock { state in
            do throws(ControlClientError) {
                let connected: ControlClient
                if let client = state.client {
                    connected = client
                } else {
                    connected = try ControlClient(path: path)
                    for registration in state.registrations { _ = try connected.call(.register, params: registration) }
                    state.client = connected
                }
                return .success(try body(connected))
            } catch {
                // A broken connection is dropped: the next call connects again
                // (after a daemon restart) and registers the apps anew. The call
                // that met it fails: it may or may not have been done.
                if case .transport = error { state.client = nil }
                if case .noAnswer = error { state.client = nil }
                return .failure(PeerError(error))
            }
        }
    }

    /// From now on, every new connection of this lane registers `params`
    /// (an app, with its info) before anything else.
    func registerOnConnect(_ params: ControlParams) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                state.withLock { state in
                    state.registrations.removeAll { $0.app == params.app }
                    state.registrations.append(params)
                }
                continuation.resume()
            }
        }
    }

    /// One request.
    func call<R>(_ call: ControlCall<R>, _ params: ControlParams? = nil) async throws(PeerError) -> R {
        try await run { client throws(ControlClientError) in try client.call(call, params: params) }
    }
}
