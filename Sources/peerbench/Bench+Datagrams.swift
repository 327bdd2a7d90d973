import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerTools

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

    /// Stops the datagram round trips and notes their p99, worst and losses `during` the run.
    func stopDatagramPings(_ pings: (pinger: pid_t?, echo: pid_t?), during: String) {
        _ = Subprocess.run(["touch", directory + "/dgram-ping.stop"])
        if let pinger = pings.pinger { _ = Subprocess.wait(pinger) }
        if let echo = pings.echo {
            kill(echo, SIGTERM)
            _ = Subprocess.wait(echo)
        }
        let words = BenchLab.words(BenchLab.read(directory + "/dgram-ping.out"))
        note("round trip of 100 B during a \(bulkMiB) MiB \(during), p99", "peerd datagram, every 20 ms", "ms", words["p99"].flatMap(Double.init))
        note("worst round trip of 100 B during a \(bulkMiB) MiB \(during)", "peerd datagram, every 20 ms", "ms", words["max"].flatMap(Double.init))
        note("datagram round trips lost during a \(bulkMiB) MiB \(during)", "peerd datagram, every 20 ms", "count", words["lost"].flatMap(Double.init))
    }
}
