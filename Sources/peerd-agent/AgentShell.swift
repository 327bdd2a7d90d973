import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// The agent's shell (issue 45, point 2): feeds the daemon's events, the
/// server's signals and the clock to its ``NotificationPlanner`` and
/// performs what it decides, on the main actor. It holds no decision of
/// its own.
@MainActor
final class AgentShell {
    private var planner = NotificationPlanner()
    private let client: PeerClient
    private let bus: NotificationBus
    private let now: @Sendable () -> Date
    /// What opens the app on an offer or a pairing (`--app`), with the id as its last word.
    private let appCommand: [String]
    /// The user's download folder ("Save to Downloads" puts a peer's files
    /// in a folder named after it there).
    private let userDownloads: String?

    /// A shell over `client` and `bus`; `now` is its clock.
    init(client: PeerClient, bus: NotificationBus, appCommand: [String], userDownloads: String?, now: @escaping @Sendable () -> Date) {
        (self.client, self.bus, self.appCommand, self.userDownloads, self.now) = (client, bus, appCommand, userDownloads, now)
    }

    /// Runs until the daemon's events end for good (an error) or the process is stopped.
    func run() async throws {
        planner.capabilities(try await bus.capabilities())
        log("notification server: \(planner.serverHasActions ? "with" : "without") actions, \(planner.serverReadsMarkup ? "with" : "without") markup")
        let signals = bus.signals
        Task { @MainActor in
            for await signal in signals { await self.handle(signal) }
        }
        Task { @MainActor in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await self.perform(self.planner.tick(now: self.now()))
            }
        }
        var events = client.events().makeAsyncIterator()
        // What waits already, once the subscription is made (an offer that
        // comes meanwhile is shown once: a second showing updates it in place).
        Task { @MainActor in await self.catchUp() }
        while let event = try await events.next() {
            switch event {
            case .event(let event): await perform(planner.event(event, now: now()))
            case .gap(let gap):
                log("missed daemon events: \(gap)")
                await catchUp()
            }
        }
    }

    /// Shows what waits for an answer now (at start, and after missed events).
    private func catchUp() async {
        do {
            let invitations = try await client.invitations()
            let transfers = try await client.transfers()
            await perform(planner.waiting(invitations: invitations, transfers: transfers, now: now()))
            // Quick Save transfers that landed while no agent ran (those the
            // daemon still lists): their files wait in its downloads.
            for transfer in transfers where transfer.state == .completed && transfer.acceptedBy == TransferAcceptance.quickSave.rawValue && transfer.app == nil {
                guard let folder = transfer.folder else { continue }
                await perform([.moveFiles(transfer: transfer.id, peer: transfer.peer, name: transfer.name, folder: folder, byRule: true)])
            }
        } catch {
            log("cannot list what waits: \(error)")
        }
    }

    private func handle(_ signal: BusSignal) async {
        switch signal {
        case .actionInvoked(let id, let action): await perform(planner.invoked(id, action: action))
        case .closed(let id): planner.closed(id)
        }
    }

    /// Performs `actions` in order; a failure is logged and the rest go on.
    private func perform(_ actions: [AgentAction]) async {
        for action in actions {
            do {
                switch action {
                case .notify(let request):
                    planner.shown(request.key, id: try await bus.notify(request))
                case .close(let id):
                    try await bus.close(id)
                case .acceptInvitation(let id): _ = try await client.accept(id)
                case .declineInvitation(let id): _ = try await client.decline(id)
                case .acceptTransfer(let id): try await client.acceptTransfer(id)
                case .declineTransfer(let id): try await client.declineTransfer(id)
                case .openFolder(let path): spawn(["xdg-open", path])
                case .openApp(let id): spawn(appCommand + [id])
                case .moveFiles(let transfer, let peer, let name, let folder, let byRule):
                    let into: String
                    if byRule {
                        // The rule is read now: set, changed or cleared since the offer.
                        guard let rule = try await client.paired().first(where: { $0.uuid == peer })?.quickSave, rule.uid == getuid() else { continue }
                        into = rule.folder
                    } else {
                        guard let userDownloads else {
                            log("no home folder (HOME, XDG_DOWNLOAD_DIR) to save the files of '\(name)' in")
                            continue
                        }
                        into = UserDownloads.target(for: folder, downloads: userDownloads)
                    }
                    let moved: FetchSummary
                    do { moved = try await client.fetch(folder: folder, into: into) } catch {
                        log("moving the files of '\(name)' into \(into): \(error)")
                        await perform(planner.moveFailed(transfer: transfer, peer: peer, name: name, folder: folder, into: into,
                                                         reason: "\(error)", byRule: byRule, now: now()))
                        continue
                    }
                    for failure in moved.failed { log("moving the files of '\(name)': \(failure.path): \(failure.error)") }
                    await perform(planner.moved(transfer: transfer, peer: peer, name: name, into: into, files: moved.files,
                                                bytes: moved.bytes, failed: moved.failed.count, byRule: byRule, now: now()))
                }
            } catch {
                log("\(action): \(error)")
            }
        }
    }

    /// Starts `argv` and lets it run on its own (its end is not waited for).
    private func spawn(_ argv: [String]) {
        guard Subprocess.start(argv, outputPath: "/dev/null") != nil else { return log("cannot start \(argv.joined(separator: " "))") }
    }

    private func log(_ words: String) { agentLog(words) }
}
