import CSystemd
import Dispatch
import Glibc
import PeerTools

/// The session bus's notification server, through sd-bus (issue 45,
/// point 2): `GetCapabilities`, `Notify` and `CloseNotification`, and its
/// `ActionInvoked` and `NotificationClosed` signals.
///
/// sd-bus is not thread-safe, so everything touches the bus on one serial
/// queue: calls are queued there, and the bus's descriptor is watched by a
/// read source on it that runs `sd_bus_process`. Signals come to file-scope
/// trampolines (called from C), which copy them into ``BusSignal`` values
/// and yield them, in order, into ``signals``.
final class NotificationBus: @unchecked Sendable {
    // @unchecked: `bus`, `slots` and `source` are touched on `queue` alone.
    private let queue = DispatchQueue(label: "peerd-agent.bus")
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer?] = []
    private var source: (any DispatchSourceRead)?
    private let continuation: AsyncStream<BusSignal>.Continuation
    /// The server's signals, in the order they came.
    let signals: AsyncStream<BusSignal>

    private static let destination = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"
    /// How long a call may take (the server answers at once, or is stuck).
    private static let callTimeout: UInt64 = 5_000_000

    /// Connects to the user's session bus and subscribes to the server's signals.
    init() throws(BusError) {
        (signals, continuation) = AsyncStream.makeStream(of: BusSignal.self, bufferingPolicy: .bufferingNewest(256))
        var opened: OpaquePointer?
        let code = sd_bus_open_user(&opened)
        guard code >= 0, let opened else {
            throw BusError(step: "sd_bus_open_user (is DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR set?)", code: code, detail: "")
        }
        bus = opened
        let context = Unmanaged.passUnretained(self).toOpaque()
        for (member, handler) in [("ActionInvoked", busActionInvoked), ("NotificationClosed", busNotificationClosed)] as [(String, sd_bus_message_handler_t)] {
            var slot: OpaquePointer?
            let matched = sd_bus_match_signal(opened, &slot, Self.destination, Self.path, Self.destination, member, handler, context)
            guard matched >= 0 else { throw BusError(step: "sd_bus_match_signal \(member)", code: matched, detail: "") }
            slots.append(slot)
        }
        let watched = DispatchSource.makeReadSource(fileDescriptor: sd_bus_get_fd(opened), queue: queue)
        watched.setEventHandler { [weak self] in self?.process() }
        source = watched
        watched.resume()
        queue.async { self.process() }
    }

    /// Handles what the bus has for us (on `queue`).
    private func process() {
        guard let bus else { return }
        while sd_bus_process(bus, nil) > 0 {}
    }

    /// A signal, from a trampoline (on `queue`, inside `sd_bus_process`).
    fileprivate func received(_ signal: BusSignal) { continuation.yield(signal) }

    /// Runs `body` with the bus on its queue.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) throws(BusError) -> T) async throws(BusError) -> T {
        let result: Result<T, BusError> = await withCheckedContinuation { continuation in
            queue.async {
                guard let bus = self.bus else { return continuation.resume(returning: .failure(BusError(step: "bus", code: -ENOTCONN, detail: ""))) }
                continuation.resume(returning: Result { () throws(BusError) in try body(bus) })
            }
        }
        return try result.get()
    }

    /// The server's capabilities (`actions`, `body-markup`, …).
    func capabilities() async throws(BusError) -> [String] {
        try await onQueue { bus throws(BusError) in
            let reply = try Self.call(bus, "GetCapabilities") { _ in 0 }
            defer { _ = sd_bus_message_unref(reply) }
            guard sd_bus_message_enter_container(reply, PEERD_BUS_ARRAY, "s") >= 0 else { return [] }
            var names: [String] = []
            while let name = peerd_bus_read_string(reply) { names.append(String(cString: name)) }
            return names
        }
    }

    /// Shows (or replaces) a notification; returns the server's id for it.
    func notify(_ request: NotificationRequest) async throws(BusError) -> UInt32 {
        try await onQueue { bus throws(BusError) in
            let reply = try Self.call(bus, "Notify") { m in
                var code = peerd_bus_append_string(m, "peerd")
                code = min(code, peerd_bus_append_u32(m, request.replacing ?? 0))
                code = min(code, peerd_bus_append_string(m, "network-transmit-receive"))
                code = min(code, peerd_bus_append_string(m, request.summary))
                code = min(code, peerd_bus_append_string(m, request.body))
                code = min(code, sd_bus_message_open_container(m, PEERD_BUS_ARRAY, "s"))
                for button in request.actions {
                    code = min(code, peerd_bus_append_string(m, button.key), peerd_bus_append_string(m, button.label))
                }
                code = min(code, sd_bus_message_close_container(m))
                code = min(code, sd_bus_message_open_container(m, PEERD_BUS_ARRAY, "{sv}"))
                code = min(code, Self.hint(m, "desktop-entry", string: "peerd-agent"))
                if request.waitsForAnswer { code = min(code, Self.hint(m, "resident", bool: true), Self.hint(m, "urgency", byte: 1)) }
                if let progress = request.progress { code = min(code, Self.hint(m, "value", int: Int32(progress))) }
                code = min(code, sd_bus_message_close_container(m))
                // An offer waits for its answer; the rest expire as the server likes.
                return min(code, peerd_bus_append_i32(m, request.waitsForAnswer ? 0 : -1))
            }
            defer { _ = sd_bus_message_unref(reply) }
            var id: UInt32 = 0
            guard peerd_bus_read_u32(reply, &id) > 0 else { throw BusError(step: "Notify", code: -EBADMSG, detail: "no id in the reply") }
            return id
        }
    }

    /// Closes notification `id`.
    func close(_ id: UInt32) async throws(BusError) {
        try await onQueue { bus throws(BusError) in
            _ = sd_bus_message_unref(try Self.call(bus, "CloseNotification") { peerd_bus_append_u32($0, id) })
        }
    }

    /// Calls `method` on the server with the arguments `append` writes; the reply.
    private static func call(_ bus: OpaquePointer, _ method: String, append: (OpaquePointer?) -> Int32) throws(BusError) -> OpaquePointer? {
        var message: OpaquePointer?
        var code = sd_bus_message_new_method_call(bus, &message, destination, path, destination, method)
        guard code >= 0 else { throw BusError(step: method, code: code, detail: "") }
        defer { _ = sd_bus_message_unref(message) }
        code = append(message)
        guard code >= 0 else { throw BusError(step: method, code: code, detail: "building the call") }
        var error = peerd_bus_error_null()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        code = sd_bus_call(bus, message, callTimeout, &error, &reply)
        guard code >= 0 else {
            let detail = [error.name, error.message].compactMap { $0.map { String(cString: $0) } }.joined(separator: ": ")
            throw BusError(step: method, code: detail.isEmpty ? code : 0, detail: detail)
        }
        return reply
    }

    /// Appends one `{sv}` hint.
    private static func hint(_ m: OpaquePointer?, _ key: String, string: String? = nil, bool: Bool? = nil, byte: UInt8? = nil, int: Int32? = nil) -> Int32 {
        var code = sd_bus_message_open_container(m, PEERD_BUS_DICT_ENTRY, "sv")
        code = min(code, peerd_bus_append_string(m, key))
        if let string {
            code = min(code, sd_bus_message_open_container(m, PEERD_BUS_VARIANT, "s"), peerd_bus_append_string(m, string))
        } else if let bool {
            code = min(code, sd_bus_message_open_container(m, PEERD_BUS_VARIANT, "b"), peerd_bus_append_bool(m, bool ? 1 : 0))
        } else if let byte {
            code = min(code, sd_bus_message_open_container(m, PEERD_BUS_VARIANT, "y"), peerd_bus_append_byte(m, byte))
        } else if let int {
            code = min(code, sd_bus_message_open_container(m, PEERD_BUS_VARIANT, "i"), peerd_bus_append_i32(m, int))
        }
        code = min(code, sd_bus_message_close_container(m))
        return min(code, sd_bus_message_close_container(m))
    }
}

/// `ActionInvoked(u id, s action_key)`: called from C inside `sd_bus_process`.
private func busActionInvoked(_ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    var id: UInt32 = 0
    guard let context, peerd_bus_read_u32(message, &id) > 0, let key = peerd_bus_read_string(message) else { return 0 }
    Unmanaged<NotificationBus>.fromOpaque(context).takeUnretainedValue().received(.actionInvoked(id: id, action: String(cString: key)))
    return 0
}

/// `NotificationClosed(u id, u reason)`: called from C inside `sd_bus_process`.
private func busNotificationClosed(_ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    var id: UInt32 = 0
    guard let context, peerd_bus_read_u32(message, &id) > 0 else { return 0 }
    Unmanaged<NotificationBus>.fromOpaque(context).takeUnretainedValue().received(.closed(id: id))
    return 0
}
