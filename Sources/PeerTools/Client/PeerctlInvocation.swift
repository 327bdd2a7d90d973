import PeerProtocol

/// A parsed `peerctl` command line.
package struct PeerctlInvocation: Equatable, Sendable {
    /// `--socket`, if given.
    package var socket: String?
    /// `--json`: machine output, one JSON object per line for `watch`.
    package var json = false
    /// `--app NAME`: the app this command registers and acts as, for as
    /// long as it runs (issue 23); nil is the default app.
    package var app: String?
    /// What to do.
    package var command: PeerctlCommand

    /// The overview shown by `peerctl --help`.
    package static let helpText = """
    Usage: peerctl [--socket PATH] [--json] [--app NAME] COMMAND [ARGS]

    Queries peerd, the peer-to-peer LAN discovery daemon, over its control socket.

    Discovery:
      peers         every peer found, one row each
      peer ID       one peer, by UUID, unique UUID prefix or unique name
      add HOST[:PORT]
                    reach a peer mDNS cannot show (another subnet, a VPN, AP
                    isolation) by address [--context TEXT] [--timeout S] [--wait]
      watch         stream events (peers, states, invitations, messages)
      top           live view: peers on the left, the selected one in full

    Sessions:
      invite PEER   invite a peer to a session [--context TEXT] [--timeout S] [--wait]
      invitations   the invitations waiting for a decision here
      accept ID     accept an invitation (ID or a unique prefix)
      decline ID    decline an invitation
      disconnect PEER
                    close the session with a peer
      wait PEER --state STATE
                    wait until PEER is notConnected, connecting or connected
      send PEER TEXT|-
                    send a message (- reads it from stdin; --lines: one per line;
                    --queue: store it for an offline paired peer); PEER PEER...
                    TEXT, or --all TEXT (every connected peer), for several
      queue         messages waiting for offline paired peers
      recv          print messages: the inbox's first, then as they arrive
                    [--from PEER] [--count N]
      inbox         list messages that arrived while no client took them
                    [--from PEER] [--max N]
      take          print and take messages from the inbox, without waiting
                    [--from PEER] [--count N]

    Pairing:
      pair PEER     pair with a peer: shows a 6-digit code to confirm on PEER
      pair-accept ID [--code NNNNNN]
                    confirm a pairing request with the code shown on the other host
      pair-reject ID
                    reject a pairing request
      pairings      pairings in progress
      paired        the paired (trusted) peers
      unpair PEER   remove trust here, and tell PEER

    Transfers:
      send-file PEER PATH...
                    offer files and directories; shows progress until done
                    [--resume ID] [--no-wait]
      transfers [ID]
                    transfers in progress and recent ones (ID: with its files)
      accept-transfer ID [--files N,N,...]
                    accept an offer (all files, or those numbered)
      decline-transfer ID
                    decline an offer
      cancel-transfer ID
                    cancel a transfer, either direction
      downloads [FOLDER]
                    what landed in peerd's download directory (FOLDER: a peer's)
      fetch FOLDER[/PATH] [--into DIR] [--keep]
                    move landed files into DIR (default: your download
                    folder, in a folder named after FOLDER's last part)
      quick-save PEER DIR | --off
                    accept PEER's files without asking; your 'peerd-agent'
                    moves them into DIR (PEER must be paired)
      pipe PEER [--name N]
                    join stdin and stdout to a two-way stream with PEER, where
                    'peerctl pipe' runs with the same name (netcat, encrypted)

    Datagrams (sent now or dropped, never queued; at most 1,200 bytes):
      dgram send PEER TEXT|- [--lines] [--fallback]
                    send one datagram (stdin with -; each line one with --lines;
                    in the session when UDP does not cross, with --fallback)
      dgram recv [--count N]
                    print datagrams as they arrive, and how many were lost

    Apps:
      apps          the apps registered on this host: name, holder, clients, info
      apps add NAME [--info K=V]...
                    declare an app: published and kept across restarts
      apps remove NAME
                    remove a declared app

    Diagnostics:
      status        the daemon's name, peer id, port, Avahi link and counts
      doctor [PEER] check why peers (or PEER) cannot be seen or reached; each
                    check with its fix; exit 1 when one fails

    Global options:
      --socket PATH   the control socket (default: $PEERD_SOCKET, else
                      /run/peerd/peerd.sock)
      --app NAME      register app NAME while the command runs, and act as it:
                      send, recv, take and inbox send, take and list NAME's
                      messages alone; invite, invitations, accept, decline
                      and disconnect act on NAME's own state with the peer;
                      send-file, pipe, transfers, accept-transfer,
                      decline-transfer and cancel-transfer act on NAME's
                      files and streams alone;
                      peers shows NAME's peers and states; watch shows events
                      about them; doctor PEER checks that PEER runs it and
                      is connected in it; top ignores it
      --json          machine-readable output; `watch --json` prints one
                      object per line, `send --json` one result (session,
                      number) per message
      -h, --help      this help; `peerctl COMMAND --help` for a command's
      --version       print the release, then the wire version and features

    Exit status: 0 ok, 1 operational error, 2 usage error, 3 daemon unreachable
    (no socket, no permission, or no answer within 30 s).
    """

    /// Help for one command (``PeerctlHelp``).
    package static func help(for command: String) -> String? { PeerctlHelp.text(for: command) }

    /// Parses `peerctl`'s arguments (without the program name).
    package static func parse(_ arguments: [String]) throws(UsageError) -> PeerctlInvocation {
        var cursor = ArgumentCursor(arguments)
        var socket: String?
        var json = false
        var app: String?
        var info: [String] = []
        var name: String?
        var positionals: [String] = []
        var since: UInt64?
        var wantsHelp = false
        var context: String?
        var timeout: Double?
        var wait = false
        var lines = false
        var fallback = false
        var from: String?
        var count: Int?
        var state: ConnectionState?
        var code: String?
        var queue = false
        var all = false
        var resume: String?
        var noWait = false
        var files: [Int]?
        var streamName = "pipe"
        var into: String?
        var keep = false
        var off = false
        while let token = try cursor.next() {
            switch token {
            case .positional(let word):
                if name == nil { name = word } else { positionals.append(word) }
            case .option(let option):
                switch option {
                case "--socket": socket = try cursor.value(for: option)
                case "--app":
                    let text = try cursor.value(for: option)
                    do { app = try AppName(text).text } catch { throw UsageError("--app '\(text)': \(error)") }
                case "--info" where name == "apps":
                    let pair = try cursor.value(for: option)
                    guard pair.contains("=") else { throw UsageError("--info '\(pair)': expected KEY=VALUE") }
                    info.append(pair)
                case "--json":
                    try cursor.flag(option)
                    json = true
                case "-h", "--help":
                    try cursor.flag(option)
                    wantsHelp = true
                case "--version":
                    try cursor.flag(option)
                    return PeerctlInvocation(socket: socket, json: json, app: app, command: .version)
                case "--since" where name == "watch":
                    let text = try cursor.value(for: option)
                    guard let number = UInt64(text) else { throw UsageError("--since '\(text)' is not a sequence number") }
                    since = number
                case "--code" where name == "pair-accept":
                    let text = try cursor.value(for: option)
                    guard PairingCode.isWellFormed(text) else { throw UsageError("--code '\(text)' is not 6 digits") }
                    code = text
                case "--context" where name == "invite" || name == "add":
                    context = try cursor.value(for: option)
                case "--timeout" where name == "invite" || name == "wait" || name == "add":
                    let text = try cursor.value(for: option)
                    guard let seconds = Double(text), seconds > 0, seconds <= 86400 else { throw UsageError("--timeout '\(text)' is not a number of seconds") }
                    timeout = seconds
                case "--wait" where name == "invite" || name == "add":
                    try cursor.flag(option)
                    wait = true
                case "--fallback" where name == "dgram":
                    try cursor.flag(option)
                    fallback = true
                case "--lines" where name == "send" || name == "dgram":
                    try cursor.flag(option)
                    lines = true
                case "--queue" where name == "send":
                    try cursor.flag(option)
                    queue = true
                case "--all" where name == "send":
                    try cursor.flag(option)
                    all = true
                case "--from" where name == "recv" || name == "inbox" || name == "take":
                    from = try cursor.value(for: option)
                case "--count" where name == "recv" || name == "take" || name == "dgram":
                    count = try cursor.integer(for: option, in: 1...Int(Int32.max))
                case "--max" where name == "inbox":
                    count = try cursor.integer(for: option, in: 1...10_000)
                case "--resume" where name == "send-file":
                    let text = try cursor.value(for: option)
                    guard FlowID(hex: text) != nil else { throw UsageError("--resume '\(text)' is not a transfer id (32 hexadecimal digits)") }
                    resume = text.lowercased()
                case "--name" where name == "pipe":
                    streamName = try cursor.value(for: option)
                    guard !streamName.isEmpty, streamName.utf8.count <= 255 else { throw UsageError("--name must be 1 to 255 bytes") }
                case "--no-wait" where name == "send-file":
                    try cursor.flag(option)
                    noWait = true
                case "--files" where name == "accept-transfer":
                    let text = try cursor.value(for: option)
                    let numbers = text.split(separator: ",").map { Int($0.filter { $0 != " " }) }
                    guard !numbers.isEmpty, numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                        throw UsageError("--files '\(text)': expected file numbers, such as 0,2,5 (see 'peerctl transfers ID')")
                    }
                    files = numbers.compactMap { $0 }
                case "--into" where name == "fetch":
                    into = try cursor.value(for: option)
                case "--keep" where name == "fetch":
                    try cursor.flag(option)
                    keep = true
                case "--off" where name == "quick-save":
                    try cursor.flag(option)
                    off = true
                case "--state" where name == "wait":
                    let text = try cursor.value(for: option)
                    guard let parsed = ConnectionState(rawValue: text) else {
                        throw UsageError("--state '\(text)': expected notConnected, connecting or connected")
                    }
                    state = parsed
                default:
                    throw UsageError("unknown option '\(option)'\(name.map { " for '\($0)'" } ?? "") (see peerctl --help)")
                }
            }
        }
        if wantsHelp { return PeerctlInvocation(socket: socket, json: json, app: app, command: .help(name)) }
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
        case "invite":
            guard positionals.count == 1 else { throw UsageError("'invite' takes one PEER") }
            command = .invite(peer: positionals[0], context: context, timeout: timeout, wait: wait)
        case "invitations":
            guard positionals.isEmpty else { throw UsageError("'invitations' takes no arguments") }
            command = .invitations
        case "accept", "decline", "disconnect":
            guard positionals.count == 1 else { throw UsageError("'\(name)' takes one \(name == "disconnect" ? "PEER" : "invitation ID")") }
            command = name == "accept" ? .accept(positionals[0]) : name == "decline" ? .decline(positionals[0]) : .disconnect(positionals[0])
        case "send" where all || positionals.count > 2:
            guard !lines else { throw UsageError("--lines is for one PEER") }
            if all {
                guard positionals.count == 1 else { throw UsageError("'send --all' takes TEXT (or - for stdin), and no PEER") }
                command = .groupSend(peers: nil, text: positionals[0], queue: queue)
            } else {
                command = .groupSend(peers: Array(positionals.dropLast()), text: positionals[positionals.count - 1], queue: queue)
            }
        case "send":
            guard positionals.count == 2 else { throw UsageError("'send' takes PEER and TEXT (or - for stdin); PEER PEER... TEXT, or --all TEXT, for several") }
            guard !lines || positionals[1] == "-" else { throw UsageError("--lines reads stdin: use 'send PEER - --lines'") }
            command = .send(peer: positionals[0], text: positionals[1], lines: lines, queue: queue)
        case "queue":
            guard positionals.isEmpty else { throw UsageError("'queue' takes no arguments") }
            command = .queue
        case "recv":
            guard positionals.isEmpty else { throw UsageError("'recv' takes no arguments") }
            command = .recv(from: from, count: count)
        case "inbox", "take":
            guard positionals.isEmpty else { throw UsageError("'\(name)' takes no arguments") }
            command = name == "inbox" ? .inbox(from: from, max: count) : .take(from: from, count: count)
        case "wait":
            guard positionals.count == 1 else { throw UsageError("'wait' takes one PEER") }
            guard let state else { throw UsageError("'wait' needs --state notConnected|connecting|connected") }
            command = .wait(peer: positionals[0], state: state, timeout: timeout)
        case "pair", "unpair", "pair-reject":
            guard positionals.count == 1 else { throw UsageError("'\(name)' takes one \(name == "pair-reject" ? "pairing ID" : "PEER")") }
            command = name == "pair" ? .pair(positionals[0]) : name == "unpair" ? .unpair(positionals[0]) : .pairReject(positionals[0])
        case "pair-accept":
            guard positionals.count == 1 else { throw UsageError("'pair-accept' takes one pairing ID") }
            command = .pairAccept(id: positionals[0], code: code)
        case "pairings", "paired":
            guard positionals.isEmpty else { throw UsageError("'\(name)' takes no arguments") }
            command = name == "pairings" ? .pairings : .paired
        case "send-file":
            guard positionals.count >= 2 else { throw UsageError("'send-file' takes PEER and at least one PATH") }
            command = .sendFile(peer: positionals[0], paths: Array(positionals.dropFirst()), resume: resume, wait: !noWait)
        case "dgram":
            switch positionals.first {
            case "send":
                guard positionals.count == 3, count == nil else { throw UsageError("'dgram send' takes PEER and TEXT (or - for stdin)") }
                guard !lines || positionals[2] == "-" else { throw UsageError("--lines reads stdin: use 'dgram send PEER - --lines'") }
                guard !(lines && fallback) else { throw UsageError("--fallback is for one datagram at a time, without --lines") }
                command = .dgramSend(peer: positionals[1], text: positionals[2], lines: lines, fallback: fallback)
            case "recv":
                guard positionals.count == 1, !lines, !fallback else { throw UsageError("'dgram recv' takes no arguments but --count") }
                command = .dgramRecv(count: count)
            default:
                throw UsageError("'dgram' takes 'send PEER TEXT' or 'recv'; see 'peerctl dgram --help'")
            }
        case "pipe":
            guard positionals.count == 1 else { throw UsageError("'pipe' takes one PEER") }
            command = .pipe(peer: positionals[0], name: streamName)
        case "downloads":
            guard positionals.count <= 1 else { throw UsageError("'downloads' takes at most one FOLDER") }
            command = .downloads(folder: positionals.first ?? "")
        case "fetch":
            guard positionals.count == 1 else { throw UsageError("'fetch' takes one FOLDER (a peer's, from 'peerctl downloads'), or FOLDER/PATH") }
            command = .fetch(folder: positionals[0], into: into, keep: keep)
        case "quick-save":
            guard positionals.count == (off ? 1 : 2) else {
                throw UsageError("'quick-save' takes PEER and a FOLDER, or PEER and --off")
            }
            command = .quickSave(peer: positionals[0], folder: off ? nil : positionals[1])
        case "transfers":
            guard positionals.count <= 1 else { throw UsageError("'transfers' takes at most one transfer ID") }
            command = .transfers(positionals.first)
        case "accept-transfer", "decline-transfer", "cancel-transfer":
            guard positionals.count == 1 else { throw UsageError("'\(name)' takes one transfer ID (or a unique prefix)") }
            guard files == nil || name == "accept-transfer" else { throw UsageError("--files is for accept-transfer") }
            command = name == "accept-transfer" ? .acceptTransfer(id: positionals[0], files: files)
                : name == "decline-transfer" ? .declineTransfer(positionals[0]) : .cancelTransfer(positionals[0])
        case "add":
            guard positionals.count == 1 else { throw UsageError("'add' takes one HOST[:PORT]") }
            do { command = .add(address: try PeerAddress.parse(positionals[0]), context: context, timeout: timeout, wait: wait) } catch {
                throw UsageError(error.description)
            }
        case "top":
            guard positionals.isEmpty else { throw UsageError("'top' takes no arguments") }
            command = .top
        case "doctor":
            guard positionals.count <= 1 else { throw UsageError("'doctor' takes at most one PEER") }
            command = .doctor(peer: positionals.first)
        case "apps":
            switch positionals.first {
            case nil:
                guard info.isEmpty else { throw UsageError("--info is for 'apps add'") }
                command = .apps
            case "add":
                guard positionals.count == 2 else { throw UsageError("'apps add' takes one NAME") }
                do { command = .appsAdd(name: try AppName(positionals[1]).text, info: info) } catch {
                    throw UsageError("app '\(positionals[1])': \(error)")
                }
            case "remove":
                guard positionals.count == 2, info.isEmpty else { throw UsageError("'apps remove' takes one NAME") }
                command = .appsRemove(positionals[1])
            case let other?:
                throw UsageError("'apps \(other)': expected 'apps', 'apps add NAME' or 'apps remove NAME'")
            }
        case "help":
            command = .help(positionals.first)
        default:
            throw UsageError("unknown command '\(name)' (one of: \(PeerctlCommand.names.joined(separator: ", ")))")
        }
        return PeerctlInvocation(socket: socket, json: json, app: app, command: command)
    }
}
