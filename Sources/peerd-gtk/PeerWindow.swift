import CGtk
import FoundationEssentials
import PeerKit
import PeerProtocol
import PeerSystem
import PeerTools

/// peerd-gtk's window (issue 45, point 1): a split view, the peers on one
/// side and the selected one on the other, folding into one column with
/// back navigation when narrow (libadwaita's `AdwLeaflet`). It draws
/// ``PeerListPresentation`` and ``PeerDetailPresentation`` from PeerKit's
/// `PeerSessionManager` and performs the detail's actions through
/// `PeerClient`; it decides nothing itself.
///
/// GTK calls back on this thread (the main one, whose GLib loop also runs
/// the main queue); its callbacks are file-scope functions that find this
/// window through their user data, never closures made here.
@MainActor
final class PeerWindow {
    let window: UnsafeMutablePointer<GtkWidget>
    let leaflet: UnsafeMutablePointer<GtkWidget>
    private let list: UnsafeMutablePointer<GtkWidget>
    private let detail: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>
    var model: PeerSessionManager?
    var client: PeerClient?
    /// The UUID of each list row, by the row's pointer.
    private var rowPeers: [UnsafeMutablePointer<GtkWidget>: UUID] = [:]
    /// What each detail button does, by the button's pointer.
    var buttonActions: [UnsafeMutablePointer<GtkWidget>: Command] = [:]
    /// The entry a pairing's code is typed into, while one is shown.
    var codeEntry: UnsafeMutablePointer<GtkWidget>?
    /// The entry of the message box, while a peer is shown.
    var messageEntry: UnsafeMutablePointer<GtkWidget>?
    /// Files given on the command line, to send to the peer the user picks.
    var files: [String]
    /// Pairings and offers waiting, from the daemon's events.
    var inbox = DesktopInbox()

    /// Paired peers' Quick Save rules, by peer (from `paired`).
    var quickSaveRules: [UUID: QuickSaveRule] = [:]
    /// The selected peer's paths and round trip (`peer`'s answer), by peer.
    var details: [UUID: PeerResult] = [:]
    /// What the list shows now, and whose row is selected in it.
    private var shownSections: [PeerListPresentation.Section]?
    private var shownSelection: UUID?
    /// What the detail pane shows now, widget by widget.
    private var shownLayout: PeerDetailLayout?
    /// The shown layout's facts and progress bars, by their place in it:
    /// what a change of the same shape updates in place.
    private var valueWidgets: [Int: UnsafeMutablePointer<GtkWidget>] = [:]
    /// The pane's Back button (shown when the window is folded).
    private var backButton: UnsafeMutablePointer<GtkWidget>?
    /// This user, whose Quick Save rules the detail may change.
    let uid = getuid()
    /// What the file chooser that is open was opened for.
    var choosing: Choosing?

    /// What the file chooser was opened for.
    enum Choosing {
        /// Files to offer the peer.
        case filesToSend(UUID)
        /// The peer's Quick Save folder.
        case quickSaveFolder(UUID)
    }

    /// What a detail button does (``PeerDetailLayout/Command``).
    typealias Command = PeerDetailLayout.Command
    /// Set while the list is rebuilt: its selection changes are the window's own.
    private var rebuilding = false

    /// The window's clock (injected: the shell reads no time of its own).
    let now: @Sendable () -> Date

