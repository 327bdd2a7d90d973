# peerd: build, test and try it.
#   make demo   install dependencies, build, start two lab hosts, show discovery
#   make check  the inner loop: build, unit tests, the docs snippet check, the fuzz smokes
#               (at most 3 minutes warm)
#   make test   everything CI runs: build, unit tests, fuzz smokes, the lab tests, the
#               compatibility test and a 90-second soak, phases side by side (make -j),
#               ending with a table of where the time went (at most 12 minutes)
#   make build  compile (warnings are errors)
#   make unit   the unit tests and the docs snippet check
#   make integration  the lab tests, LAB_JOBS (6) at a time, each in a lab of its own
#   make fuzz   libFuzzer harnesses for every parser of outside input, FUZZ_RUNS executions each
#   make compat every earlier release in Tests/compat/releases.txt, built from git history (cached
#               under .build/compat), against this build in the lab (part of make test)
#   make coverage  the unit tests with coverage: the share of each target's lines they run,
#               and the files they never run (Tests/coverage/summary.py), and the types
#               no unit test names (Tests/coverage/unnamed_types.py; make test: at most 25%)
#   make soak   four paired lab hosts under traffic and random faults for SOAK_MINUTES (20), then
#               every message, file and pipe accounted for (Tests/soak/soak.sh); make test runs 1.5 minutes
#               (make soak-smoke)

SWIFT       ?= swift
CONFIG      ?= debug
# Every build and test run of this tree, make test's included, uses one set
# of flags, so that one never rebuilds what the other built. What these
# builds make is run by tests, not stepped through in a debugger (a crash
# still names its functions): no DWARF (-gnone), a sixth of a build here
# (an earlier release's peerd and peerctl: 50 s against 60 on two idle
# cores). The index store stays: SwiftPM finds the XCTest cases on Linux
# through it (with --disable-index-store the test build fails). Build by
# hand with swift build for a debugger's information.
BUILD_FLAGS := -Xswiftc -warnings-as-errors -Xswiftc -gnone
BIN         := .build/$(CONFIG)
# Build: C libraries found by pkg-config. Lab and tests: private avahi and
# dbus daemons, network namespaces, jq (run as gojq where installed: Tests/lab/lab.sh), and Debian's python3 with D-Bus bindings
# (the 300-service flood is published through avahi's D-Bus API), python3-zeroconf
# (a foreign mDNS browser finds apps by subtype), python3-pytest (the Python
# client's tests run on Debian's python3); systemd
# (systemd-analyze, and the manager that runs the real units in a container)
# with dbus's own units; chrpath (the upgrade test packages this tree's debug
# build, its runpath pointed at the packaged runtime); ldns (wide-area
# DNS-SD's queries and signed updates, issue 46) and Knot DNS with its
# tools (the lab's DNS server, and kdig for peerbench).
APT_PACKAGES := pkg-config libavahi-client-dev libsodium-dev libssl-dev \
                avahi-daemon avahi-utils dbus-daemon dbus iproute2 util-linux procps jq python3 python3-dbus python3-zeroconf python3-pytest \
                systemd nftables gcc libc6-dev chrpath libsystemd-dev python3-dbusmock \
                libgtk-4-dev libadwaita-1-dev xvfb at-spi2-core python3-pyatspi imagemagick dunst gir1.2-gtk-4.0 python3-gi \
                libldns-dev knot knot-dnsutils gojq

PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
MANDIR      := $(PREFIX)/share/man
UNITDIR     ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc

FUZZ_RUNS   ?= 1000000
# The CI smoke: each harness from its corpus in Tests/fuzz/corpus.
FUZZ_SMOKE_RUNS ?= 5000
# The soak's length in minutes (make soak), and the short one make test runs.
SOAK_MINUTES ?= 20
SOAK_SMOKE_MINUTES ?= 1.5

.PHONY: all deps build examples unit integration compat deb fuzz fuzz-smoke soak soak-smoke coverage test check demo bench bench-bulk clean install uninstall \
        test-build test-labs test-alone phase-build phase-examples phase-unit phase-fuzz-smoke phase-integration phase-compat-build \
        phase-compat-package phase-compat phase-soak-smoke \
        phase-integration-alone

