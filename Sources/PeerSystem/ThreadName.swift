import Glibc

/// The calling thread's name (`/proc/PID/task/TID/comm`): what `top -H`,
/// `ps -T`, gdb and perf show for it. peerd names each thread it starts
/// itself, so that a look at the process says which is which, and a lab
/// test pins the set (docs/architecture.md, "Threads"). Through
/// `/proc/thread-self/comm`: glibc's `pthread_setname_np` is a GNU
/// extension the Glibc module does not export.
public enum ThreadName {
    /// Names the calling thread; longer than 15 bytes is cut. Returns
    /// whether the kernel took it.
    @discardableResult
    public static func set(_ name: String) -> Bool { ProcessName.writeComm("/proc/thread-self/comm", name) }

    /// The calling thread's name, nil when it cannot be read.
    public static func current() -> String? { ProcessName.readComm("/proc/thread-self/comm") }
}
