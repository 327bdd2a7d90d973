import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerTools
import PeerProtocol

/// The datagram path's figures (issue 26, point 4): round trips next to a
/// raw UDP ping-pong, the rate through a `datagrams` socket, and round
/// trips beside the bulk runs (``startDatagramPings()``).
extension Bench {
    /// The datagram comparisons.
    func datagramComparisons() -> [Comparison] {
        [
            Comparison(name: "datagram round trip, 100 B, median", unit: "ms", variants: [
                ("peerd datagram", { self.datagramRoundTrip()?.median }),
                ("raw UDP", { self.udpRoundTrip()?.median }),
            ]),
            Comparison(name: "datagram round trip, 100 B, p99", unit: "ms", variants: [
                ("peerd datagram", { self.datagramRoundTrip()?.p99 }),
                ("raw UDP", { self.udpRoundTrip()?.p99 }),
            ]),
            Comparison(name: "datagram rate, 100 B, through a datagrams socket", unit: "msg/s", variants: [
                ("peerd datagrams received", { self.datagramRate() }),
            ]),
            Comparison(name: "datagrams to a client reading at half their rate: sent, less those read and those counted lost", unit: "count", variants: [
                ("peerd", { self.slowDatagramReader() }),
            ]),
            Comparison(name: "datagram flood, 100,000 forged a second for 10 s: receiving peerd's private memory growth", unit: "MB", variants: [
                ("peerd", { self.datagramFlood() }),
            ]),
        ]
    }

    /// An echo of datagrams on host 2 for as long as `body` runs.
    private func withDatagramEcho<T>(_ body: () -> T?) -> T? {
        let output = directory + "/dgram-echo.out"
        unlink(output)
        guard connect(), let echo = lab.start(2, [bin + "/peerbench", "probe", "dgram-echo", lab["SOCK2"], "2"], output: output) else { return nil }
        defer {
            kill(echo, SIGTERM)
            _ = Subprocess.wait(echo)
        }
        guard lab.waitReady(output) else { return nil }
        return body()
    }

    /// 2,000 datagram round trips of 100 bytes from host 1 to an echo on host 2.
    func datagramRoundTrip() -> (median: Double, p99: Double)? {
        withDatagramEcho {
            let words = BenchLab.words(lab.probe(1, ["dgram-ping", lab["SOCK1"], "host2", "2000", "100"]).output)
            guard let median = words["median"].flatMap(Double.init), let p99 = words["p99"].flatMap(Double.init) else { return nil }
            if let lost = words["lost"].flatMap(Double.init) { note("datagram round trips lost of 2,000", "peerd datagram", "count", lost) }
            return (median, p99)
        }
    }

    /// 2,000 raw UDP round trips of 100 bytes (the echo bench_lab.sh starts on port 7778).
    func udpRoundTrip() -> (median: Double, p99: Double)? {
        let words = BenchLab.words(lab.probe(1, ["udp-ping", lab["ADDR2"], "7778", "2000", "100"]).output)
        guard let median = words["median"].flatMap(Double.init), let p99 = words["p99"].flatMap(Double.init) else { return nil }
        return (median, p99)
    }

    /// 100-byte datagrams from a `datagrams` socket on host 1 to one on host
    /// 2, as fast as they go: received a second, from the first sent to
    /// the last received; what was dropped is noted beside it.
    func datagramRate() -> Double? {
        guard connect() else { return nil }
        let count = messages
        let output = directory + "/dgram-recv.out"
        unlink(output)
        guard let receiver = lab.start(2, [bin + "/peerbench", "probe", "dgram-recv", lab["SOCK2"], "2"], output: output) else { return nil }
        guard lab.waitReady(output) else {
            kill(receiver, SIGTERM)
            _ = Subprocess.wait(receiver)
            return nil
        }
        let sent = BenchLab.words(lab.probe(1, ["dgram-send", lab["SOCK1"], "host2", String(count), "100"]).output)
        guard Subprocess.wait(receiver) == 0 else { return nil }
        let received = BenchLab.words(BenchLab.read(output))
        guard let start = sent["start"].flatMap(Double.init), let last = received["last"].flatMap(Double.init),
              let got = received["received"].flatMap(Double.init), got > 0, last > start else { return nil }
        note("datagrams of \(count) sent at full speed", "received", "count", got)
        note("datagrams of \(count) sent at full speed", "lost at the receiving client", "count", received["lost"].flatMap(Double.init))
        note("datagrams of \(count) sent at full speed", "refused by the sending daemon (its UDP socket full)", "count", sent["refused"].flatMap(Double.init))
        return got / (last - start)
    }

