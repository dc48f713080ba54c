import Foundation
import Glibc
import Testing

/// A real gpsd, started for one test: foreground (`-N`), reading the device without waiting for a
/// client (`-n`), read-only so it never writes probe strings into our pty (`-b`), serving on
/// loopback only (gpsd binds loopback unless given `-G`) at `port`. Its output goes to a log file
/// that failing tests print.
///
/// Spawned with `posix_spawn` and an explicitly empty signal mask rather than `Foundation.Process`:
/// the test runner's threads block most signals, a child inherits that mask, and gpsd (which only
/// unblocks signals inside `pselect` with the mask it started with) then never sees SIGTERM.
final class GPSDDaemon {
    /// gpsd's path, or nil when it isn't installed (the end-to-end test is then skipped).
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd"]
            + path.split(separator: ":").map { "\($0)/gpsd" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    let port: UInt16
    let pid: pid_t
    private let logPath: String
    private var exited = false

    init(port: UInt16, device: String) throws {
        guard let executable = Self.executable else { throw GPSDTestError("gpsd is not installed") }
        self.port = port
        logPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("gpsd-test-\(port)-\(UUID().uuidString).log").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = [executable, "-N", "-n", "-b", "-S", String(port), device]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard rc == 0 else { throw GPSDTestError("posix_spawn \(executable): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    /// True until the process has exited (and been reaped).
    var isRunning: Bool {
        if exited { return false }
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        if rc == pid || (rc < 0 && errno == ECHILD) { exited = true }
        return !exited
    }

    /// What gpsd printed so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL if it hasn't exited within `grace`. Never waits much longer than that.
    func terminate(grace: Duration = .seconds(3)) async {
        guard isRunning else { return }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if isRunning {
            Issue.record("gpsd ignored SIGTERM for \(grace); killing it. Log:\n\(log)")
            Glibc.kill(pid, SIGKILL)
            let hard = ContinuousClock.now + .seconds(1)
            while isRunning, ContinuousClock.now < hard { try? await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// Last resort for a test that ends early: kill and reap without waiting long.
    func kill() {
        guard isRunning else { return }
        Glibc.kill(pid, SIGKILL)
        for _ in 0..<100 where isRunning { usleep(10_000) }
    }

    deinit {
        kill()
        unlink(logPath)
    }
}