all: build

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then echo "need root to install packages: sudo make deps"; exit 1; fi; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift 6 not found on PATH (https://swift.org/install)"; exit 1; }

build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

unit: build
	$(SWIFT) test -c $(CONFIG) $(BUILD_FLAGS)
	python3 Tests/docs/check_snippets.py
	python3 Tests/docs/check_one_client.py

# The inner loop (issue 41): what make test runs that needs no lab.
check: build
	$(MAKE) --no-print-directory -j2 phase-unit phase-fuzz-smoke

# The example apps (issue 24), each its own package depending on this one by path.
examples: build
	$(SWIFT) build -c $(CONFIG) --package-path Examples/chat $(BUILD_FLAGS)

integration: build examples
	PEERD_BIN=$(BIN) CHAT_BIN=$(CURDIR)/Examples/chat/.build/$(CONFIG)/chat Tests/integration/run.sh

# The previous releases against this one (issue 22): each is built once
# from this repository's history and cached under .build/compat.
compat: build
	SWIFT=$(SWIFT) PEERD_BIN=$(BIN) Tests/compat/run.sh

fuzz: deps
	SWIFTC=$$(dirname $$(command -v $(SWIFT)))/swiftc Tests/fuzz/run.sh $(FUZZ_RUNS)

# The smoke builds its harnesses unoptimised (Tests/fuzz/run.sh says why).
fuzz-smoke: deps
	FUZZ_OPT=-Onone SWIFTC=$$(dirname $$(command -v $(SWIFT)))/swiftc Tests/fuzz/run.sh $(FUZZ_SMOKE_RUNS)

coverage: deps
	$(SWIFT) test --enable-code-coverage --build-path .build/coverage
	python3 Tests/coverage/summary.py .build/coverage/debug/codecov/peerd.json PeerIO PeerCrypto PeerCore PeerKit
	python3 Tests/coverage/unnamed_types.py --list 15

soak: build
	PEERD_BIN=$(BIN) SOAK_MINUTES=$(SOAK_MINUTES) Tests/soak/soak.sh

# The short soak reports memory instead of checking it: a few minutes of
# faults say little about it, and make soak checks it.
soak-smoke: build
	PEERD_BIN=$(BIN) SOAK_MINUTES=$(SOAK_SMOKE_MINUTES) SOAK_WARMUP=20 SOAK_MEMORY_CHECK=report Tests/soak/soak.sh

# make test (issue 41): three stages, one after another, each of phases run
# side by side (make -j); Tests/report/phase.sh prefixes each phase's lines
# with its name and keeps its time and counts, and Tests/report/table.sh ends
# the run with the table. Stage "build": the package with its tests and then
# the unit tests, the example, and beside them the earlier releases and the
# upgrade test's packages (this tree's made of the build, once it is done).
# Stage "labs": the lab tests (LAB_JOBS at a time), the compatibility tests
# and the soak, which take the CPU between them. Stage "alone": the lab
# tests that measure time, memory or rate, one at a time with no other
# test beside them, and the fuzz smokes, whose harnesses build at the
# lowest priority (SCHED_IDLE, Tests/lab/low-priority): they get only the
# CPU those tests leave (two thirds of it, sampled with perf), and a
# waking test takes it back at once (in the labs stage, starved by the lab
# tests, they were its longest phase: 345-400 s). A failed phase does not
# stop the others (make -k); the table and the exit status say what failed.
REPORT := $(CURDIR)/.build/test-report
PHASE  := TEST_REPORT=$(REPORT) Tests/report/phase.sh
STAGE  := TEST_REPORT=$(REPORT) Tests/report/stage.sh
SUBMAKE := $(MAKE) --no-print-directory

test:
	@rm -rf $(REPORT) .build/lab && mkdir -p $(REPORT) && date +%s%N >$(REPORT)/begin
	@$(STAGE) deps $(SUBMAKE) deps \
	  && $(STAGE) build $(SUBMAKE) -k -j3 test-build \
	  && { $(STAGE) labs $(SUBMAKE) -k -j3 test-labs; $(STAGE) alone $(SUBMAKE) -k -j2 test-alone; }; \
	  TEST_REPORT=$(REPORT) Tests/report/table.sh

test-build: phase-build phase-examples phase-unit phase-compat-build phase-compat-package
test-labs: phase-integration phase-compat phase-soak-smoke
test-alone: phase-integration-alone phase-fuzz-smoke

# The phases. Each assumes the build stage ran (make test) or its public
# target's prerequisites did.
phase-build:
	@$(PHASE) build $(SWIFT) build -c $(CONFIG) --build-tests $(BUILD_FLAGS)
phase-examples:
	@$(PHASE) examples $(SWIFT) build -c $(CONFIG) --package-path Examples/chat $(BUILD_FLAGS)
phase-unit: phase-build
	@$(PHASE) unit sh -c '$(SWIFT) test -c $(CONFIG) $(BUILD_FLAGS) && python3 Tests/docs/check_snippets.py && python3 Tests/docs/check_one_client.py && python3 Tests/coverage/unnamed_types.py --max 25 && python3 Tests/coverage/unnamed_types.py --target PeerCrypto --max 25'
phase-fuzz-smoke:
	@$(PHASE) fuzz-smoke env FUZZ_OPT=-Onone SWIFTC=$$(dirname $$(command -v $(SWIFT)))/swiftc Tests/fuzz/run.sh $(FUZZ_SMOKE_RUNS)
phase-integration:
	@$(PHASE) integration env LAB_GROUP=together PEERD_BIN=$(BIN) CHAT_BIN=$(CURDIR)/Examples/chat/.build/$(CONFIG)/chat Tests/integration/run.sh
phase-integration-alone:
	@$(PHASE) integration-alone env LAB_GROUP=alone PEERD_BIN=$(BIN) CHAT_BIN=$(CURDIR)/Examples/chat/.build/$(CONFIG)/chat Tests/integration/run.sh
phase-compat-build:
	@$(PHASE) compat-build env COMPAT_BUILD_ONLY=releases SWIFT=$(SWIFT) PEERD_BIN=$(BIN) Tests/compat/run.sh
phase-compat-package: phase-build phase-compat-build
	@$(PHASE) compat-package env COMPAT_BUILD_ONLY=current SWIFT=$(SWIFT) PEERD_BIN=$(BIN) Tests/compat/run.sh
phase-compat:
	@$(PHASE) compat env SWIFT=$(SWIFT) PEERD_BIN=$(BIN) Tests/compat/run.sh
phase-soak-smoke:
	@$(PHASE) soak-smoke env PEERD_BIN=$(BIN) SOAK_MINUTES=$(SOAK_SMOKE_MINUTES) SOAK_WARMUP=20 SOAK_MEMORY_CHECK=report Tests/soak/soak.sh

demo: build
	PEERD_BIN=$(BIN) Tests/lab/demo.sh

# Bulk throughput against iperf3, scp and rsync in the lab (docs/performance.md);
# needs root, iperf3, openssh-server and rsync, and measures the release build.
# peerbench (issue 13): every figure next to what it is compared with, in
# one run on the lab; BENCH_ARGS passes options (--runs 5, --json, --only …).
bench: deps
	@for p in iperf3 openssh-server openssh-client rsync; do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' \
	  || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends iperf3 openssh-server openssh-client rsync; break; }; done
	$(SWIFT) build -c release -Xswiftc -warnings-as-errors
	.build/release/peerbench $(BENCH_ARGS)

# The bulk figures alone (issue 12): peerbench's send-file, pipe, scp and iperf3.
bench-bulk:
	$(MAKE) bench BENCH_ARGS="--only bulk --runs 3"

# The Debian packages, peerd_VERSION_ARCH.deb and peerd-desktop_VERSION_ARCH.deb
# here, built with dpkg-deb (systemd/debian/build-deb.sh, build-desktop-deb.sh),
# then checked by lintian when it is there: no error and no warning.
VERSION := $(shell sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/PeerProtocol/Support/PeerdVersion.swift)
deb: deps
	SWIFT=$(SWIFT) systemd/debian/build-deb.sh . $(VERSION) .
	SWIFT=$(SWIFT) systemd/debian/build-desktop-deb.sh . $(VERSION) .
	@if command -v lintian >/dev/null; then lintian --tag-display-limit 0 --fail-on error,warning \
	    peerd_$(VERSION)_$$(dpkg --print-architecture).deb peerd-desktop_$(VERSION)_$$(dpkg --print-architecture).deb; \
	  else echo "lintian is not installed (apt-get install lintian): the packages are not checked"; fi

# Installs the release build; honours PREFIX and DESTDIR. INSTALL_CONFIG=debug
# installs the debug build instead: the lab test of the layout uses it, so
# make test does not compile the whole tree a second time, optimised (nor
# once more unoptimised: the flags are BUILD_FLAGS, as the test's build's;
# with others it rebuilt the tree inside the labs stage, 172 s).
INSTALL_CONFIG ?= release
install:
	$(SWIFT) build -c $(INSTALL_CONFIG) $(BUILD_FLAGS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
	  $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 .build/$(INSTALL_CONFIG)/peerd .build/$(INSTALL_CONFIG)/peerctl .build/$(INSTALL_CONFIG)/peerd-agent .build/$(INSTALL_CONFIG)/peerd-gtk $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(SYSCONFDIR)/xdg/autostart $(DESTDIR)$(PREFIX)/share/applications
	sed 's|^Exec=peerd-gtk|Exec=$(BINDIR)/peerd-gtk|' systemd/peerd-gtk.desktop > $(DESTDIR)$(PREFIX)/share/applications/peerd-gtk.desktop
	chmod 0644 $(DESTDIR)$(PREFIX)/share/applications/peerd-gtk.desktop
	sed 's|/usr/bin/peerd-agent|$(BINDIR)/peerd-agent|' systemd/peerd-agent.service > $(DESTDIR)$(USERUNITDIR)/peerd-agent.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/peerd-agent.service
	sed 's|^Exec=peerd-agent|Exec=$(BINDIR)/peerd-agent|' systemd/peerd-agent.desktop > $(DESTDIR)$(SYSCONFDIR)/xdg/autostart/peerd-agent.desktop
	chmod 0644 $(DESTDIR)$(SYSCONFDIR)/xdg/autostart/peerd-agent.desktop
	sed 's|/usr/bin/peerd|$(BINDIR)/peerd|' systemd/peerd.service > $(DESTDIR)$(UNITDIR)/peerd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/peerd.service
	install -m 0644 systemd/peerd.socket $(DESTDIR)$(UNITDIR)/peerd.socket
	install -m 0644 systemd/peerd.sysusers $(DESTDIR)$(SYSUSERSDIR)/peerd.conf
	install -m 0644 systemd/peerd.tmpfiles $(DESTDIR)$(TMPFILESDIR)/peerd.conf
	install -m 0644 docs/peerd.8 $(DESTDIR)$(MANDIR)/man8/peerd.8
	install -m 0644 docs/peerctl.1 docs/peerd-agent.1 docs/peerd-gtk.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps
	install -m 0644 systemd/peerd.svg $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/peerd.svg
	install -m 0644 docs/peerctl.bash-completion $(DESTDIR)$(COMPLETIONDIR)/peerctl
	install -d $(DESTDIR)$(SYSCONFDIR)/peerd
	# An edited configuration is never overwritten.
	[ -e $(DESTDIR)$(SYSCONFDIR)/peerd/peerd.conf ] || install -m 0644 docs/peerd.conf $(DESTDIR)$(SYSCONFDIR)/peerd/peerd.conf

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/peerd $(DESTDIR)$(BINDIR)/peerctl $(DESTDIR)$(BINDIR)/peerd-agent $(DESTDIR)$(BINDIR)/peerd-gtk \
	  $(DESTDIR)$(PREFIX)/share/applications/peerd-gtk.desktop $(DESTDIR)$(USERUNITDIR)/peerd-agent.service $(DESTDIR)$(SYSCONFDIR)/xdg/autostart/peerd-agent.desktop \
	  $(DESTDIR)$(UNITDIR)/peerd.service $(DESTDIR)$(UNITDIR)/peerd.socket \
	  $(DESTDIR)$(SYSUSERSDIR)/peerd.conf $(DESTDIR)$(TMPFILESDIR)/peerd.conf \
	  $(DESTDIR)$(MANDIR)/man8/peerd.8 $(DESTDIR)$(MANDIR)/man1/peerctl.1 $(DESTDIR)$(MANDIR)/man1/peerd-agent.1 $(DESTDIR)$(MANDIR)/man1/peerd-gtk.1 \
	  $(DESTDIR)$(PREFIX)/share/icons/hicolor/scalable/apps/peerd.svg $(DESTDIR)$(COMPLETIONDIR)/peerctl
	# The configuration goes only if unchanged from the shipped one.
	cmp -s docs/peerd.conf $(DESTDIR)$(SYSCONFDIR)/peerd/peerd.conf && rm -f $(DESTDIR)$(SYSCONFDIR)/peerd/peerd.conf || true

clean:
	rm -rf .build Examples/chat/.build