    /// 20,000 datagrams a second for 3 s to a client on host 2 that pauses
    /// 100 µs after each (it reads at most about 10,000 a second): the
    /// datagrams sent less those the client read and those the daemon
    /// counted lost for it (0 when every drop is counted exactly), with the
    /// counts and host 2's private memory growth noted beside.
    func slowDatagramReader() -> Double? {
        guard connect(), let before = ProcessStats.memory(self.peerd2)?.private else { return nil }
        let output = directory + "/dgram-slow.out"
        unlink(output)
        guard let receiver = lab.start(2, [bin + "/peerbench", "probe", "dgram-recv", lab["SOCK2"], "2", "100"], output: output) else { return nil }
        guard lab.waitReady(output) else {
            kill(receiver, SIGTERM)
            _ = Subprocess.wait(receiver)
            return nil
        }
        let sent = BenchLab.words(lab.probe(1, ["dgram-pace", lab["SOCK1"], "host2", "20000", "3"]).output)
        guard Subprocess.wait(receiver) == 0 else { return nil }
        let after = ProcessStats.memory(self.peerd2)?.private
        let words = BenchLab.words(BenchLab.read(output))
        let figure = "datagrams to a client reading at half their rate"
        note(figure, "sent", "count", sent["sent"].flatMap(Double.init))
        note(figure, "read by the client", "count", words["received"].flatMap(Double.init))
        note(figure, "lost, as the daemon counted", "count", words["lost"].flatMap(Double.init))
        note(figure, "receiving peerd's private memory growth", "MB", after.map { ($0 - before) / 1e6 })
        // The losses after the last record read are said only in the answer:
        // the records' sum may be short of it by those.
        note(figure, "lost, as the records said", "count", words["lostSaid"].flatMap(Double.init))
        guard let total = sent["sent"].flatMap(Double.init), let counted = words["lost"].flatMap(Double.init),
              let answered = words["answered"].flatMap(Double.init), let read = words["received"].flatMap(Double.init), answered == read else { return nil }
        return total - read - counted
    }

    /// Forged datagrams at 100,000 a second for 10 s from host 1 at host
    /// 2's UDP port, while real round trips go every 20 ms: host 2's
    /// private memory growth (what the flood costs it), with the real
    /// datagrams' p99 and losses and the flood's count noted beside.
    func datagramFlood() -> Double? {
        guard connect(), let peerd2 = ProcessStats.memory(self.peerd2)?.private else { return nil }
        let status = { () -> DaemonStatus? in
            let output = self.lab.run(2, [self.bin + "/peerctl", "--socket", self.lab["SOCK2"], "--json", "status"]).output
            return try? JSONDecoder().decode(DaemonStatus.self, from: Data(output.utf8))
        }
        guard let port = status()?.datagrams?.port else { return nil }
        let junkBefore = status()?.datagrams?.junk ?? 0
        let pings = startDatagramPings()
        let flood = lab.probe(1, ["udp-flood", lab["ADDR2"], String(port), "100000", "10"])
        let after = ProcessStats.memory(self.peerd2)?.private
        let words = endDatagramPings(pings)
        let sent = BenchLab.words(flood.output)["sent"].flatMap(Double.init)
        note("datagram flood, 100,000 forged a second for 10 s", "forged datagrams sent", "count", sent)
        note("datagram flood, 100,000 forged a second for 10 s", "counted as junk by peerd", "count", (status()?.datagrams?.junk).map { Double($0 - junkBefore) })
        note("datagram flood, 100,000 forged a second for 10 s", "real round trips, p99", "ms", words["p99"].flatMap(Double.init))
        note("datagram flood, 100,000 forged a second for 10 s", "real round trips lost", "count", words["lost"].flatMap(Double.init))
        guard flood.status == 0, let after else { return nil }
        return (after - peerd2) / 1e6
    }

    /// 100-byte datagram round trips every 20 ms from host 1 to an echo
    /// on host 2, started beside a bulk run.
    func startDatagramPings() -> (pinger: pid_t?, echo: pid_t?) {
        let stopFile = directory + "/dgram-ping.stop", pingOutput = directory + "/dgram-ping.out", echoOutput = directory + "/dgram-echo2.out"
        for path in [stopFile, pingOutput, echoOutput] { unlink(path) }
        let echo = lab.start(2, [bin + "/peerbench", "probe", "dgram-echo", lab["SOCK2"], "600"], output: echoOutput)
        var pinger: pid_t?
        if echo != nil, lab.waitReady(echoOutput) {
            pinger = lab.start(1, [bin + "/peerbench", "probe", "dgram-ping-until", lab["SOCK1"], "host2", stopFile, "100"], output: pingOutput)
            if pinger == nil || !lab.waitReady(pingOutput) { pinger = nil }
        }
        return (pinger, echo)
    }

    /// Stops the datagram round trips: what the pinger said.
    private func endDatagramPings(_ pings: (pinger: pid_t?, echo: pid_t?)) -> [String: String] {
        _ = Subprocess.run(["touch", directory + "/dgram-ping.stop"])
        if let pinger = pings.pinger { _ = Subprocess.wait(pinger) }
        if let echo = pings.echo {
            kill(echo, SIGTERM)
            _ = Subprocess.wait(echo)
        }
        return BenchLab.words(BenchLab.read(directory + "/dgram-ping.out"))
    }

    /// Stops the datagram round trips and notes their p99, worst and losses `during` the run.
    func stopDatagramPings(_ pings: (pinger: pid_t?, echo: pid_t?), during: String) {
        let words = endDatagramPings(pings)
        note("round trip of 100 B during a \(bulkMiB) MiB \(during), p99", "peerd datagram, every 20 ms", "ms", words["p99"].flatMap(Double.init))
        note("worst round trip of 100 B during a \(bulkMiB) MiB \(during)", "peerd datagram, every 20 ms", "ms", words["max"].flatMap(Double.init))
        note("datagram round trips lost during a \(bulkMiB) MiB \(during)", "peerd datagram, every 20 ms", "count", words["lost"].flatMap(Double.init))
    }
}
