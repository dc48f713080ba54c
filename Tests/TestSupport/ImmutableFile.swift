import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file made immutable (`chattr +i`: the inode flag `FS_IMMUTABLE_FL`): nobody, root included, may
/// unlink it, rename over it or write it until the flag is cleared. Tests run as root, and permissions
/// never stop root, so this is the real way for them to meet a file the engine cannot remove. Setting the
/// flag needs `CAP_LINUX_IMMUTABLE` and a file system that keeps it (ext2/3/4, XFS, btrfs; not tmpfs):
/// ``isSupported`` says whether this machine can.
public enum ImmutableFile {
    // <linux/fs.h>: _IOR('f', 1, long) and _IOW('f', 2, long); the kernel reads and writes an int.
    private static let getFlags: UInt = 0x8008_6601, setFlags: UInt = 0x4008_6602
    private static let immutable: CInt = 0x10

    /// Sets (or clears) the flag on `url`; on failure, the errno text.
    @discardableResult
    public static func set(_ url: URL, immutable on: Bool) -> String? {
        #if canImport(Glibc)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var flags: CInt = 0
        guard ioctl(fd, getFlags, &flags) == 0 else { return String(cString: strerror(errno)) }
        flags = on ? flags | immutable : flags & ~immutable
        guard ioctl(fd, setFlags, &flags) == 0 else { return String(cString: strerror(errno)) }
        return nil
        #else
        return "no FS_IOC_SETFLAGS here"
        #endif
    }

    /// Whether a file in the temporary directory (where the tests' scratch folders are) can be made
    /// immutable, and then cannot be removed.
    public static let isSupported: Bool = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("immutable-probe-\(getpid())-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: Data()) else { return false }
        defer { try? FileManager.default.removeItem(at: url) }
        guard set(url, immutable: true) == nil else { return false }
        let removed = unlink(url.path) == 0
        set(url, immutable: false)
        return !removed
    }()
}
