import FoundationEssentials

/// What the desktop app's detail pane shows for a peer, widget by widget,
/// in order: made from the peer's presentation, the inbox and the files
/// the app was opened with, and compared with what is shown before the
/// pane is touched (issue 45).
///
/// The pane used to be rebuilt on every change of the model, a transfer's
/// progress included, several times a second: a button pressed just
/// before a rebuild was a widget already gone, and the press was lost (an
/// accessibility press, and a pointer's press whose release came after
/// the rebuild). Now a change that keeps the same widgets (``sameShape(as:)``:
/// only the facts or a progress bar's percent differ) updates those in
/// place, and the buttons stay the same widgets. The facts are one item:
/// a peer's first round trip or path adds a fact, and that must not
/// rebuild the buttons beside them either.
package struct PeerDetailLayout: Equatable, Sendable {
    /// What a button does.
    package enum Command: Equatable, Hashable, Sendable {
        /// One of the peer's actions (invite, pair, …).
        case peer(PeerDetailPresentation.Action)
        /// Confirms the code typed for a pairing.
        case confirmCode(pairing: String)
        /// Accepts or declines an invitation.
        case acceptInvitation(String), declineInvitation(String)
        /// Moves a finished transfer's files out of the service's downloads.
        case saveFiles(transfer: String, folder: String)
        /// Opens the user's folder the files were moved into.
        case openFolder(transfer: String, path: String)
        /// The files given on the command line.
        case sendFiles
        /// The file chooser, then the files chosen.
        case chooseFiles
        /// Sends the message box's text.
        case sendMessage
        /// Accepts or declines an offer.
        case accept(transfer: String), decline(transfer: String)
    }

    /// A button: its label (and accessible name) and what it does.
    package struct Button: Equatable, Sendable {
        /// Its label.
        package var label: String
        /// What it does.
        package var command: Command
    }

    /// One widget, or one row of buttons.
    package enum Item: Equatable, Sendable {
        /// No peer is selected: a line saying so.
        case nothing(String)
        /// The peer's name, large.
        case title(String)
        /// The facts, a line each ("label: value"), in one box whose lines
        /// change in place.
        case facts([PeerDetailPresentation.Fact])
        /// A line of words.
        case line(String)
        /// A row of buttons.
        case buttons([Button])
        /// The field for the code the other host shows.
        case codeEntry
        /// The message box, with its placeholder.
        case messageEntry(placeholder: String)
        /// A transfer's progress bar, named `label`; its percent changes in place.
        case progress(label: String, percent: Int)

        /// The item with what changes in place taken out.
        var shape: Item {
            switch self {
            case .facts: .facts([])
            case .progress(let label, _): .progress(label: label, percent: 0)
            default: self
            }
        }
    }

    /// The peer it shows, or nil.
    package var peer: UUID?
    /// The widgets, in order.
    package var items: [Item]

    /// The same peer and widgets as `other`: only the facts and progress
    /// percents may differ, which are changed in place.
    package func sameShape(as other: PeerDetailLayout) -> Bool {
        peer == other.peer && items.map(\.shape) == other.items.map(\.shape)
    }

    /// The pane with no peer selected.
    package static let none = PeerDetailLayout(peer: nil, items: [.nothing("Select a peer to see it here.")])

    /// The pane for `peer`, shown as `presentation`: its facts and actions,
    /// then what waits in `inbox` for it (an invitation, a pairing, offers
    /// and transfers), the `files` to send, and the message box.
    package init(_ presentation: PeerDetailPresentation, peer: UUID, inbox: DesktopInbox, files: [String]) {
        var items: [Item] = [.title(presentation.title)]
        items.append(.facts(presentation.facts))
        items.append(.buttons(presentation.actions.map { Button(label: $0.label, command: .peer($0)) }))
        if let invitation = inbox.invitations[peer] {
            items.append(.line("\(presentation.title) invites you to a session."))
            items.append(.buttons([Button(label: "Accept invitation", command: .acceptInvitation(invitation)),
                                   Button(label: "Decline invitation", command: .declineInvitation(invitation))]))
        }
        if let pairing = inbox.pairings[peer] {
            if let code = pairing.code {
                items.append(.line("Pairing code: \(code). Type it on \(presentation.title)."))
            } else {
                items.append(.line("Type the code that \(presentation.title) shows:"))
                items.append(.codeEntry)
                items.append(.buttons([Button(label: "Confirm code", command: .confirmCode(pairing: pairing.id))]))
            }
        }
        if !files.isEmpty {
            items.append(.line("To send: " + files.map { NotificationText.peerText($0.split(separator: "/").last.map(String.init) ?? $0) }
                .joined(separator: ", ")))
        }
        var send: [Button] = []
        if !files.isEmpty { send.append(Button(label: files.count == 1 ? "Send 1 file" : "Send \(files.count) files", command: .sendFiles)) }
        // Or drop files on the window.
        send.append(Button(label: "Send files…", command: .chooseFiles))
        items.append(.buttons(send))
        items.append(.messageEntry(placeholder: "A message to \(presentation.title)"))
        items.append(.buttons([Button(label: "Send message", command: .sendMessage)]))
        for offer in inbox.offers[peer] ?? [] {
            if let folder = offer.folder {
                items.append(.line(offer.savedTo.map { "Received \(offer.files), in \($0)" } ?? "Received \(offer.files)"))
                // The service's downloads are not the user's to open: moved first.
                items.append(.buttons([offer.savedTo.map { Button(label: "Open folder", command: .openFolder(transfer: offer.id, path: $0)) }
                    ?? Button(label: "Save to Downloads", command: .saveFiles(transfer: offer.id, folder: folder))]))
            } else if !offer.waiting {
                items.append(.line("Receiving \(offer.files)"))
                items.append(.progress(label: "Receiving \(offer.files)", percent: offer.percent))
            } else {
                items.append(.line("Offers \(offer.files)"))
                items.append(.buttons([Button(label: "Accept files", command: .accept(transfer: offer.id)),
                                       Button(label: "Decline files", command: .decline(transfer: offer.id))]))
            }
        }
        self.peer = peer
        self.items = items
    }

    /// A layout of `items` for `peer`, as they are.
    package init(peer: UUID?, items: [Item]) {
        self.peer = peer
        self.items = items
    }
}