    /// A window of `width` × `height`, with `files` to send; `now` is its clock.
    init(width: Int32, height: Int32, files: [String], now: @escaping @Sendable () -> Date) {
        self.files = files
        self.now = now
        window = gtk_window_new()
        gtk_window_set_title(peerd_gtk_window(window), "peerd")
        gtk_window_set_default_size(peerd_gtk_window(window), width, height)
        leaflet = adw_leaflet_new()
        adw_leaflet_set_can_navigate_back(peerd_adw_leaflet(leaflet), 1)
        list = gtk_list_box_new()
        peerd_gtk_accessible_label(list, "Peers")
        let scroller = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(peerd_gtk_scrolled(scroller), list)
        gtk_widget_set_size_request(scroller, 300, -1)
        gtk_widget_set_vexpand(scroller, 1)
        detail = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8)
        gtk_widget_set_hexpand(detail, 1)
        gtk_widget_set_margin_start(detail, 16)
        gtk_widget_set_margin_end(detail, 16)
        gtk_widget_set_margin_top(detail, 16)
        status = gtk_label_new("Connecting to peerd…")
        gtk_label_set_wrap(peerd_gtk_label(status), 1)
        gtk_label_set_max_width_chars(peerd_gtk_label(status), 40)
        let side = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        gtk_widget_set_size_request(side, 300, -1)
        gtk_widget_set_hexpand(side, 0)
        gtk_box_append(peerd_gtk_box(side), status)
        gtk_box_append(peerd_gtk_box(side), scroller)
        _ = adw_leaflet_append(peerd_adw_leaflet(leaflet), side)
        _ = adw_leaflet_append(peerd_adw_leaflet(leaflet), detail)
        gtk_window_set_child(peerd_gtk_window(window), leaflet)
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = peerd_gtk_on_row_selected(list, gtkRowSelected, context)
        _ = peerd_gtk_on_close(window, gtkCloseRequested, context)
        peerd_gtk_accept_file_drops(window, gtkFilesDropped, context)
        showDetail(.none)
    }

    /// Shows the window.
    func present() { gtk_window_present(peerd_gtk_window(window)) }

    /// Takes in what waits already (at start, and after missed events).
    private func catchUp(_ client: PeerClient) async {
        do {
            let invitations = try await client.invitations(), pairings = try await client.pairings(), transfers = try await client.transfers()
            inbox.catchUp(invitations: invitations, pairings: pairings, transfers: transfers, now: now())
            await refreshQuickSave()
        } catch {
            say("cannot list what waits: \(error)")
        }
    }

    /// Selects the peer of the offer, pairing or invitation `id` (the
    /// agent's Show), once the daemon lists it.
    func show(_ id: String) async {
        guard let client, let model else { return }
        let transfers = (try? await client.transfers()) ?? [], pairings = (try? await client.pairings()) ?? []
        let invitations = (try? await client.invitations()) ?? []
        guard let peer = DesktopInbox.peer(of: id, transfers: transfers, pairings: pairings, invitations: invitations) else {
            return say("Nothing waits under \(NotificationText.peerText(id)) now: it was answered, or it expired.")
        }
        model.selection = peer
        adw_leaflet_navigate(peerd_adw_leaflet(leaflet), ADW_NAVIGATION_DIRECTION_FORWARD)
    }

    /// Follows `client` through a model of its peers, until the process
    /// ends; `show`: an id to select the peer of, once the peers are in.
    func follow(_ client: PeerClient, show: String? = nil) async {
        self.client = client
        let model = PeerSessionManager { [weak self] model in self?.redraw(model) }
        self.model = model
        gtk_label_set_text(peerd_gtk_label(status), "")
        gtk_widget_set_visible(status, 0)
        Task { @MainActor in await self.followInbox(client, show: show) }
        Task { @MainActor in await self.followDetails(client) }
        if let error = await model.run(client) { say("peerd went away: \(error)") }
    }

    /// Keeps ``inbox`` with the daemon's pairing and transfer events,
    /// after taking in what waits already (then selects `show`'s peer).
    private func followInbox(_ client: PeerClient, show: String?) async {
        var events = client.events().makeAsyncIterator()
        // Once the subscription is made (what comes meanwhile is taken in twice, to the same effect).
        Task { @MainActor in
            await self.catchUp(client)
            if let show { await self.show(show) }
        }
        do {
            while let event = try await events.next() {
                guard case .event(let event) = event else {
                    await catchUp(client)
                    continue
                }
                let before = inbox
                inbox.apply(event)
                if event.type == .paired || event.type == .unpaired { await refreshQuickSave() }
                else if inbox != before, let model { redraw(model) }
            }
        } catch {
            say("peerd's events stopped: \(error)")
        }
    }

    /// Says `words` above the list (no daemon, no permission, no peers yet).
    func say(_ words: String) {
        gtk_label_set_text(peerd_gtk_label(status), words)
        gtk_widget_set_visible(status, 1)
    }

    func redraw(_ model: PeerSessionManager) {
        let sections = PeerListPresentation.sections(model.peers, states: model.peerStates)
        if sections.isEmpty { say("No peers yet. Hosts running peerd on this network appear here as mDNS finds them.") }
        else if model.peers.count > 0 { gtk_widget_set_visible(status, 0) }
        // The list is built anew only when what it shows changed: a click
        // on a row that is being replaced is lost, as the detail's were.
        if sections != shownSections || model.selection != shownSelection { rebuildList(sections, selection: model.selection) }
        showDetail(detailLayout(model))
    }

    /// Builds the list anew: `sections`, with `selection`'s row selected.
    private func rebuildList(_ sections: [PeerListPresentation.Section], selection: UUID?) {
        rebuilding = true
        defer { rebuilding = false }
        (shownSections, shownSelection) = (sections, selection)
        while let child = gtk_widget_get_first_child(list) { gtk_list_box_remove(peerd_gtk_list_box(list), child) }
        rowPeers = [:]
        for section in sections {
            let header = gtk_list_box_row_new()!
            let title = gtk_label_new(section.title)
            gtk_widget_add_css_class(title, "heading")
            gtk_widget_set_halign(title, GTK_ALIGN_START)
            gtk_list_box_row_set_child(peerd_gtk_list_box_row(header), title)
            gtk_list_box_row_set_selectable(peerd_gtk_list_box_row(header), 0)
            gtk_list_box_row_set_activatable(peerd_gtk_list_box_row(header), 0)
            gtk_list_box_append(peerd_gtk_list_box(list), header)
            for row in section.rows {
                let item = gtk_list_box_row_new()!
                let words = row.apps.isEmpty ? "\(row.name) — \(row.state)" : "\(row.name) — \(row.state) — \(row.apps)"
                let label = gtk_label_new(words)
                gtk_widget_set_halign(label, GTK_ALIGN_START)
                gtk_list_box_row_set_child(peerd_gtk_list_box_row(item), label)
                peerd_gtk_accessible_label(item, row.name)
                gtk_list_box_append(peerd_gtk_list_box(list), item)
                rowPeers[item] = row.id
                if row.id == selection { gtk_list_box_select_row(peerd_gtk_list_box(list), peerd_gtk_list_box_row(item)) }
            }
        }
    }

    /// The detail pane for the model's selected peer, as it stands.
    func detailLayout(_ model: PeerSessionManager) -> PeerDetailLayout {
        model.selectedPeer.map {
            PeerDetailLayout(PeerDetailPresentation($0, state: model.peerStates[$0.id] ?? $0.state, pairing: inbox.pairings[$0.id],
                                                    quickSave: quickSaveRules[$0.id], uid: uid, details: details[$0.id]),
                             peer: $0.id, inbox: inbox, files: files)
        } ?? .none
    }

    /// Shows `layout` in the detail pane. When it has the widgets already
    /// shown (``PeerDetailLayout/sameShape(as:)``), only the facts' words
    /// and the progress bars change, and every button stays the widget it
    /// was; otherwise the pane is built anew.
    func showDetail(_ layout: PeerDetailLayout) {
        if let shownLayout, shownLayout.sameShape(as: layout) {
            for (index, item) in layout.items.enumerated() where item != shownLayout.items[index] {
                guard let widget = valueWidgets[index] else { continue }
                switch item {
                case .facts(let facts): fillFacts(widget, facts)
                case .progress(_, let percent): gtk_progress_bar_set_fraction(peerd_gtk_progress_bar(widget), Double(percent) / 100)
                default: break
                }
            }
            self.shownLayout = layout
            if let backButton { gtk_widget_set_visible(backButton, adw_leaflet_get_folded(peerd_adw_leaflet(leaflet))) }
            return
        }
        // A code or a message half typed survives a rebuild for the same
        // peer (never another's pane).
        let samePeer = shownLayout?.peer == layout.peer
        let typed = samePeer ? codeEntry.map { String(cString: gtk_editable_get_text(peerd_gtk_editable($0))) } ?? "" : ""
        let typedMessage = samePeer ? messageEntry.map { String(cString: gtk_editable_get_text(peerd_gtk_editable($0))) } ?? "" : ""
        while let child = gtk_widget_get_first_child(detail) { gtk_box_remove(peerd_gtk_box(detail), child) }
        buttonActions = [:]
        valueWidgets = [:]
        codeEntry = nil
        messageEntry = nil
        let back = gtk_button_new_with_label("Back")!
        peerd_gtk_accessible_label(back, "Back to the peers")
        gtk_widget_set_visible(back, adw_leaflet_get_folded(peerd_adw_leaflet(leaflet)))
        _ = peerd_gtk_on_clicked(back, gtkBackClicked, Unmanaged.passUnretained(self).toOpaque())
        gtk_box_append(peerd_gtk_box(detail), back)
        backButton = back
        for (index, item) in layout.items.enumerated() {
            switch item {
            case .nothing(let words):
                gtk_box_append(peerd_gtk_box(detail), gtk_label_new(words))
            case .title(let title):
                let label = gtk_label_new(title)
                gtk_widget_add_css_class(label, "title-1")
                gtk_widget_set_halign(label, GTK_ALIGN_START)
                gtk_box_append(peerd_gtk_box(detail), label)
            case .facts(let facts):
                let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
                fillFacts(box, facts)
                gtk_box_append(peerd_gtk_box(detail), box)
                valueWidgets[index] = box
            case .line(let words):
                addLine(words)
            case .buttons(let buttons):
                let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
                for button in buttons { addButton(button.label, button.command, to: row) }
                gtk_box_append(peerd_gtk_box(detail), row)
            case .codeEntry:
                let entry = gtk_entry_new()!
                peerd_gtk_accessible_label(entry, "Pairing code")
                gtk_editable_set_text(peerd_gtk_editable(entry), typed)
                gtk_entry_set_max_length(peerd_gtk_entry(entry), 6)
                gtk_box_append(peerd_gtk_box(detail), entry)
                codeEntry = entry
            case .messageEntry(let placeholder):
                let message = gtk_entry_new()!
                peerd_gtk_accessible_label(message, "Message")
                gtk_entry_set_placeholder_text(peerd_gtk_entry(message), placeholder)
                gtk_editable_set_text(peerd_gtk_editable(message), typedMessage)
                gtk_box_append(peerd_gtk_box(detail), message)
                messageEntry = message
            case .progress(let label, let percent):
                let bar = gtk_progress_bar_new()!
                gtk_progress_bar_set_fraction(peerd_gtk_progress_bar(bar), Double(percent) / 100)
                gtk_progress_bar_set_show_text(peerd_gtk_progress_bar(bar), 1)
                peerd_gtk_accessible_label(bar, label)
                gtk_box_append(peerd_gtk_box(detail), bar)
                valueWidgets[index] = bar
            }
        }
        shownLayout = layout
    }

    /// Fills `box` with a line per fact, in place of what it held.
    private func fillFacts(_ box: UnsafeMutablePointer<GtkWidget>, _ facts: [PeerDetailPresentation.Fact]) {
        while let child = gtk_widget_get_first_child(box) { gtk_box_remove(peerd_gtk_box(box), child) }
        for fact in facts {
            let line = gtk_label_new("\(fact.label): \(fact.value)")
            // Long addresses wrap: the narrow window is 360 pixels wide.
            gtk_label_set_wrap(peerd_gtk_label(line), 1)
            gtk_label_set_wrap_mode(peerd_gtk_label(line), PANGO_WRAP_WORD_CHAR)
            gtk_label_set_xalign(peerd_gtk_label(line), 0)
            gtk_widget_set_halign(line, GTK_ALIGN_START)
            gtk_box_append(peerd_gtk_box(box), line)
        }
    }

    /// A line of words in the detail.
    private func addLine(_ words: String) {
        let line = gtk_label_new(words)
        gtk_label_set_wrap(peerd_gtk_label(line), 1)
        gtk_label_set_xalign(peerd_gtk_label(line), 0)
        gtk_widget_set_halign(line, GTK_ALIGN_START)
        gtk_box_append(peerd_gtk_box(detail), line)
    }

    /// A button that performs `command`, in `box`.
    private func addButton(_ label: String, _ command: Command, to box: UnsafeMutablePointer<GtkWidget>) {
        let button = gtk_button_new_with_label(label)!
        buttonActions[button] = command
        _ = peerd_gtk_on_clicked(button, gtkActionClicked, Unmanaged.passUnretained(self).toOpaque())
        gtk_box_append(peerd_gtk_box(box), button)
    }

    fileprivate func rowSelected(_ row: UnsafeMutablePointer<GtkWidget>?) {
        guard !rebuilding, let model else { return }
        model.selection = row.flatMap { rowPeers[$0] }
        if model.selection != nil { adw_leaflet_navigate(peerd_adw_leaflet(leaflet), ADW_NAVIGATION_DIRECTION_FORWARD) }
    }

    fileprivate func back() {
        adw_leaflet_navigate(peerd_adw_leaflet(leaflet), ADW_NAVIGATION_DIRECTION_BACK)
    }
}

