#!/usr/bin/env python3
"""The soak's verdict (Tests/soak/soak.sh): reads what the traffic clients
sent and received, the files, pipes, faults, crashes and the daemons'
memory before and after, prints a table, and exits 1 on any failure.

Usage: check.py SOAK_DIR MINUTES SEED
Env: SOAK_MEMORY_CHECK=report prints the memory rows instead of checking
them (make test's short soak; make soak checks them).
"""
import collections
import hashlib
import json
import os
import sys

HOSTS = 4
# Memory and descriptors must come back within 10% of the quiet values
# before the faults; private memory gets 256 KiB of slack on top, the size of
# one read buffer (1.5-3 MB of private memory makes 10% only 150-300 KiB).
MEMORY_SLACK_KB = 256


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


def jsonl(path):
    out = []
    for line in lines(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main():
    soak, minutes, seed = sys.argv[1:4]
    checks = []   # (name, passed, detail)

    def check(name, passed, detail=""):
        checks.append((name, bool(passed), detail))

    # ---- messages ----
    sent = {i: jsonl(os.path.join(soak, "t%d" % i, "sent.jsonl")) for i in range(1, HOSTS + 1)}
    received = {i: jsonl(os.path.join(soak, "t%d" % i, "received.jsonl")) for i in range(1, HOSTS + 1)}
    for i in range(1, HOSTS + 1):
        check("traffic client %d finished" % i, sent[i] and sent[i][-1].get("kind") == "end")
    totals = collections.Counter()
    losses = []
    order_breaks = []
    strangers = []
    duplicate_list = []
    for kind in ("Q", "C"):
        for sender in range(1, HOSTS + 1):
            for receiver in range(1, HOSTS + 1):
                records = [r for r in sent[sender] if r.get("kind") == kind and r.get("to") == receiver]
                if not records:
                    continue
                confirmed = {r["n"] for r in records if r["state"] == "confirmed"}
                maybe = {r["n"] for r in records if r["state"] == "maybe"}
                arrivals = []
                for r in received[receiver]:
                    parts = r["text"].split()
                    if len(parts) == 4 and parts[0] == kind and parts[1] == str(sender) and parts[2] == str(receiver):
                        arrivals.append((int(parts[3]), r.get("inbox")))
                seen = set()
                inbox_ids = {}
                last = -1
                duplicates = 0
                handed_again = 0
                for number, inbox in arrivals:
                    if number in seen:
                        # The same inbox id: one stored copy handed out again
                        # (the daemon died between writing the take answer
                        # and marking it taken; the id lets an application
                        # drop it). Another id: a second copy, which
                        # exactly-once delivery must never make.
                        if inbox is not None and inbox_ids.get(number) == inbox:
                            handed_again += 1
                        else:
                            duplicates += 1
                            duplicate_list.append("%s %d->%d: %d" % (kind, sender, receiver, number))
                        continue
                    inbox_ids[number] = inbox
                    seen.add(number)
                    if number < last:
                        order_breaks.append("%s %d->%d: %d after %d" % (kind, sender, receiver, number, last))
                    last = max(last, number)
                    if number not in confirmed and number not in maybe:
                        strangers.append("%s %d->%d: %d was never sent" % (kind, sender, receiver, number))
                missing = sorted(confirmed - seen)
                if missing:
                    losses.append("%s %d->%d: %d confirmed never arrived (first %s)" % (kind, sender, receiver, len(missing), missing[:5]))
                totals[kind + " confirmed"] += len(confirmed)
                totals[kind + " maybe"] += len(maybe)
                totals[kind + " arrived"] += len(seen)
                totals[kind + " duplicates"] += duplicates
                totals[kind + " handed again"] += handed_again
    check("every confirmed queued and channel message arrived", not losses, "; ".join(losses[:6]))
    check("no queued or channel message arrived twice", not duplicate_list, "; ".join(duplicate_list[:6]))
    check("in order per sender", not order_breaks, "; ".join(order_breaks[:6]))
    check("nothing arrived that was not sent", not strangers, "; ".join(strangers[:6]))
    plain_sent = sum(1 for i in sent for r in sent[i] if r.get("kind") == "P")
    plain_arrived = sum(1 for i in received for r in received[i] if r["text"].startswith("P "))
    totals["P sent"] = plain_sent
    totals["P arrived"] = plain_arrived

    # ---- files ----
    file_rows = [line.split("\t") for line in lines(os.path.join(soak, "files.tsv"))]
    file_outcomes = collections.Counter()
    file_problems = []
    for row in file_rows:
        if len(row) < 7:
            continue
        sender, receiver, name, digest, transfer, state, arrived = row[:7]
        reason = row[7] if len(row) > 7 else ""
        if state == "completed":
            # soak.sh hashed the file where it landed, then removed it.
            if arrived == "missing":
                file_problems.append("%s (%s -> %s) completed but is not in the download folder" % (name, sender, receiver))
                file_outcomes["lost"] += 1
            elif arrived != digest:
                file_problems.append("%s (%s -> %s) completed with other bytes" % (name, sender, receiver))
                file_outcomes["corrupt"] += 1
            else:
                file_outcomes["identical"] += 1
        elif state in ("failed", "declined", "cancelled") and reason.strip():
            file_outcomes["%s: %s" % (state, reason.split()[0])] += 1
        else:
            # stuck: never offered in 240 s (the reason gives the last
            # refusal); any other state: still in it after 240 s.
            file_problems.append("%s (%s -> %s, transfer %s) ended %s without a reason%s"
                                 % (name, sender, receiver, transfer, state,
                                    (": " + reason.strip()) if reason.strip() else ""))
            file_outcomes["no reason: " + state] += 1
    check("every file arrived byte-identical or says why not", not file_problems, "; ".join(file_problems[:6]))
    check("files were sent", file_outcomes["identical"] > 0, "%d identical" % file_outcomes["identical"])

    # ---- pipes ----
    pipe_outcomes = collections.Counter()
    pipe_problems = []
    for row in (line.split("\t") for line in lines(os.path.join(soak, "pipes.tsv"))):
        number, a, b = row[:3]
        folder = os.path.join(soak, "pipes", "p" + number)
        codes = [open(os.path.join(folder, "rc" + x)).read().strip() if os.path.exists(os.path.join(folder, "rc" + x)) else "?" for x in (a, b)]
        if codes == ["0", "0"]:
            same = all(sha256(os.path.join(folder, "out" + x)) == sha256(os.path.join(folder, "in" + y)) for x, y in ((a, b), (b, a)))
            if same:
                pipe_outcomes["identical"] += 1
            else:
                pipe_outcomes["corrupt"] += 1
                pipe_problems.append("pipe p%s (%s <-> %s) exited 0 with other bytes" % (number, a, b))
        else:
            words = " ".join(open(os.path.join(folder, "err" + x), errors="replace").read().strip() for x in (a, b)
                             if os.path.exists(os.path.join(folder, "err" + x)))
            if words or os.path.exists(os.path.join(folder, "timeout")):
                pipe_outcomes["ended by a fault, said so"] += 1
            else:
                pipe_outcomes["failed silently"] += 1
                pipe_problems.append("pipe p%s (%s <-> %s) exited %s without a word" % (number, a, b, codes))
    check("every pipe carried its bytes or said why not", not pipe_problems, "; ".join(pipe_problems[:6]))

    # ---- crashes, reconnect, resources ----
    crashes = lines(os.path.join(soak, "crashes.tsv"))
    check("no daemon crashed", not crashes, "; ".join(crashes[:4]))
    reconnect = open(os.path.join(soak, "reconnect.txt")).read().strip()
    check("every pair connected within 10 s of the last fault", reconnect != "none" and int(reconnect) <= 10,
          "%s s" % reconnect)
    before = {row.split()[0]: row.split()[1:] for row in lines(os.path.join(soak, "before.txt"))}
    after = {row.split()[0]: row.split()[1:] for row in lines(os.path.join(soak, "after.txt"))}
    resource_rows = []
    for host in sorted(before):
        memory_before, fds_before = (int(x) for x in before[host])
        memory_after, fds_after = (int(x) for x in after.get(host, ["0", "0"]))
        memory_ok = memory_after <= memory_before * 1.10 + MEMORY_SLACK_KB
        # Fewer is no leak (a daemon killed late starts with fewer files open).
        fds_ok = fds_after <= fds_before + max(1, fds_before // 10)
        if os.environ.get("SOAK_MEMORY_CHECK") == "report":
            # The short soak of make test reports memory (a few minutes of
            # faults say little about it) and make soak enforces it.
            print("note  host%s private memory %d -> %d kB%s" % (host, memory_before, memory_after,
                                                                 "" if memory_ok else " (over the bound: make soak would fail)"))
        else:
            check("host%s private memory back within 10%%" % host, memory_ok, "%d -> %d kB" % (memory_before, memory_after))
        check("host%s descriptors back within 10%%" % host, fds_ok, "%d -> %d" % (fds_before, fds_after))
        resource_rows.append((host, memory_before, memory_after, fds_before, fds_after))

    # ---- the table ----
    faults = collections.Counter(line.split("\t")[1] for line in lines(os.path.join(soak, "faults.tsv")))
    print()
    print("soak: %s minutes, seed %s" % (minutes, seed))
    print()
    print("faults injected      %s" % (", ".join("%s %d" % kv for kv in sorted(faults.items())) or "none"))
    print("                     total %d" % sum(faults.values()))
    print("queued messages      %d confirmed, %d maybe, %d arrived, %d duplicates, %d lost, %d handed again (same inbox id)" % (
        totals["Q confirmed"], totals["Q maybe"], totals["Q arrived"], totals["Q duplicates"],
        sum(1 for l in losses if l.startswith("Q")), totals["Q handed again"]))
    print("channel messages     %d confirmed, %d maybe, %d arrived, %d duplicates, %d lost, %d handed again (same inbox id)" % (
        totals["C confirmed"], totals["C maybe"], totals["C arrived"], totals["C duplicates"],
        sum(1 for l in losses if l.startswith("C")), totals["C handed again"]))
    print("plain messages       %d sent, %d arrived (no promise across a fault)" % (totals["P sent"], totals["P arrived"]))
    print("files                %d sent: %s" % (len(file_rows), ", ".join("%s %d" % kv for kv in sorted(file_outcomes.items()))))
    print("pipes                %d run: %s" % (sum(pipe_outcomes.values()), ", ".join("%s %d" % kv for kv in sorted(pipe_outcomes.items()))))
    print("crashes              %d" % len(crashes))
    print("reconnected after    %s s" % reconnect)
    print()
    print("host  private kB before  after   fds before  after")
    for host, mb, ma, fb, fa in resource_rows:
        print("%-5s %16d %6d %12d %6d" % (host, mb, ma, fb, fa))
    print()
    failed = [c for c in checks if not c[1]]
    for name, passed, detail in checks:
        print("%s  %s%s" % ("ok  " if passed else "FAIL", name, (": " + detail) if detail and not passed else ""))
    print()
    print("%d passed, %d failed" % (len(checks) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
