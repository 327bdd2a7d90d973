import Dispatch
import PeerProtocol

/// One connection to the daemon and the one serial queue that uses it: the
/// blocking ``ControlClient`` turned into async calls without blocking
/// Swift's cooperative threads.
///
/// `@unchecked Sendable` is safe here: `client` is read and written only
/// inside blocks run on `queue`, which is serial, so no two threads ever
/// touch it at once.
final class ClientLane: @unchecked Sendable {
    private let queue: DispatchQueue
    private var client: ControlClient?
    /// The apps this lane's connection registers, each time it connects
    /// (the daemon forgets a connection's apps when it goes).
    private var registrations: [ControlParams] = []
    /// The socket it connects to.
    let path: String

    /// A lane to the daemon at `path`; it connects on first use.
    init(path: String, label: String) {
        self.path = path
        queue = DispatchQueue(label: "PeerKit.\(label)")
    }

    /// A lane over a client connected already (tests: a socketpair).
    init(_ client: ControlClient, label: String) {
        self.client = client
        path = client.path
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
    private func perform<T>(_ body: (ControlClient) throws(ControlClientError) -> T) -> Result<T, PeerError> {
        do throws(ControlClientError) {
            let connected: ControlClient
            if let client {
                connected = client
            } else {
                connected = try ControlClient(path: path)
                for registration in registrations { _ = try connected.call(.register, params: registration) }
                client = connected
            }
            return .success(try body(connected))
        } catch {
            // A broken connection is dropped: the next call connects again
            // (after a daemon restart) and registers the apps anew. The call
            // that met it fails: it may or may not have been done.
            if case .transport = error { client = nil }
            if case .noAnswer = error { client = nil }
            return .failure(PeerError(error))
        }
    }

    /// From now on, every new connection of this lane registers `params`
    /// (an app, with its info) before anything else.
    func registerOnConnect(_ params: ControlParams) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                registrations.removeAll { $0.app == params.app }
                registrations.append(params)
                continuation.resume()
            }
        }
    }

    /// One request.
    func call<R>(_ call: ControlCall<R>, _ params: ControlParams? = nil) async throws(PeerError) -> R {
        try await run { client throws(ControlClientError) in try client.call(call, params: params) }
    }
}
