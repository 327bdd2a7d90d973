import CAvahi
import PeerCore

/// Owns peerd's Avahi objects: the threaded poll, the client, the entry
/// group, one entry group per app subtype, the browsers and one resolver
/// per service key.
///
/// C contract: the threaded poll runs Avahi's loop (and our callbacks) on its
/// own thread. Every call from any other thread must hold the poll's lock;
/// the lock is not recursive, and callbacks already run with it held (so the
/// trampolines never call back into here). Freeing the client frees every
/// browser, resolver and group made from it.
@MainActor
package final class AvahiController {
    /// The outcome of registering our service.
    package enum RegistrationOutcome: Equatable, Sendable {
        /// Committed; the group callback will say established or collision.
        case committed
        /// `add_service` said `AVAHI_ERR_COLLISION`: the name is taken locally.
        case collision
        /// Another error.
        case failed(String)
    }

    private let poll: OpaquePointer
    private let continuation: AsyncStream<AvahiBridgeEvent>.Continuation
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    /// One entry group per published subtype (an app's).
    private var subtypeGroups: [String: OpaquePointer] = [:]
    private var browsers: [OpaquePointer] = []
    private var resolvers: [ServiceKey: OpaquePointer] = [:]
    private var sink: AvahiEventSink?
    private var pollRunning = false

    /// The number of live resolvers.
    package var resolverCount: Int { resolvers.count }

    /// Creates the poll and starts its thread.
    package init(continuation: AsyncStream<AvahiBridgeEvent>.Continuation) throws(AvahiError) {
        guard let poll = avahi_threaded_poll_new() else { throw AvahiError(call: "avahi_threaded_poll_new", code: Int32(AVAHI_ERR_NO_MEMORY)) }
        self.poll = poll
        self.continuation = continuation
        let started = avahi_threaded_poll_start(poll)
        guard started >= 0 else {
            avahi_threaded_poll_free(poll)
            throw AvahiError(call: "avahi_threaded_poll_start", code: started)
        }
        pollRunning = true
    }

    /// Creates a client for `generation` with `AVAHI_CLIENT_NO_FAIL`, so an
    /// absent daemon is a CONNECTING state. Frees any previous client first.
    package func createClient(generation: UInt64) throws(AvahiError) {
        locked { freeClientLocked() }
        let sink = AvahiEventSink(generation: generation, continuation: continuation)
        self.sink = sink
        var error: Int32 = 0
        let created = locked {
            avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, avahiClientTrampoline, sink.userdata, &error)
        }
        guard let created else {
            self.sink = nil
            throw AvahiError(call: "avahi_client_new", code: error)
        }
        client = created
    }

    /// Frees the client and, with it, every browser, resolver and group.
    package func freeClient() {
        locked { freeClientLocked() }
    }

    /// Starts one service browser per interface index (`AVAHI_IF_UNSPEC`
    /// when `interfaces` is empty), both protocols.
    package func startBrowsing(type: String, interfaces: [Int32]) throws(AvahiError) {
        guard let client, let sink else { return }
        let indexes = interfaces.isEmpty ? [AvahiIfIndex(AVAHI_IF_UNSPEC)] : interfaces
        for index in indexes {
            let browser = locked {
                avahi_service_browser_new(client, index, AvahiProtocol(AVAHI_PROTO_UNSPEC), type, nil,
                                          AvahiLookupFlags(rawValue: 0), avahiBrowserTrampoline, sink.userdata)
            }
            guard let browser else { throw AvahiError(call: "avahi_service_browser_new", code: locked { avahi_client_errno(client) }) }
            browsers.append(browser)
        }
    }

    /// Frees the browsers and starts new ones: they report every service in
    /// Avahi's cache afresh. Resolvers stay as they are.
    package func restartBrowsing(type: String, interfaces: [Int32]) throws(AvahiError) {
        let old = browsers
        browsers = []
        locked { for browser in old { _ = avahi_service_browser_free(browser) } }
        try startBrowsing(type: type, interfaces: interfaces)
    }

    /// Starts the resolver for `key` unless one runs. It stays open, so
    /// Avahi reports changed TXT or addresses, until ``stopResolver(_:)``.
    /// Returns false when it could not start (Avahi's object limit).
    @discardableResult
    package func startResolver(_ key: ServiceKey) -> Bool {
        guard resolvers[key] == nil else { return true }
        guard let client, let sink else { return false }
        let proto = AvahiProtocol(key.family == .ipv4 ? AVAHI_PROTO_INET : AVAHI_PROTO_INET6)
        // aprotocol = the browse protocol: the IPv4 key yields the IPv4
        // address, the IPv6 key the IPv6 one, so a peer lists both.
        let resolver = locked {
            avahi_service_resolver_new(client, key.interfaceIndex, proto, key.name, key.type, key.domain, proto,
                                       AvahiLookupFlags(rawValue: 0), avahiResolverTrampoline, sink.userdata)
        }
        guard let resolver else { return false }
        resolvers[key] = resolver
        return true
    }

    /// Frees the resolver for `key`, if any.
    package func stopResolver(_ key: ServiceKey) {
        guard let resolver = resolvers.removeValue(forKey: key) else { return }
        locked { _ = avahi_service_resolver_free(resolver) }
    }

    /// Resets the group and registers `name` on each interface (all when
    /// empty), then commits.
    package func register(name: String, type: String, port: UInt16, txt: [TXTEntry], interfaces: [Int32]) -> RegistrationOutcome {
        guard let client, let sink else { return .failed("no Avahi client") }
        return locked { () -> RegistrationOutcome in
            if group == nil {
                group = avahi_entry_group_new(client, avahiGroupTrampoline, sink.userdata)
            }
            guard let group else { return .failed(AvahiError(call: "avahi_entry_group_new", code: avahi_client_errno(client)).description) }
            avahi_entry_group_reset(group)
            let list = Self.stringList(txt)
            defer { avahi_string_list_free(list) }
            let indexes = interfaces.isEmpty ? [AvahiIfIndex(AVAHI_IF_UNSPEC)] : interfaces
            for index in indexes {
                let result = avahi_entry_group_add_service_strlst(group, index, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                                  AvahiPublishFlags(rawValue: 0), name, type, nil, nil, port, list)
                if result == Int32(AVAHI_ERR_COLLISION) { return .collision }
                if result < 0 { return .failed(AvahiError(call: "avahi_entry_group_add_service", code: result).description) }
            }
            let committed = avahi_entry_group_commit(group)
            if committed < 0 { return .failed(AvahiError(call: "avahi_entry_group_commit", code: committed).description) }
            return .committed
        }
    }

    /// Replaces our service's TXT record in place
    /// (`avahi_entry_group_update_service_txt_strlst`): browsers see the new
    /// strings, and no goodbye for the service. Nil, or the failure.
    package func updateTXT(name: String, type: String, txt: [TXTEntry], interfaces: [Int32]) -> String? {
        guard let group else { return "no entry group" }
        return locked { () -> String? in
            let list = Self.stringList(txt)
            defer { avahi_string_list_free(list) }
            for index in interfaces.isEmpty ? [AvahiIfIndex(AVAHI_IF_UNSPEC)] : interfaces {
                let result = avahi_entry_group_update_service_txt_strlst(group, index, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                                         AvahiPublishFlags(rawValue: 0), name, type, nil, list)
                if result < 0 { return AvahiError(call: "avahi_entry_group_update_service_txt", code: result).description }
            }
            return nil
        }
    }

    /// The subtypes published (``publishSubtype(_:name:type:interfaces:)``).
    package var subtypes: Set<String> { Set(subtypeGroups.keys) }

    /// Publishes `subtype` (`_chat._sub._peerd._tcp`) for our service
    /// `name`, in an entry group of its own (issue 23): adding or
    /// withdrawing an app then never resets the service's group, which
    /// would say goodbye for the whole service and make every peer see this
    /// host leave and come back. A subtype is one shared PTR record: it is
    /// not probed and cannot collide, and avahi-daemon adds it whatever
    /// group holds the service. The group has no callback: nothing in its
    /// states is ours to act on. Nil, or the failure.
    package func publishSubtype(_ subtype: String, name: String, type: String, interfaces: [Int32]) -> String? {
        guard subtypeGroups[subtype] == nil else { return nil }
        guard let client else { return "no Avahi client" }
        return locked { () -> String? in
            guard let subgroup = avahi_entry_group_new(client, nil, nil) else {
                return AvahiError(call: "avahi_entry_group_new", code: avahi_client_errno(client)).description
            }
            for index in interfaces.isEmpty ? [AvahiIfIndex(AVAHI_IF_UNSPEC)] : interfaces {
                let result = avahi_entry_group_add_service_subtype(subgroup, index, AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                                   AvahiPublishFlags(rawValue: 0), name, type, nil, subtype)
                if result < 0 {
                    avahi_entry_group_free(subgroup)
                    return AvahiError(call: "avahi_entry_group_add_service_subtype", code: result).description
                }
            }
            let committed = avahi_entry_group_commit(subgroup)
            if committed < 0 {
                avahi_entry_group_free(subgroup)
                return AvahiError(call: "avahi_entry_group_commit", code: committed).description
            }
            subtypeGroups[subtype] = subgroup
            return nil
        }
    }

    /// Withdraws `subtype` (its group's goodbye tells browsers of it).
    package func withdrawSubtype(_ subtype: String) {
        guard let subgroup = subtypeGroups.removeValue(forKey: subtype) else { return }
        locked { _ = avahi_entry_group_free(subgroup) }
    }

    /// Withdraws our records (the group stays for reuse).
    package func resetGroup() {
        guard let group else { return }
        locked { _ = avahi_entry_group_reset(group) }
    }

    /// `avahi_alternative_service_name`: "name" → "name #2" → "name #3".
    package func alternativeName(for name: String) -> String {
        guard let alternative = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(alternative) }
        return String(cString: alternative)
    }

    /// Frees everything and stops Avahi's thread. Freeing the group withdraws
    /// our service with goodbye packets.
    package func shutdown() {
        locked { freeClientLocked() }
        if pollRunning {
            avahi_threaded_poll_stop(poll)
            pollRunning = false
        }
        avahi_threaded_poll_free(poll)
        // Avahi's thread is gone: no event can follow, so the stream ends.
        continuation.finish()
    }

    private func freeClientLocked() {
        // Freeing the client frees every group made from it.
        subtypeGroups.removeAll()
        resolvers.removeAll()
        browsers.removeAll()
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
        sink = nil
    }

    /// `txt` as an Avahi string list, in our order on the wire:
    /// avahi_string_list_add prepends and avahi_string_list_serialize
    /// writes the list reversed, so adding in our order puts txtvers first
    /// (a reversed add once put it last, as a foreign reader saw).
    private static func stringList(_ txt: [TXTEntry]) -> UnsafeMutablePointer<AvahiStringList>? {
        var list: UnsafeMutablePointer<AvahiStringList>?
        for entry in txt {
            let bytes = Array(entry.encoded.utf8)
            list = bytes.withUnsafeBufferPointer { avahi_string_list_add_arbitrary(list, $0.baseAddress, $0.count) }
        }
        return list
    }

    private func locked<T>(_ body: () -> T) -> T {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return body()
    }
}
