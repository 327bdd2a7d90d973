import FoundationEssentials
import Glibc
import PeerCore
import PeerTools

// peerbench: issue 13's figures, each next to what it is compared with, in
// one run on the lab (Tests/bench/bench_lab.sh). `peerbench probe …` are
// the measuring ends it starts inside the lab's hosts.

let usage = """
usage: peerbench [--runs N] [--json] [--only WORDS] [--bulk-mib N] [--messages N] [--hosts N] [--pin] [--bin DIR]
       peerbench probe NAME ARGS…

Builds a two-host lab (network namespaces, avahi-daemon and peerd on each,
paired; sshd, iperf3 and a TCP echo server on host 2), then measures each
figure next to what it is compared with, the variants taking turns
(A B A B), and prints a table: the median of the runs, the least, the most,
and peerd's median over each other variant's. Needs root.

  --runs N        runs per figure (default 5)
  --json          the rows as JSON instead of the table
  --only WORDS    only figures whose name contains one of these
                  (comma-separated: rate, round trip, setup, bulk, discovery,
                  idle, peers, primitive, datagram, folder, desktop, wide-area; and scale, which the
                  default run leaves out: its own lab of --hosts
                  hosts, a few minutes, one run whose rows summarize
                  the hosts)
  --bulk-mib N    size of the bulk transfers (default 1024)
  --messages N    messages per message-rate run (default 200000)
  --hosts N       hosts in the scale lab (default 24)
  --pin           each peerd on a core of its own (taskset: host 1's on
                  core 0, host 2's on core 1), as on two real hosts; the
                  clients run anywhere, and the discovery figure's
                  restarted peerd is not pinned
  --bin DIR       where peerd, peerctl and peerbench are (default: beside this program)

Probes (run inside a lab host; each prints key=value words; --app NAME
first makes channel-send and channel-recv act for that app):
  channel-send SOCKET PEER COUNT SIZE   channel-recv SOCKET PEER COUNT
  channel-echo SOCKET PEER COUNT        channel-ping SOCKET PEER COUNT SIZE
  tcp-echo-server PORT                  tcp-ping HOST PORT COUNT SIZE
  tcp-connect HOST PORT COUNT           setup SOCKET PEER COUNT
  connect SOCKET PEER                   channel-raw SOCKET PEER HEX
  channel-ping-until SOCKET PEER STOPFILE SIZE
  wait-found SOCKET NAME                wait-line TEXT COMMAND…
  wait-peers SOCKET COUNT SECONDS       wait-sessions SOCKET COUNT SECONDS
  json-send SOCKET PEER COUNT SIZE      json-take SOCKET PEER COUNT
  peerkit-channel SOCKET PEER COUNT     peerkit-file SOCKET PEER PATH
  peerkit-echo SOCKET PEER COUNT        peerkit-pipe SOCKET PEER NAME TEXT
  peerkit-events SOCKET COUNT
  peerkit-dgram-recv SOCKET COUNT       peerkit-dgram-send SOCKET PEER COUNT
  dgram-echo SOCKET IDLE_SECONDS        dgram-ping SOCKET PEER COUNT SIZE
  dgram-recv SOCKET IDLE_SECONDS [PAUSE_US]
  dgram-send SOCKET PEER COUNT SIZE     dgram-pace SOCKET PEER RATE SECONDS
  dgram-ping-until SOCKET PEER STOPFILE SIZE
  udp-echo-server PORT                  udp-ping HOST PORT COUNT SIZE
  udp-flood HOST PORT RATE SECONDS
                                        (the peerkit-* probes: PeerKit against a daemon)
"""

/// Says what is wrong on stderr and exits 2 (a usage or setup error).
func fail(_ words: String) -> Never {
    FileHandleStderr.write("peerbench: \(words)\n")
    exit(2)
}

