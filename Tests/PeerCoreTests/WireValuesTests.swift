import XCTest
@testable import PeerCore
import PeerProtocol

/// Every value that crosses the wire or reaches the disk, pinned: JSON
/// strings of the control protocol and the one-byte codes of the session
/// protocol. Renaming or reordering a case fails here first.
final class WireValuesTests: XCTestCase {
    private func pin<T: RawRepresentable & CaseIterable>(_ type: T.Type, _ expected: [String], file: StaticString = #filePath, line: UInt = #line)
        where T.RawValue == String {
        XCTAssertEqual(T.allCases.map(\.rawValue).sorted(), expected.sorted(), "\(T.self)", file: file, line: line)
    }

    func testControlProtocolStrings() {
        pin(ControlMethod.self, ["status", "peers", "peer", "subscribe", "invite", "invitations", "accept", "decline", "disconnect", "send",
                                 "pair", "pairAccept", "pairReject", "pairings", "paired", "unpair", "queue", "inbox", "take", "sendFile",
                                 "acceptTransfer", "declineTransfer", "cancelTransfer", "transfers", "pipe", "channel", "add",
                                 "register", "apps", "appAdd", "appRemove", "datagram", "datagrams", "quickSave", "downloads", "fetch"])
        pin(ControlErrorCode.self, ["badRequest", "unsupportedVersion", "unknownMethod", "invalidParams", "permissionDenied", "notFound",
                                    "ambiguous", "overloaded", "notConnected", "busy", "unreachable", "wrongCode", "storageFailed", "queueFull", "unsupported", "appBusy",
                                    "shuttingDown", "internal"])
        pin(EventKind.self, ["peerFound", "peerUpdated", "peerLost", "peerRemoved", "delivered", "stateChanged", "inviteFailed", "invitation",
                             "message", "stored", "undelivered", "appStateChanged", "identityMismatch", "pairingRequest", "pairingCode", "paired", "pairingFailed", "unpaired", "error", "channelOpened",
                             "transferOffered", "transferProgress", "transferCompleted", "transferFailed"])
        pin(TransferState.self, ["offered", "active", "interrupted", "completed", "declined", "cancelled", "failed"])
        pin(TransferAcceptance.self, ["client", "policy", "quickSave"])
        XCTAssertEqual([DownloadEntry.file, DownloadEntry.folder], ["file", "folder"], "DownloadEntry.kind")
        pin(TransferDirection.self, ["send", "receive"])
        pin(FlowEndReason.self, ["cancelled", "declined", "timedOut", "noSpace", "ioError", "verifyFailed", "protocolError", "busy", "closed",
                                 "unknownName", "unsupported"])
        pin(ConnectionState.self, ["notConnected", "connecting", "connected"])
        pin(AddressFamily.self, ["ipv4", "ipv6"])
        pin(AvahiStatus.self, ["starting", "waitingForDaemon", "registering", "running", "collision", "reconnecting", "stopped"])
        pin(PublicationState.self, ["idle", "registering", "established", "failed"])
        pin(AutoAcceptPolicy.self, ["none", "paired", "all"])
        pin(CloseReason.self, ["declined", "timedOut", "handshakeFailed", "identityMismatch", "closedByPeer", "closedLocally",
                               "keepaliveLost", "tooLarge", "protocolError", "duplicate", "busy"])
        pin(PairingFailure.self, ["rejected", "wrongCode", "timedOut", "commitmentMismatch", "lockedOut", "protocolError",
                                  "sessionClosed", "storageFailed"])
        pin(DatagramDrop.self, ["wouldBlock", "sendFailed", "noPath", "duplicate", "tooOld", "authFailed", "malformed", "rate",
                                "noReceiver", "slowReceiver"])
        pin(DatagramPath.State.self, ["waiting", "off", "probing", "up", "blocked"])
        pin(TransferPathRefusal.self, ["empty", "notUTF8", "notNFC", "absolute", "emptyComponent", "dotComponent", "controlCharacter",
                                       "tooLong", "reservedName", "invisibleCharacter", "lookalikeSeparator"])
    }

    func testPairingFailureCodesArePinned() {
        let pinned: [PairingFailure: UInt8] = [.rejected: 1, .wrongCode: 2, .timedOut: 3, .commitmentMismatch: 4, .lockedOut: 5,
                                               .protocolError: 6, .sessionClosed: 7, .storageFailed: 8]
        XCTAssertEqual(pinned.count, PairingFailure.allCases.count)
        for (failure, code) in pinned {
            XCTAssertEqual(failure.code, code, "\(failure)")
            XCTAssertEqual(PairingFailure(code: code), failure)
        }
        XCTAssertEqual(PairingFailure(code: 0), .protocolError)
        XCTAssertEqual(PairingFailure(code: 99), .protocolError)
    }

    func testLogLevelsAreSyslogPriorities() {
        XCTAssertEqual(LogLevel.allCases.map(\.rawValue), [3, 4, 5, 6, 7])
    }

    /// Which daemons take `channel`'s `receive` and `opened` (issue 25):
    /// peerctl and PeerKit ask before they use them.
    func testChannelOptionsComeWithZeroThreeZero() {
        for (version, takes) in [("0.1.0", false), ("0.2.0", false), ("0.2.9", false), ("0.3.0", true), ("0.10.1", true), ("1.0.0", true), ("", false)] {
            XCTAssertEqual(DaemonStatus.takesChannelOptions(version: version), takes, version)
        }
    }
}
