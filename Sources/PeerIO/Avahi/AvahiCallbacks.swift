import CAvahi
import PeerCore
import PeerProtocol

// The C callbacks Avahi invokes on its own (threaded-poll) thread.
//
// They are file-scope, nonisolated functions on purpose: a closure formed in
// @MainActor code carries main-actor isolation, and Swift 6 traps (SIGILL)
// when such a closure runs on another thread. Each trampoline only copies
// the C data into Sendable values and queues it, in Avahi's order, on the
// sink's stream. They never touch daemon state and never block.
//
// C contract: pointers Avahi passes (names, addresses, string lists) are
// valid only during the call, hence the copies.

/// `AvahiClientCallback`. Also runs synchronously inside `avahi_client_new`.
func avahiClientTrampoline(_ client: OpaquePointer?, _ state: AvahiClientState, _ userdata: UnsafeMutableRawPointer?) {
    guard let sink = AvahiEventSink.from(userdata) else { return }
    let mapped: AvahiConnectionState
    switch state {
    case AVAHI_CLIENT_S_RUNNING: mapped = .running
    case AVAHI_CLIENT_S_REGISTERING: mapped = .registering
    case AVAHI_CLIENT_S_COLLISION: mapped = .collision
    case AVAHI_CLIENT_CONNECTING: mapped = .connecting
    default:
        // AVAHI_CLIENT_FAILURE: the error must be read now, on this thread,
        // while the client is still valid.
        let code = client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_FAILURE)
        mapped = .failure(disconnected: code == Int32(AVAHI_ERR_DISCONNECTED), message: avahiErrorText(code))
    }
    sink.send(.clientState(generation: sink.generation, mapped))
}

/// `AvahiEntryGroupCallback`.
func avahiGroupTrampoline(_ group: OpaquePointer?, _ state: AvahiEntryGroupState, _ userdata: UnsafeMutableRawPointer?) {
    guard let sink = AvahiEventSink.from(userdata) else { return }
    let mapped: EntryGroupState
    switch state {
    case AVAHI_ENTRY_GROUP_ESTABLISHED: mapped = .established
    case AVAHI_ENTRY_GROUP_COLLISION: mapped = .collision
    case AVAHI_ENTRY_GROUP_FAILURE:
        let client = group.flatMap { avahi_entry_group_get_client($0) }
        mapped = .failure(avahiErrorText(client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_FAILURE)))
    default: mapped = .pending
    }
    sink.send(.groupState(generation: sink.generation, mapped))
}

/// `AvahiServiceBrowserCallback`.
func avahiBrowserTrampoline(_ browser: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
                            _ event: AvahiBrowserEvent, _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?,
                            _ domain: UnsafePointer<CChar>?, _ flags: AvahiLookupResultFlags,
                            _ userdata: UnsafeMutableRawPointer?) {
    guard let sink = AvahiEventSink.from(userdata) else { return }
    switch event {
    case AVAHI_BROWSER_NEW, AVAHI_BROWSER_REMOVE:
        guard let key = serviceKey(interface, proto, name, type, domain) else { return }
        if event == AVAHI_BROWSER_NEW {
            let ourOwn = flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue != 0
            sink.send(.serviceFound(generation: sink.generation, key, ourOwn: ourOwn))
        } else {
            sink.send(.serviceRemoved(generation: sink.generation, key))
        }
    case AVAHI_BROWSER_FAILURE:
        let client = browser.flatMap { avahi_service_browser_get_client($0) }
        sink.send(.browserFailed(generation: sink.generation, avahiErrorText(client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_FAILURE))))
    default:
        // ALL_FOR_NOW and CACHE_EXHAUSTED are hints for one-shot browsers.
        break
    }
}

/// `AvahiServiceResolverCallback`.
func avahiResolverTrampoline(_ resolver: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
                             _ event: AvahiResolverEvent, _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?,
                             _ domain: UnsafePointer<CChar>?, _ hostName: UnsafePointer<CChar>?,
                             _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16, _ txt: UnsafeMutablePointer<AvahiStringList>?,
                             _ flags: AvahiLookupResultFlags, _ userdata: UnsafeMutableRawPointer?) {
    guard let sink = AvahiEventSink.from(userdata), let key = serviceKey(interface, proto, name, type, domain) else { return }
    guard event == AVAHI_RESOLVER_FOUND, let address else {
        let client = resolver.flatMap { avahi_service_resolver_get_client($0) }
        sink.send(.resolveFailed(generation: sink.generation, key, avahiErrorText(client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_FAILURE))))
        return
    }
    var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
    avahi_address_snprint(&text, text.count, address)
    let service = ResolvedService(
        key: key,
        interfaceName: InterfaceNames.name(of: interface),
        hostName: hostName.map { String(cString: $0) } ?? "",
        address: String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self),
        addressFamily: address.pointee.proto == AVAHI_PROTO_INET6 ? .ipv6 : .ipv4,
        port: port,
        txt: txtEntries(txt))
    sink.send(.resolved(generation: sink.generation, service))
}

/// Copies the five browse fields into a key; nil if Avahi passed no strings
/// or a protocol peerd does not know.
private func serviceKey(_ interface: AvahiIfIndex, _ proto: AvahiProtocol, _ name: UnsafePointer<CChar>?,
                        _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?) -> ServiceKey? {
    guard let name, let type, let domain else { return nil }
    let family: AddressFamily
    switch proto {
    case AvahiProtocol(AVAHI_PROTO_INET): family = .ipv4
    case AvahiProtocol(AVAHI_PROTO_INET6): family = .ipv6
    default: return nil
    }
    return ServiceKey(interfaceIndex: interface, family: family, name: String(cString: name),
                      type: String(cString: type), domain: String(cString: domain))
}

/// Copies a TXT string list. Avahi's list nodes hold raw bytes, not C strings.
private func txtEntries(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [TXTEntry] {
    var entries: [TXTEntry] = []
    var node = list
    while let current = node {
        if let bytes = avahi_string_list_get_text(current) {
            let size = Int(avahi_string_list_get_size(current))
            let raw = String(decoding: UnsafeBufferPointer(start: bytes, count: size), as: UTF8.self)
            entries.append(TXTEntry(raw: raw))
        }
        node = avahi_string_list_get_next(current)
    }
    return entries
}

/// `avahi_strerror`, copied.
func avahiErrorText(_ code: Int32) -> String {
    guard let text = avahi_strerror(code) else { return "Avahi error \(code)" }
    return String(cString: text)
}
