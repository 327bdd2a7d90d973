/// A parsed `peerctl` command line.
public struct PeerctlInvocation: Equatable, Sendable {
    /// `--socket`, if given.
    public var socket: String?
    /// `--json`: machine output, one JSON object per line for `watch`.
    public var json = false
    /// What to do.
    public var command: PeerctlCommand

    /// The overview shown by `peerctl --help`.
    public static let helpText = """
    Usage: peerctl [--socket PATH] [--json] COMMAND [ARGS]

    Queries peerd, the peer-to-peer LAN discovery daemon, over its control socket.

    Commands:
      status        the daemon's name, peer id, port, Avahi link and counts
      peers         every peer found, one row each
      peer ID       one peer, by UUID, unique UUID prefix or unique name
      watch         stream peerFound, peerUpdated and peerLost events

    Global options:
      --socket PATH   the control socket (default: $PEERD_SOCKET, else
                      /run/peerd/peerd.sock)
      --json          machine-readable output; `watch --json` prints one
                      object per line
      -h, --help      this help; `peerctl COMMAND --help` for a command's
      --version       print the version

    Exit status: 0 ok, 1 operational error, 2 usage error, 3 daemon unreachable.
    """

    /// Help for one command.
    public static func help(for command: String) -> String? {
        switch command {
        case "status":
            return """
            Usage: peerctl [--json] status

            Shows the name in use (after any collision rename), the peer id, the
            service type and session port, whether the service is published, the
            link to avahi-daemon, and peer counts.
            """
        case "peers":
            return """
            Usage: peerctl [--json] peers

            Lists every peer: UUID, name, state, where it is reachable, and when it
            was last seen. A peer that went away stays listed as lost and keeps its
            UUID when it returns.
            """
        case "peer":
            return """
            Usage: peerctl [--json] peer ID

            Shows one peer with all its endpoints and TXT info. ID is a full UUID,
            a unique prefix of one, or a unique name.
            """
        case "watch":
            return """
            Usage: peerctl [--json] watch [--since N]

            Streams events until interrupted: peerFound, peerUpdated, peerLost.
            Every event has a sequence number; --since N first replays the events
            after N that the daemon still holds. With --json, one object per line.
            """
        default:
            return nil
        }
    }

    /// Parses `peerctl`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> PeerctlInvocation {
        var cursor = ArgumentCursor(arguments)
        var socket: String?
        var json = false
        var name: String?
        var positionals: [String] = []
        var since: UInt64?
        var wantsHelp = false
        while let token = try cursor.next() {
            switch token {
            case .positional(let word):
                if name == nil { name = word } else { positionals.append(word) }
            case .option(let option):
                switch option {
                case "--socket": socket = try cursor.value(for: option)
                case "--json":
                    try cursor.flag(option)
                    json = true
                case "-h", "--help":
                    try cursor.flag(option)
                    wantsHelp = true
                case "--version":
                    try cursor.flag(option)
                    return PeerctlInvocation(socket: socket, json: json, command: .version)
                case "--since" where name == "watch":
                    let text = try cursor.value(for: option)
                    guard let number = UInt64(text) else { throw UsageError("--since '\(text)' is not a sequence number") }
                    since = number
                default:
                    throw UsageError("unknown option '\(option)'\(name.map { " for '\($0)'" } ?? "") (see peerctl --help)")
                }
            }
        }
        if wantsHelp { return PeerctlInvocation(socket: socket, json: json, command: .help(name)) }
        guard let name else { throw UsageError("no command given (one of: \(PeerctlCommand.names.joined(separator: ", ")))") }
        let command: PeerctlCommand
        switch name {
        case "status", "peers":
            guard positionals.isEmpty else { throw UsageError("'\(name)' takes no arguments") }
            command = name == "status" ? .status : .peers
        case "peer":
            guard positionals.count == 1 else { throw UsageError("'peer' takes one ID: a UUID, a unique UUID prefix or a unique name") }
            command = .peer(positionals[0])
        case "watch":
            guard positionals.isEmpty else { throw UsageError("'watch' takes no arguments") }
            command = .watch(since: since)
        case "help":
            command = .help(positionals.first)
        default:
            throw UsageError("unknown command '\(name)' (one of: \(PeerctlCommand.names.joined(separator: ", ")))")
        }
        return PeerctlInvocation(socket: socket, json: json, command: command)
    }
}
