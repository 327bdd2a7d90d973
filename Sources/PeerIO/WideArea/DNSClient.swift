import CLDNS
import Glibc
import PeerCore

/// Blocking DNS exchanges with one server, over ldns (libldns): queries,
/// and DNS UPDATEs signed with TSIG. ldns builds, signs, sends, verifies
/// and parses every packet; this type only converts between its records
/// and ``DNSRecord``. Each query leaves from a fresh socket (the kernel
/// picks a random source port) with a random id; an answer too long for
/// UDP is asked again over TCP. Not thread-safe: one worker thread owns it.
package final class DNSClient {
    private let resolver: UnsafeMutablePointer<ldns_resolver>
    /// The server, as given (`10.0.0.1@53`), or `resolv.conf`.
    package let server: String
    /// Seconds a try waits for an answer.
    private var timeout = 2

    /// A client of the server at `address` (numeric IPv4 or IPv6), `port`.
    package init(address: String, port: UInt16, timeout: Int = 2) throws(DNSError) {
        let type = address.contains(":") ? LDNS_RDF_TYPE_AAAA : LDNS_RDF_TYPE_A
        guard let resolver = ldns_resolver_new() else { throw DNSError(.badInput, step: "resolver", detail: "out of memory") }
        guard let rdf = ldns_rdf_new_frm_str(type, address) else {
            ldns_resolver_deep_free(resolver)
            throw DNSError(.badInput, step: "server", detail: "'\(address)' is not a numeric address")
        }
        defer { ldns_rdf_deep_free(rdf) }
        _ = ldns_resolver_push_nameserver(resolver, rdf)
        ldns_resolver_set_port(resolver, port)
        self.resolver = resolver
        server = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        configure(timeout: timeout)
    }

    /// A client of the host's own resolvers (`/etc/resolv.conf`), for
    /// finding a domain's server and its browse domains.
    package init(systemResolverWithTimeout timeout: Int = 2) throws(DNSError) {
        var made: UnsafeMutablePointer<ldns_resolver>?
        let status = ldns_resolver_new_frm_file(&made, nil)
        guard status == LDNS_STATUS_OK, let made else {
            throw DNSError(.noAnswer, step: "read /etc/resolv.conf", detail: String(cString: ldns_get_errorstr_by_id(status)))
        }
        resolver = made
        server = "resolv.conf"
        configure(timeout: timeout)
    }

    deinit { ldns_resolver_deep_free(resolver) }

    /// The host's search domains (`search` and `domain` in resolv.conf).
    package var searchDomains: [DNSName] {
        var names: [DNSName] = []
        if let list = ldns_resolver_searchlist(resolver) {
            for index in 0..<ldns_resolver_searchlist_count(resolver) {
                if let rdf = list[index], let name = Self.name(rdf) { names.append(name) }
            }
        }
        if let domain = ldns_resolver_domain(resolver), let name = Self.name(domain), !names.contains(name) { names.append(name) }
        return names
    }

    private func configure(timeout: Int) {
        self.timeout = timeout
        Self.configure(resolver, timeout: timeout)
    }

    /// Marks every server reachable again before an exchange: ldns marks a
    /// server that once failed to answer as unreachable and skips it from
    /// then on (measured: after 6 s of a stopped server, browsing never
    /// came back, and a stop's removal returned at once, unsent), so
    /// each exchange gets its own tries and timeouts instead.
    private static func markReachable(_ resolver: UnsafeMutablePointer<ldns_resolver>) {
        for index in 0..<ldns_resolver_nameserver_count(resolver) {
            ldns_resolver_set_nameserver_rtt(resolver, index, Int(LDNS_RESOLV_RTT_MIN))
        }
    }

    private static func configure(_ resolver: UnsafeMutablePointer<ldns_resolver>, timeout: Int) {
        ldns_resolver_set_timeout(resolver, timeval(tv_sec: timeout, tv_usec: 0))
        ldns_resolver_set_retry(resolver, 2)
        // A long answer (many pointers) comes again over TCP, whole.
        ldns_resolver_set_fallback(resolver, 1)
        ldns_resolver_set_edns_udp_size(resolver, 1232)
        ldns_resolver_set_recursive(resolver, 1)
    }

    /// The answer to `name`'s records of `kind`: every record of the
    /// answer, authority and additional sections that peerd reads.
    package func query(_ name: DNSName, _ kind: DNSRecord.Kind) throws(DNSError) -> DNSAnswer {
        let step = "query \(kind) \(name)"
        guard let owner = ldns_dname_new_frm_str(name.presentation) else { throw DNSError(.badInput, step: step, detail: "not a name") }
        defer { ldns_rdf_deep_free(owner) }
        var packet: UnsafeMutablePointer<ldns_pkt>?
        Self.markReachable(resolver)
        let status = ldns_resolver_send(&packet, resolver, owner, ldns_rr_type(rawValue: UInt32(kind.rawValue)), LDNS_RR_CLASS_IN, UInt16(LDNS_RD))
        guard status == LDNS_STATUS_OK, let packet else {
            if let packet { ldns_pkt_free(packet) }
            throw DNSError(.noAnswer, step: step, detail: String(cString: ldns_get_errorstr_by_id(status)))
        }
        defer { ldns_pkt_free(packet) }
        return DNSAnswer(rcode: UInt8(truncatingIfNeeded: ldns_pkt_get_rcode(packet).rawValue),
                         answer: Self.records(ldns_pkt_answer(packet)),
                         authority: Self.records(ldns_pkt_authority(packet)),
                         additional: Self.records(ldns_pkt_additional(packet)))
    }

    /// Sends `update`, signed with `key`, and waits for the server's word.
    package func update(_ update: DNSUpdate, key: TSIGKey?) throws(DNSError) {
        let step = "update \(update.zone)"
        guard let zone = ldns_dname_new_frm_str(update.zone.presentation), let changes = ldns_rr_list_new() else {
            throw DNSError(.badInput, step: step, detail: "not a zone name")
        }
        defer { ldns_rr_list_deep_free(changes) }
        for deletion in update.deletions {
            guard let rr = Self.deletion(deletion) else { ldns_rdf_deep_free(zone); throw DNSError(.badInput, step: step, detail: "a deletion ldns would not build") }
            _ = ldns_rr_list_push_rr(changes, rr)
        }
        for record in update.additions {
            guard let rr = Self.rr(record, class: LDNS_RR_CLASS_IN) else {
                ldns_rdf_deep_free(zone)
                throw DNSError(.badInput, step: step, detail: "a record ldns would not build: \(record.owner) \(record.kind)")
            }
            _ = ldns_rr_list_push_rr(changes, rr)
        }
        // The packet takes the zone's name as its zone section.
        guard let packet = ldns_update_pkt_new(zone, LDNS_RR_CLASS_IN, nil, changes, nil) else {
            throw DNSError(.badInput, step: step, detail: "ldns would not build the update")
        }
        defer { ldns_pkt_free(packet) }
        ldns_pkt_set_rd(packet, 0)
        // Updates go through a resolver of their own, which holds the key:
        // ldns signs every packet of a resolver with a key, and queries go
        // unsigned (ldns cannot unset a key once set).
        guard let signer = ldns_resolver_clone(resolver) else { throw DNSError(.badInput, step: step, detail: "out of memory") }
        defer { ldns_resolver_deep_free(signer) }
        // A clone does not keep every setting (measured: an update to a
        // server that did not answer returned at once, unsent for all we knew).
        Self.configure(signer, timeout: timeout)
        Self.markReachable(signer)
        if let key {
            ldns_resolver_set_tsig_keyname(signer, key.name + ".")
            ldns_resolver_set_tsig_algorithm(signer, key.algorithm.rawValue + ".")
            ldns_resolver_set_tsig_keydata(signer, Self.base64(key.secret))
            let signed = ldns_update_pkt_tsig_add(packet, signer)
            guard signed == LDNS_STATUS_OK else {
                throw DNSError(.badInput, step: step, detail: "cannot sign: " + String(cString: ldns_get_errorstr_by_id(signed)))
            }
        }
        var answer: UnsafeMutablePointer<ldns_pkt>?
        let status = ldns_resolver_send_pkt(&answer, signer, packet)
        defer { if let answer { ldns_pkt_free(answer) } }
        if status == LDNS_STATUS_CRYPTO_TSIG_BOGUS || status == LDNS_STATUS_CRYPTO_TSIG_ERR {
            throw DNSError(.badSignature, step: step, detail: "the server's answer is not signed with this key (it does not know the key, or the secret differs)")
        }
        guard status == LDNS_STATUS_OK, let answer else {
            throw DNSError(.noAnswer, step: step, detail: String(cString: ldns_get_errorstr_by_id(status)))
        }
        let rcode = UInt8(truncatingIfNeeded: ldns_pkt_get_rcode(answer).rawValue)
        guard rcode == 0 else { throw DNSError(.rcode(rcode), step: step, detail: DNSError.rcodeName(rcode)) }
    }

    // MARK: conversions

    private static func records(_ list: UnsafeMutablePointer<ldns_rr_list>?) -> [DNSRecord] {
        guard let list else { return [] }
        var records: [DNSRecord] = []
        for index in 0..<ldns_rr_list_rr_count(list) {
            if let rr = ldns_rr_list_rr(list, index), let record = record(rr) { records.append(record) }
        }
        return records
    }

    private static func record(_ rr: UnsafeMutablePointer<ldns_rr>) -> DNSRecord? {
        guard let ownerRDF = ldns_rr_owner(rr), let owner = name(ownerRDF),
              let kind = DNSRecord.Kind(rawValue: UInt16(truncatingIfNeeded: ldns_rr_get_type(rr).rawValue)) else { return nil }
        let count = ldns_rr_rd_count(rr)
        func field(_ index: Int) -> UnsafeMutablePointer<ldns_rdf>? { index < count ? ldns_rr_rdf(rr, index) : nil }
        let data: DNSRecord.Data
        switch kind {
        case .ptr:
            guard let rdf = field(0), let target = name(rdf) else { return nil }
            data = .ptr(target)
        case .srv:
            guard let p = field(0), let w = field(1), let port = field(2), let t = field(3), let target = name(t) else { return nil }
            data = .srv(priority: ldns_rdf2native_int16(p), weight: ldns_rdf2native_int16(w), port: ldns_rdf2native_int16(port), target: target)
        case .txt:
            var strings: [[UInt8]] = []
            for index in 0..<count {
                guard let rdf = field(index) else { continue }
                let bytes = Self.bytes(rdf)
                // A character-string: its length, then its bytes.
                if let length = bytes.first, Int(length) == bytes.count - 1 { strings.append(Array(bytes.dropFirst())) }
            }
            data = .txt(strings)
        case .a, .aaaa:
            guard let rdf = field(0) else { return nil }
            let bytes = Self.bytes(rdf)
            guard bytes.count == (kind == .a ? 4 : 16), let text = addressText(bytes) else { return nil }
            data = kind == .a ? .a(text) : .aaaa(text)
        case .soa:
            guard let primary = field(0).flatMap(name), let serial = field(2) else { return nil }
            data = .soa(primary: primary, serial: ldns_rdf2native_int32(serial))
        }
        return DNSRecord(owner: owner, ttl: ldns_rr_ttl(rr), data: data)
    }

    private static func name(_ rdf: UnsafeMutablePointer<ldns_rdf>) -> DNSName? {
        guard ldns_rdf_get_type(rdf) == LDNS_RDF_TYPE_DNAME else { return nil }
        return DNSName(wire: bytes(rdf))
    }

    private static func bytes(_ rdf: UnsafeMutablePointer<ldns_rdf>) -> [UInt8] {
        guard let data = ldns_rdf_data(rdf) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: ldns_rdf_size(rdf)))
    }

    private static func addressText(_ bytes: [UInt8]) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) }
        guard done != nil else { return nil }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func rr(_ record: DNSRecord, class rrClass: ldns_rr_class) -> UnsafeMutablePointer<ldns_rr>? {
        guard let rr = ldns_rr_new() else { return nil }
        guard let owner = ldns_dname_new_frm_str(record.owner.presentation) else { ldns_rr_free(rr); return nil }
        ldns_rr_set_owner(rr, owner)
        ldns_rr_set_type(rr, ldns_rr_type(rawValue: UInt32(record.kind.rawValue)))
        ldns_rr_set_class(rr, rrClass)
        ldns_rr_set_ttl(rr, rrClass == LDNS_RR_CLASS_IN ? record.ttl : 0)
        var fields: [UnsafeMutablePointer<ldns_rdf>?] = []
        switch record.data {
        case .ptr(let target):
            fields = [ldns_dname_new_frm_str(target.presentation)]
        case .srv(let priority, let weight, let port, let target):
            fields = [ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, priority), ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, weight),
                      ldns_native2rdf_int16(LDNS_RDF_TYPE_INT16, port), ldns_dname_new_frm_str(target.presentation)]
        case .txt(let strings):
            fields = strings.map { string in
                let bytes = [UInt8(min(string.count, 255))] + string.prefix(255)
                return bytes.withUnsafeBytes { ldns_rdf_new_frm_data(LDNS_RDF_TYPE_STR, bytes.count, $0.baseAddress) }
            }
        case .a(let text):
            fields = [ldns_rdf_new_frm_str(LDNS_RDF_TYPE_A, text)]
        case .aaaa(let text):
            fields = [ldns_rdf_new_frm_str(LDNS_RDF_TYPE_AAAA, text)]
        case .soa:
            fields = [nil]
        }
        guard fields.allSatisfy({ $0 != nil }) else {
            for field in fields { if let field { ldns_rdf_deep_free(field) } }
            ldns_rr_free(rr)
            return nil
        }
        for field in fields { _ = ldns_rr_push_rdf(rr, field) }
        return rr
    }

    private static func deletion(_ deletion: DNSUpdate.Deletion) -> UnsafeMutablePointer<ldns_rr>? {
        switch deletion {
        case .record(let record):
            return rr(record, class: LDNS_RR_CLASS_NONE)
        case .rrset(let owner, let kind):
            return empty(owner, type: ldns_rr_type(rawValue: UInt32(kind.rawValue)))
        case .name(let owner):
            return empty(owner, type: LDNS_RR_TYPE_ANY)
        }
    }

    /// RFC 2136 §2.5.2–3: class ANY, TTL 0, no data.
    private static func empty(_ owner: DNSName, type: ldns_rr_type) -> UnsafeMutablePointer<ldns_rr>? {
        guard let rr = ldns_rr_new(), let name = ldns_dname_new_frm_str(owner.presentation) else { return nil }
        ldns_rr_set_owner(rr, name)
        ldns_rr_set_type(rr, type)
        ldns_rr_set_class(rr, LDNS_RR_CLASS_ANY)
        ldns_rr_set_ttl(rr, 0)
        return rr
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = (UInt32(chunk[0]) << 16) | (UInt32(chunk.count > 1 ? chunk[1] : 0) << 8) | UInt32(chunk.count > 2 ? chunk[2] : 0)
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[Int((value >> UInt32(18 - 6 * position)) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
