import Dispatch
import Glibc
import PeerSystem

/// The process's one epoll instance and the thread that waits on it, as
/// `DispatchQueue.main` is its one main queue. Every connection's
/// descriptor is watched here (``PollChannel``), not by Dispatch sources:
/// libdispatch's epoll backend on Linux traps ("Source finalized twice")
/// or reads freed memory when sources on short-lived descriptors are
/// cancelled and the numbers reused quickly, which a peer or a local
/// program can make happen at will (docs/architecture.md, "Watching
/// descriptors").
///
/// The thread only waits and forwards: each batch of reports goes to the
/// main queue in one block, where ``PollTable`` hands each to its channel
/// by token. Registrations are one-shot, so a descriptor has at most one
/// report on its way at a time and the forwarding is bounded by the
/// number of descriptors, not by how busy they are.
package final class Poller: Sendable {
    /// Its thread's name (`top -H`; pinned by a lab test).
    package static let threadName = "peerd-poll"

    /// The one poller, started on first use.
    @MainActor package static let main = Poller()

    /// The epoll instance.
    let epoll: Epoll
    /// The main-actor side: tokens to channels.
    let table: PollTable

    @MainActor private init() {
        do { epoll = try Epoll() } catch { fatalError("peerd cannot watch descriptors: \(error)") }
        table = PollTable()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, pollerThreadMain, context)
        guard started == 0 else { fatalError("peerd cannot start its poller thread: \(SystemError("pthread_create", errno: started))") }
        pthread_detach(thread)
    }

    /// Waits and forwards, for the life of the process.
    fileprivate func run() -> Never {
        let table = table
        while true {
            let reports: [Epoll.Report]
            do { reports = try epoll.wait(timeout: -1) } catch {
                // Only a broken epoll descriptor gets here: nothing would be heard again.
                fatalError("peerd's poller stopped: \(error)")
            }
            guard !reports.isEmpty else { continue }
            DispatchQueue.main.async { MainActor.assumeIsolated { table.deliver(reports) } }
        }
    }
}

/// The poller thread's entry. At file scope and nonisolated: a closure made
/// in main-actor code and called from C traps.
private func pollerThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    ThreadName.set(Poller.threadName)
    Unmanaged<Poller>.fromOpaque(context!).takeUnretainedValue().run()
}
