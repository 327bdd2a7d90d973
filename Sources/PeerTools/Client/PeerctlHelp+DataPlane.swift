/// The data plane's commands (files, the download directory, Quick Save,
/// streams, datagrams): their help apart, as the protocol's docs keep them.
extension PeerctlHelp {
    /// The help text of a data-plane `command`; nil for any other.
    static func dataPlaneText(for command: String) -> String? {
        switch command {
        case "send-file":
            return """
            Usage: peerctl [--json] send-file PEER PATH... [--resume ID] [--no-wait]

            Offers files and directories (recursively) to a connected PEER. The
            receiver sees every name and the total before it accepts; files land in
            its download directory, in a folder named after this host. Symlinks
            are skipped, never followed. The files are handed to peerd as open
            descriptors: nothing is copied through the control socket.

            On a terminal a progress bar shows bytes, files, rate and time left
            (none on a pipe, or with NO_COLOR); --json prints the transfer's events
            as JSON lines. Waits until the transfer completes (exit 0) or fails,
            is declined or cancelled (exit 1). Interrupting peerctl does not stop
            the transfer: 'peerctl cancel-transfer ID' does.

            If the session breaks, the transfer resumes by itself when it is back;
            only blocks the receiver has not verified are sent again.
              --resume ID   offer the same files again under transfer ID (after
                            this host's peerd restarted, say): the receiver keeps
                            what it has verified
              --no-wait     print the transfer id and return at once
            """
        case "pipe":
            return """
            Usage: peerctl pipe PEER [--name N]

            Joins stdin and stdout to a two-way byte stream with PEER, over the
            encrypted session, like netcat. The other side runs 'peerctl pipe' with
            this host and the same name (default: pipe); whichever starts first
            waits for the other (a peer's side waits 30 s). For example:

              hosta$ tar c dir | peerctl pipe hostb --name backup
              hostb$ peerctl pipe hosta --name backup > dir.tar

            Bytes arrive in order. The end of stdin is a half-close: the other side
            reads end-of-file after the last byte, and may still send. Each stream
            has its own flow control, so a slow reader holds back only its stream.
            Exits 0 when both directions ended cleanly; 1 when either side reset
            the stream (its reason on stderr), as when the other peerctl is killed
            or the session ends. --json prints the result (bytes each way) to stderr.
            """
        case "dgram":
            return """
            Usage: peerctl [--json] [--app NAME] dgram send PEER TEXT|- [--lines | --fallback]
                   peerctl [--json] [--app NAME] dgram recv [--count N]

            Datagrams are MultipeerConnectivity's unreliable mode: each is sent now or
            dropped now, never queued and never retried, and may arrive out of order.
            They travel over UDP beside the session, encrypted with keys of their own,
            so they never wait behind a transfer. For live cursors, presence, game
            state and sensor readings, where a late message is worse than a lost one.

            send    one datagram of TEXT (stdin with -), at most 1,200 bytes (less
                    the app name's length with --app). With --lines, each line of
                    stdin is one datagram, through one socket (fast). Exit 0 when
                    sent; 1 when dropped or refused, with the reason: 'unreachable'
                    (UDP does not cross: 'peerctl doctor PEER'), 'unsupported' (the
                    peer's release has no datagrams), or the socket was full.
                    With --fallback, a datagram that cannot cross over UDP goes
                    in the encrypted session instead, dropped if more than 64 KiB
                    wait there: it may wait behind those (head-of-line).
            recv    print each datagram as one line, as it arrives; with --json one
                    object per line: peer, data (base64), lost, time. Datagrams the
                    daemon could not hand over because this reader was behind are
                    counted, and said on stderr ('lost N'); so is the total at the
                    end. With --count, exit after N datagrams.

            'peerctl peer PEER' shows the path ('up', 'probing', 'blocked', …), its
            round trip, and what was sent, received and dropped, by reason.
            """
        case "transfers":
            return """
            Usage: peerctl [--json] transfers [ID]

            Lists transfers in progress and the last 50 that ended, both directions:
            id, direction, peer, state, files and bytes done, and rate. With an ID
            (or a unique prefix), that transfer with every file, its verdict and
            where it was saved.
            """
        case "accept-transfer":
            return """
            Usage: peerctl [--json] accept-transfer ID [--files N,N,...]

            Accepts a waiting offer (see 'peerctl transfers' or the transferOffered
            event): every acceptable file, or only the numbered ones. Files whose
            names were refused (absolute, '..', control characters, ...) are never
            written, whatever is asked.
            """
        case "decline-transfer":
            return """
            Usage: peerctl decline-transfer ID

            Declines a waiting offer; the sender is told.
            """
        case "cancel-transfer":
            return """
            Usage: peerctl cancel-transfer ID

            Cancels a transfer in either direction. The other side is told; a
            receiver removes its partial files, and nothing is left at their names.
            """
        case "downloads":
            return """
            Usage: peerctl [--json] [--app NAME] downloads [FOLDER]

            Lists what landed in peerd's download directory, which only the
            service can read: with no FOLDER its top, a folder per peer (a
            transfer's 'folder' in 'peerctl transfers ID --json'); with FOLDER,
            that folder. Take files out with 'peerctl fetch'.
            """
        case "fetch":
            return """
            Usage: peerctl [--json] [--app NAME] fetch FOLDER[/PATH] [--into DIR] [--keep]

            Moves the files below FOLDER (or FOLDER/PATH) of peerd's download
            directory into DIR, keeping their paths below it, and removes them
            from the download directory (--keep leaves them there too). The
            files are made by you, with your rights: peerd copies into files
            you opened and never sees DIR. Nothing in DIR is replaced: a name
            that is taken gets ' (1)' and so on. DIR defaults to your download
            folder ($XDG_DOWNLOAD_DIR, else ~/Downloads) and the last part of
            FOLDER. A file that fails stays in the download directory, and the
            exit status is 1.

              peerctl fetch host2                  # into ~/Downloads/host2
              peerctl fetch host2/photos --into ~/Pictures/trip
            """
        case "quick-save":
            return """
            Usage: peerctl quick-save PEER FOLDER
                   peerctl quick-save PEER --off

            Quick Save: files PEER offers are accepted without asking, whatever
            peerd's --auto-accept says (the disk's room is still checked), and
            your desktop agent (peerd-agent) moves them into FOLDER as they
            land, with a notification that says so. The rule is kept with the
            pairing in peerd's state ('peerctl paired' shows it); unpairing
            removes it. PEER must be paired; a rule is its user's: only that
            user or root changes it. Without an agent, 'peerctl fetch' takes
            the files.
            """
        default:
            return nil
        }
    }
}
