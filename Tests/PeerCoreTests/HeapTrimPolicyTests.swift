import FoundationEssentials
import XCTest
@testable import PeerCore

/// When free heap goes back to the system, as a table of ticks.
final class HeapTrimPolicyTests: XCTestCase {
    func testTrimsWhenMuchIsFreeAtMostEveryInterval() {
        var policy = HeapTrimPolicy()
        let start = Date(timeIntervalSince1970: 1_000)
        let rows: [(seconds: Double, free: Int, trim: Bool, why: String)] = [
            (0, 12 << 10, false, "little free: nothing to do"),
            (1, 300 << 10, true, "more than 16 KiB free: trim"),
            (2, 8 << 20, false, "again within the interval: wait"),
            (10.9, 8 << 20, false, "still within it"),
            (11, 8 << 20, true, "the interval passed"),
            (30, 16 << 10, false, "exactly the limit is not over it"),
            (40, 100 << 10, true, "an idle daemon's 100 KiB: its free pages go back (issue 25)"),
            (45, 100 << 10, false, "and not before the interval again"),
            (60, 48 << 10, true, "an idle daemon's usual 50 KiB free: its whole pages go back too"),
        ]
        for row in rows {
            XCTAssertEqual(policy.tick(now: start.addingTimeInterval(row.seconds), freeBytes: row.free), row.trim, row.why)
        }
        XCTAssertEqual(HeapTrimPolicy.freeLimit, 16 << 10)
    }
}

/// Whether the daemon execs itself with glibc's stack cache off, as a table.
final class ThreadStackCacheTests: XCTestCase {
    func testTheTunableIsAddedOnceAndAUsersChoiceStands() {
        let rows: [(current: String?, want: String?, why: String)] = [
            (nil, "glibc.pthread.stack_cache_size=0", "unset: add it"),
            ("", "glibc.pthread.stack_cache_size=0", "empty: add it"),
            ("glibc.malloc.check=3", "glibc.malloc.check=3:glibc.pthread.stack_cache_size=0", "others kept, in front"),
            ("glibc.pthread.stack_cache_size=0", nil, "peerd's own exec: no second"),
            ("glibc.malloc.check=3:glibc.pthread.stack_cache_size=1048576", nil, "a user's value stands"),
            ("glibc.pthread.stack_cache_size_extra=1", "glibc.pthread.stack_cache_size_extra=1:glibc.pthread.stack_cache_size=0", "a longer name is another tunable"),
        ]
        for row in rows {
            XCTAssertEqual(ThreadStackCache.tunables(from: row.current), row.want, row.why)
        }
        XCTAssertEqual(ThreadStackCache.variable, "GLIBC_TUNABLES", "the name glibc reads")
    }

    /// Issue 41: the exec keeps the process's name, which the kernel takes
    /// from the path exec'd.
    func testTheExecNamesTheBinaryByItsPath() {
        let rows: [(link: String?, want: String, why: String)] = [
            ("/usr/bin/peerd", "/usr/bin/peerd", "an installed daemon"),
            ("/work/main/.build/debug/peerd", "/work/main/.build/debug/peerd", "a build"),
            ("/usr/bin/peerd (deleted)", "/proc/self/exe", "replaced by an upgrade since it started: its path is another binary"),
            (nil, "/proc/self/exe", "the link could not be read"),
            ("peerd", "/proc/self/exe", "not absolute"),
        ]
        for row in rows {
            XCTAssertEqual(ThreadStackCache.execPath(resolvedLink: row.link), row.want, row.why)
        }
    }

    /// Issue 41: after an exec through /proc/self/exe the kernel calls the
    /// process `exe`; it takes its program's name back, and only then.
    func testTheNameComesBackOnlyFromExe() {
        XCTAssertEqual(ThreadStackCache.processName(current: "exe", program: "peerd"), "peerd")
        XCTAssertNil(ThreadStackCache.processName(current: "peerd", program: "peerd"), "already named")
        XCTAssertNil(ThreadStackCache.processName(current: "peerd-test", program: "peerd"), "a name someone chose stands")
    }
}

/// Issue 21, point 7: the daemon's clock runs on with `CLOCK_BOOTTIME`
/// from where the wall clock stood, so a step of the wall clock cannot
/// move its deadlines.
final class DaemonClockTests: XCTestCase {
    func testTheSystemClockStartsAtTheWallClockAndNeverGoesBack() {
        let first = DaemonClock.system.now()
        XCTAssertLessThan(abs(first.timeIntervalSince(DaemonClock.wall.now())), 1, "it starts where the wall clock is")
        var last = first
        for _ in 0..<1000 {
            let next = DaemonClock.system.now()
            XCTAssertGreaterThanOrEqual(next, last, "it never goes back")
            last = next
        }
        let before = DaemonClock.bootSeconds()
        usleep(20_000)
        XCTAssertGreaterThanOrEqual(DaemonClock.bootSeconds() - before, 0.02, "boot time advances")
    }
}