// GTK's callbacks. They run on the main thread (GLib's loop is there), so
// the main actor's isolation holds; the pointers cross into it as plain
// numbers, which are Sendable, and back.

/// The window behind a callback's user data.
@MainActor
func peerWindow(_ bits: UInt) -> PeerWindow {
    Unmanaged<PeerWindow>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
}

/// "row-selected": called from C on the main thread.
private func gtkRowSelected(_ list: UnsafeMutablePointer<GtkWidget>?, _ row: UnsafeMutablePointer<GtkWidget>?, _ context: gpointer?) {
    let (window, row) = (UInt(bitPattern: context), UInt(bitPattern: row))
    guard window != 0 else { return }
    MainActor.assumeIsolated { peerWindow(window).rowSelected(UnsafeMutablePointer(bitPattern: row)) }
}

/// The detail's "Back": called from C on the main thread.
private func gtkBackClicked(_ button: UnsafeMutablePointer<GtkWidget>?, _ context: gpointer?) {
    let window = UInt(bitPattern: context)
    guard window != 0 else { return }
    MainActor.assumeIsolated { peerWindow(window).back() }
}

/// An action's button: called from C on the main thread.
func gtkActionClicked(_ button: UnsafeMutablePointer<GtkWidget>?, _ context: gpointer?) {
    let (window, button) = (UInt(bitPattern: context), UInt(bitPattern: button))
    guard window != 0, button != 0 else { return }
    MainActor.assumeIsolated { peerWindow(window).clicked(UnsafeMutablePointer(bitPattern: button)!) }
}

/// The window's close: the app ends.
private func gtkCloseRequested(_ window: UnsafeMutablePointer<GtkWidget>?, _ context: gpointer?) -> gboolean {
    exit(0)
}
