import Dispatch
import Glibc
import PeerSystem
import CPoll
import Synchronization

/// The process's one epoll instance and the loop that waits on it, as
/// `DispatchQueue.main` is its one main queue. Every connection's
/// descriptor is watched here (``PollChannel``), not by Dispatch sources:
/// libdispatch's epoll backend on Linux traps ("Source finalized twice")
/// or reads freed memory when sources on short-lived descriptors are
/// cancelled and the numbers reused quickly, which a peer or a local
/// program can make happen at will (docs/architecture.md, "Watching
/// descriptors").
///
/// Two ways to wait, one per kind of process:
/// - **peerd** (``runOnMainThread()``): the main thread waits on the epoll
///   instance itself, with the main queue's wake descriptor among the
///   descriptors (issue 43, point 2: NIO's event-loop shape). A report is
///   handed to its channel right there, on the main actor's own thread,
///   and when the descriptor says work is queued for the main queue, the
///   loop drains it (libdispatch's run-loop hooks, as Core Foundation's
///   run loop does on Linux). A descriptor's readiness and the actor's
///   work share one thread, with no hop between two.
/// - **Anything else** (the tests, whose main thread XCTest's run loop
///   owns): a thread of its own (`peerd-poll`) waits and forwards each
///   batch of reports to the main queue in one block.
///
/// Either way ``PollTable`` hands each report to its channel by token.
/// Registrations are one-shot, so a descriptor has at most one report on
/// its way at a time and the forwarding is bounded by the number of
/// descriptors, not by how busy they are.
package final class Poller: Sendable {
    /// Its thread's name (`top -H`; pinned by a lab test).
    package static let threadName = "peerd-poll"

    /// The one poller, started on first use.
    @MainActor package static let main = Poller()

    /// The epoll instance.
    let epoll: Epoll
    /// The main-actor side: tokens to channels.
    let table: PollTable

    /// Set by ``claimMainThread()`` before the poller is first used: the
    /// main thread will wait, so no thread of its own is started.
    private static let mainThreadWaits = Atomic(false)

    /// The token of the main queue's wake descriptor (channels' tokens
    /// start at 1, ``PollTable``).
    private static let mainQueueToken: UInt64 = 0

    @MainActor private init() {
        do { epoll = try Epoll() } catch { fatalError("peerd cannot watch descriptors: \(error)") }
        table = PollTable()
        guard !Self.mainThreadWaits.load(ordering: .acquiring) else { return }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, pollerThreadMain, context)
        guard started == 0 else { fatalError("peerd cannot start its poller thread: \(SystemError("pthread_create", errno: started))") }
        pthread_detach(thread)
    }

    /// Says, before the first descriptor is watched, that the main thread
    /// will wait on the poller (``runOnMainThread()``): peerd's main calls
    /// it first thing, so the poller never starts a thread of its own.
    package static func claimMainThread() {
        mainThreadWaits.store(true, ordering: .releasing)
    }

    /// The main thread's loop, for the life of the process, in place of
    /// `dispatchMain()`: waits on the epoll instance, hands each report to
    /// its channel, and drains the main queue (the main actor's jobs, the
    /// main-queue timers and signal sources, what other threads post) when
    /// its wake descriptor is readable. The main queue stays bound to the
    /// main thread, so the main actor's isolation holds here.
    package static func runOnMainThread() -> Never {
        precondition(mainThreadWaits.load(ordering: .acquiring), "claimMainThread() first")
        let poller = MainActor.assumeIsolated { Poller.main }
        let wake = FileDescriptor(rawValue: _dispatch_get_main_queue_handle_4CF())
        do { try poller.epoll.addLasting(wake, for: .readable, token: mainQueueToken) } catch {
            fatalError("peerd cannot watch its main queue: \(error)")
        }
        // Work queued before the loop began has already poked the descriptor.
        while true {
            var reports: [Epoll.Report]
            do { reports = try poller.epoll.wait(timeout: -1) } catch {
                fatalError("peerd's main loop stopped: \(error)")
            }
            var mainQueueWoke = false
            if let index = reports.firstIndex(where: { $0.token == mainQueueToken }) {
                reports.remove(at: index)
                mainQueueWoke = true
            }
            if !reports.isEmpty {
                let batch = reports
                MainActor.assumeIsolated { poller.table.deliver(batch) }
            }
            if mainQueueWoke {
                _ = peerd_eventfd_drain(wake.rawValue)
                _dispatch_main_queue_callback_4CF(nil)
            }
        }
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