/// Standard error, written at once.
enum FileHandleStderr {
    /// Writes `text`.
    static func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// The value of `option` as a whole number of at least 1.
func positive(_ option: String, _ text: String) -> Int {
    guard let number = Int(text), number >= 1 else { fail("\(option) needs a whole number ≥ 1, not '\(text)'") }
    return number
}

/// Runs the probe `arguments` name, with the rest as its arguments.
@MainActor func runProbe(_ arguments: [String]) throws {
    // `--app NAME` first: the channel probes act for that app.
    let app = arguments.first == "--app" && arguments.count > 1 ? arguments[1] : nil
    let arguments = app == nil ? arguments : Array(arguments.dropFirst(2))
    guard let name = arguments.first else { fail("probe needs a name\n\n\(usage)") }
    let args = Array(arguments.dropFirst())
    func int(_ index: Int) -> Int {
        guard index < args.count, let value = Int(args[index]) else { fail("probe \(name): argument \(index + 1) must be a number") }
        return value
    }
    func text(_ index: Int) -> String {
        guard index < args.count else { fail("probe \(name): missing argument \(index + 1)") }
        return args[index]
    }
    switch name {
    case "channel-send": try Probes.channelSend(socket: text(0), peer: text(1), count: int(2), size: int(3), app: app)
    case "channel-recv": try Probes.channelReceive(socket: text(0), peer: text(1), count: int(2), app: app)
    case "channel-echo": try Probes.channelEcho(socket: text(0), peer: text(1), count: int(2))
    case "channel-ping": try Probes.channelPing(socket: text(0), peer: text(1), count: int(2), size: int(3))
    case "tcp-echo-server": try Probes.tcpEchoServer(port: UInt16(int(0)))
    case "tcp-ping": try Probes.tcpPing(host: text(0), port: UInt16(int(1)), count: int(2), size: int(3))
    case "tcp-connect": try Probes.tcpConnect(host: text(0), port: UInt16(int(1)), count: int(2))
    case "setup": try Probes.setup(socket: text(0), peer: text(1), count: int(2))
    case "connect": try Probes.connect(socket: text(0), peer: text(1))
    case "channel-raw": try Probes.channelRaw(socket: text(0), peer: text(1), hex: text(2))
    case "channel-ping-until": try Probes.channelPingUntil(socket: text(0), peer: text(1), stopFile: text(2), size: int(3))
    case "json-send": try JSONProbes.send(socket: text(0), peer: text(1), count: int(2), size: int(3))
    case "json-take": try JSONProbes.take(socket: text(0), peer: text(1), count: int(2))
    case "peerkit-channel": try PeerKitProbes.channel(socket: text(0), peer: text(1), count: int(2))
    case "peerkit-events": try PeerKitProbes.events(socket: text(0), count: int(1))
    case "peerkit-dgram-recv": try PeerKitProbes.datagramReceive(socket: text(0), count: int(1))
    case "peerkit-dgram-send": try PeerKitProbes.datagramSend(socket: text(0), peer: text(1), count: int(2))
    case "peerkit-echo": try PeerKitProbes.echo(socket: text(0), peer: text(1), count: int(2))
    case "peerkit-file": try PeerKitProbes.file(socket: text(0), peer: text(1), path: text(2))
    case "peerkit-pipe": try PeerKitProbes.pipe(socket: text(0), peer: text(1), stream: text(2), text: text(3))
    case "dgram-echo": try DatagramProbes.echo(socket: text(0), idle: int(1))
    case "dgram-ping": try DatagramProbes.ping(socket: text(0), peer: text(1), count: int(2), size: int(3))
    case "dgram-ping-until": try DatagramProbes.pingUntil(socket: text(0), peer: text(1), stopFile: text(2), size: int(3))
    case "dgram-recv": try DatagramProbes.count(socket: text(0), idle: int(1), pause: args.count > 2 ? int(2) : 0)
    case "dgram-pace": try DatagramProbes.pace(socket: text(0), peer: text(1), rate: int(2), seconds: int(3))
    case "dgram-send": try DatagramProbes.blast(socket: text(0), peer: text(1), count: int(2), size: int(3))
    case "udp-echo-server": try DatagramProbes.udpEchoServer(port: UInt16(int(0)))
    case "udp-flood": try DatagramProbes.udpFlood(host: text(0), port: UInt16(int(1)), rate: int(2), seconds: int(3))
    case "udp-ping": try DatagramProbes.udpPing(host: text(0), port: UInt16(int(1)), count: int(2), size: int(3))
    case "wait-found": try Probes.waitFound(socket: text(0), name: text(1))
    case "wait-peers": try ScaleProbes.waitPeers(socket: text(0), count: int(1), seconds: int(2))
    case "wait-sessions": try ScaleProbes.waitSessions(socket: text(0), count: int(1), seconds: int(2))
    case "wait-line": try Probes.waitLine(text: text(0), argv: Array(args.dropFirst()))
    default: fail("no probe '\(name)'\n\n\(usage)")
    }
}

// A probe may write to a channel whose daemon end is already closed (the
// daemon answered with an error first): that must be an EPIPE the probe
// reports, not a SIGPIPE that kills it without a word.
signal(SIGPIPE, SIG_IGN)
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "probe" {
    do { try runProbe(Array(arguments.dropFirst())) } catch { fail("\(error)") }
    exit(0)
}

var runs = 5, json = false, only: [String] = [], bulkMiB = 1024, messages = 200_000, scaleHosts = 24, pin = false
let own = CommandLine.arguments[0]
var bin = own.contains("/") ? String(own[..<own.lastIndex(of: "/")!]) : "."
var index = 0
/// The value after the option at `index` (which moves past it).
@MainActor func value() -> String {
    index += 1
    guard index < arguments.count else { fail("\(arguments[index - 1]) needs a value\n\n\(usage)") }
    return arguments[index]
}
while index < arguments.count {
    switch arguments[index] {
    case "--runs": runs = positive("--runs", value())
    case "--json": json = true
    case "--only": only = value().split(separator: ",").map(String.init)
    case "--bulk-mib": bulkMiB = positive("--bulk-mib", value())
    case "--messages": messages = positive("--messages", value())
    case "--bin": bin = value()
    case "--hosts": scaleHosts = positive("--hosts", value())
    case "--pin": pin = true
    case "-h", "--help":
        print(usage)
        exit(0)
    default: fail("unknown option '\(arguments[index])'\n\n\(usage)")
    }
    index += 1
}
guard getuid() == 0 else { fail("the lab needs root (network namespaces)") }
var absoluteBin = [CChar](repeating: 0, count: Int(PATH_MAX))
guard realpath(bin, &absoluteBin) != nil else { fail("--bin \(bin): no such folder") }
bin = String(decoding: absoluteBin.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
// The source tree: the lab's scripts live there (a build is in ROOT/.build/…).
var root = bin
while !root.isEmpty, access(root + "/Tests/bench/bench_lab.sh", R_OK) != 0 {
    root = root.lastIndex(of: "/").map { String(root[..<$0]) } ?? ""
}
guard !root.isEmpty else { fail("cannot find Tests/bench/bench_lab.sh above \(bin)") }

let progress: (String) -> Void = { FileHandleStderr.write("peerbench: \($0)\n") }
let started = Probes.monotonic()
var rows: [BenchRow] = []
// The scale lab is its own (24 hosts), and only on request: `--only scale`.
let scaleOnly = !only.isEmpty && only.allSatisfy { "scale".contains($0) || $0.hasPrefix("scale") }
if !scaleOnly {
    progress("building the lab")
    let lab: BenchLab
    do { lab = try BenchLab(root: root, bin: bin, pin: pin) } catch { fail("\(error)") }
    let bench = Bench(lab: lab, root: root, runs: runs, bulkMiB: bulkMiB, messages: messages)
    rows = bench.run(only: only, progress: progress)
    bench.stopDesktop()
    lab.stop()
}
if only.contains(where: { $0.hasPrefix("scale") }) {
    rows += ScaleBench(root: root, bin: bin, hosts: scaleHosts).run(progress: progress)
}
if json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: (try? encoder.encode(rows)) ?? Data(), as: UTF8.self))
} else {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    print("peerbench: \(runs) runs per figure, \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores\(pin ? " (each peerd pinned to its own)" : ""), Linux \(release), \(Int(Probes.monotonic() - started)) s")
    print(BenchTable.render(rows), terminator: "")
}
