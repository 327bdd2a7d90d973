
/// `peerctl COMMAND --help`: each command's usage and what it does.
package enum PeerctlHelp {
    /// The help text of `command`; nil for an unknown one.
    package static func text(for command: String) -> String? {
        switch command {
        case "status":
            return """
            Usage: peerctl [--json] status

            Shows the name in use (after any collision rename), the peer id, the
            service type and session port, whether the service is published, the
            link to avahi-daemon, and peer counts.
            """
        case "peers":
            return """
            Usage: peerctl [--json] peers

            Lists every peer: UUID, name, state, where it is reachable, and when it
            was last seen. A peer that went away stays listed as lost and keeps its
            UUID when it returns.
            """
        case "peer":
            return """
            Usage: peerctl [--json] peer ID

            Shows one peer with all its endpoints and TXT info. ID is a full UUID,
            a unique prefix of one, or a unique name.
            """
        case "invite":
            return """
            Usage: peerctl [--json] invite PEER [--context TEXT] [--timeout S] [--wait]

            Dials PEER, proves both identities with a Noise XX handshake, and sends an
            invitation carrying TEXT (at most 4096 bytes). The invitee's clients see it
            and accept or decline; no answer within S seconds (default 30) is a decline.
            Inviting a peer that is connected or connecting returns that session.
            When that session was accepted for an app alone (an app's invitation
            opened it), the invitation asks it to carry the default app too, and the
            invitee decides it the same way.
            With --wait, exits 0 once connected and 1 when the invitation fails.
            """
        case "invitations":
            return """
            Usage: peerctl [--json] invitations

            Lists the invitations waiting for a decision on this host.
            """
        case "accept", "decline":
            return """
            Usage: peerctl \(command) ID

            \(command == "accept" ? "Accepts" : "Declines") the invitation ID (as listed by 'peerctl invitations' or shown by
            'peerctl watch'; a unique prefix is enough).
            """
        case "disconnect":
            return """
            Usage: peerctl disconnect PEER

            Closes the session with PEER (reason closedLocally on this side,
            closedByPeer on the other).
            """
        case "send":
            return """
            Usage: peerctl send PEER TEXT
                   peerctl send PEER -            (the message is all of stdin)
                   peerctl send PEER - --lines    (every stdin line is one message)
                   peerctl send PEER PEER... TEXT (one message to several peers)
                   peerctl send --all TEXT        (to every connected peer)

            Sends to a connected peer; delivery is reliable and ordered. When the
            peer is slow and the daemon's queue is full, peerctl waits and retries.
            With --queue, a message for a paired peer that is offline is stored
            durably (up to 64 MiB per peer) and delivered in order when it reconnects.

            With --lines toward a connected peer (and neither --queue nor --json), the
            lines stream through a message channel as they are read: the peer gets the
            same messages, many times faster. Messages the peer sends meanwhile still
            go to 'peerctl recv' or the inbox.

            To several peers it is one request with one answer: a line per peer,
            its result or why it was not sent (a busy peer is not retried); exit
            status 1 when any peer was not sent to.
            """
        case "queue":
            return """
            Usage: peerctl [--json] queue

            Lists the messages waiting for offline paired peers.
            """
        case "recv":
            return """
            Usage: peerctl [--json] recv [--from PEER] [--count N]

            Prints messages one per line (with --json: one object per line, data in
            base64): first those waiting in the inbox (messages that arrived while no
            client took them), oldest first, then each as it arrives. While recv runs,
            messages come to it rather than to the inbox; with --from, only that
            peer's. Stops after N messages when --count is given; messages after the
            N-th stay in the inbox.
            """
        case "inbox":
            return """
            Usage: peerctl [--json] inbox [--from PEER] [--max N]

            Lists the messages waiting in the inbox (without their data): id, sender,
            when it arrived, size; then how full the inbox is (--inbox-size on peerd).
            Shows at most N (default 1000).
            """
        case "take":
            return """
            Usage: peerctl [--json] take [--from PEER] [--count N]

            Prints the messages waiting in the inbox, oldest first, as recv does, and
            takes them: once printed they leave the inbox. Takes at most N (default:
            all that wait), and never waits for new ones. Exits 0 also when none wait.
            """
        case "wait":
            return """
            Usage: peerctl wait PEER --state notConnected|connecting|connected [--timeout S]

            Exits 0 as soon as PEER is in STATE, 1 if S seconds (default 30) pass first.
            """
        case "pair":
            return """
            Usage: peerctl [--json] pair PEER

            Opens (or reuses) a session with PEER and starts pairing. Both hosts derive
            the same 6-digit code from the Noise handshake and a commit-then-reveal
            exchange of nonces. This command prints the code and waits; the user of
            PEER confirms it with 'peerctl pair-accept ID --code NNNNNN'. Exits 0 when
            paired, 1 when rejected, mistyped or timed out (60 s by default).
            """
        case "pair-accept":
            return """
            Usage: peerctl pair-accept ID --code NNNNNN
                   peerctl pair-accept ID          (interactive: shows the code, asks y/N)

            Confirms the pairing request ID (see 'peerctl pairings' or 'peerctl watch')
            with the code shown on the other host's screen. A wrong code fails the
            pairing; three wrong codes in 10 minutes lock that peer out for 10 minutes.
            """
        case "pair-reject":
            return """
            Usage: peerctl pair-reject ID

            Rejects the pairing ID.
            """
        case "pairings":
            return """
            Usage: peerctl [--json] pairings

            Lists the pairings in progress, with their codes once known.
            """
        case "paired":
            return """
            Usage: peerctl [--json] paired

            Lists the trust store: every paired peer with its key, UUID and pairing time.
            """
        case "unpair":
            return """
            Usage: peerctl unpair PEER

            Removes PEER from the trust store, closes the session and tells PEER,
            which removes its trust too when it can be reached.
            """
        case "watch":
            return """
            Usage: peerctl [--json] watch [--since N]

            Streams events until interrupted: peerFound, peerUpdated, peerLost.
            Every event has a sequence number; --since N first replays the events
            after N that the daemon still holds. With --json, one object per line.
            """
        case "add":
            return """
            Usage: peerctl [--json] add HOST[:PORT] [--context TEXT] [--timeout S] [--wait]

            Reaches a peer that mDNS cannot show: on another subnet, over a VPN,
            behind Wi-Fi client isolation, or where multicast is filtered. HOST is
            an IPv4 address, an IPv6 address ([ADDRESS]:PORT with a port;
            fe80::1%eth0 for a link-local one) or a host name, resolved here and
            tried address by address. PORT defaults to 7717, where peerd listens
            unless --port says otherwise ('peerctl status' there shows it).

            Once the peer proves its key it is a row like any other ('peerctl
            peers'), and the session goes on as an invitation (TEXT is its
            context). Pair with it to have it remembered: paired, its address is
            kept and it is reconnected, with no mDNS. With --wait, exits 0 once
            connected and 1 when the invitation fails.

              peerctl add 10.0.2.7
              peerctl add nas.example.lan:7800 --wait
            """
        case "apps":
            return """
            Usage: peerctl [--json] apps
                   peerctl apps add NAME [--info KEY=VALUE]...
                   peerctl apps remove NAME

            Apps are programs built on peerd, each with a name of its own (as
            MultipeerConnectivity's serviceType): 1 to 15 lowercase letters,
            digits and hyphens, with a letter, and no hyphen first, last or
            next to another. Each is published as the DNS-SD subtype
            _NAME._sub._peerd._tcp, with its info in this host's TXT record
            as NAME.KEY=VALUE, so 'avahi-browse -r _chat._sub._peerd._tcp'
            lists the hosts where chat runs.

            'apps' lists those registered here: name, the uid that holds it,
            live clients, declared or not, and info. A client holds an app
            live while it is connected ('peerctl --app chat recv' holds chat
            while it waits). 'apps add' declares one: published while peerd
            runs, kept across restarts, held by your uid; 'apps remove'
            ends that (a live client still holding it keeps it). Another uid
            cannot register a name you hold. One app's info takes at most 400
            bytes of the record.

              peerctl apps add chat --info room=lobby
              peerctl --app chat watch
            """
        case "top":
            return """
            Usage: peerctl top

            A live view of the peers: the list on the left (name, state, paired,
            last seen, addresses, traffic), the selected peer in full on the right
            (endpoints, TXT info, session, invitations, pairing, transfers, its
            latest events). Narrow terminals stack the two, or show the list alone
            (Enter opens a peer, Esc returns). Updated from the daemon's events.

            Keys: arrows or j/k move, / filters, s changes the sort, i invites,
            a/d accepts or declines its invitation, p pairs, x disconnects,
            Ctrl-L redraws, ? shows the keys, q quits.

            When stdout is not a terminal, prints one plain snapshot (or, with
            --json, the peers) and exits. NO_COLOR and TERM=dumb turn colour off.
            """
        case "doctor":
            return """
            Usage: peerctl [--json] [--app NAME] doctor [PEER]

            Checks, in order, why peers (or PEER) cannot be seen or reached, and
            says how to fix each problem in one line:
              daemons      peerd answers; avahi-daemon runs and is on D-Bus; no
                           other mDNS responder holds UDP 5353
              interfaces   up, MULTICAST, with addresses; not excluded by
                           avahi-daemon.conf; no default route through a VPN
              firewall     nftables (and ufw, firewalld) let in UDP 5353 and
                           peerd's TCP port
              announcement peerd's service is registered and browsable, TXT right
              PEER         seen (where, when), on our subnet, port open, protocol,
                           advertised id matches its key, paired, lockouts;
                           with --app NAME, whether PEER advertises the app
              multicast    answers seen on the link; bridges snooping without a
                           querier
            Each line is [✓] ok, [!] a warning or [✗] a failure. Exits 1 when a
            check fails. Where discovery is the problem, 'peerctl add HOST' still
            reaches the peer.
            """
        default:
            return dataPlaneText(for: command)
        }
    }
}
