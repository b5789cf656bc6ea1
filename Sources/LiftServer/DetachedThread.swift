import Foundation

/// Starts detached POSIX threads and says whether they started: Foundation's `Thread.start()`
/// returns nothing when `pthread_create` fails (the process or container is at its thread limit),
/// so a connection handed to such a thread would never be served, closed or counted down.
package enum DetachedThread {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes show) with a stack of
    /// `stackSize` bytes; false, without running it, when the system cannot start another thread.
    package static func start(name: String, stackSize: Int = 4 << 20, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            _ = setThreadName(pthread_self(), String(box.name.utf8.prefix(15)) ?? "lift")
            box.body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        return true
    }

    /// What a new thread runs, carried through `pthread_create`'s context pointer.
    private final class Box {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// glibc's `pthread_setname_np` (a GNU extension the Glibc module does not declare).
@_silgen_name("pthread_setname_np") private func setThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> Int32
