/// The bytes of the text a statement has bound, one buffer per parameter, owned by the
/// statement so that SQLite can use them in place (`SQLITE_STATIC`) instead of copying
/// every bound string into memory of its own (`SQLITE_TRANSIENT`, a `malloc` and a `free`
/// per value: a save of 100,000 objects with two strings each binds 200,000).
///
/// SQLite reads a static value until the same parameter is bound to something else or the
/// bindings are cleared. A buffer belongs to its parameter index, so rebinding a parameter
/// is the only time its buffer is rewritten or replaced: the old binding never sees bytes
/// change under it.
///
/// Used only by its ``SQLiteStatement``, whose uses the store's lock serializes.
final class BoundTextBuffer {
    /// The buffers, by parameter index (SQLite counts parameters from 1); `nil` where no
    /// text was bound yet.
    @exclusivity(unchecked) private var buffers: [UnsafeMutableRawBufferPointer?] = []

    /// Buffers larger than this are let go once the bindings are cleared, so a cached
    /// statement does not keep a large text alive.
    private static let keptCapacity = 16 * 1024

    deinit {
        for case let buffer? in buffers { buffer.deallocate() }
    }

    /// Copies `bytes` into the buffer of parameter `index` (growing it when too small) and
    /// returns where they now are, valid until `index` is stored again or
    /// ``bindingsCleared()`` lets the buffer go.
    func store(_ bytes: UnsafeRawBufferPointer, for index: Int32) -> UnsafeRawPointer {
        let slot = Int(index)
        if slot >= buffers.count {
            buffers.append(contentsOf: repeatElement(nil, count: slot + 1 - buffers.count))
        }
        var buffer: UnsafeMutableRawBufferPointer
        if let existing = buffers[slot], existing.count >= bytes.count {
            buffer = existing
        } else {
            // Replacing the parameter's buffer is safe: the caller binds the parameter to
            // the new one before SQLite next reads it.
            buffers[slot]?.deallocate()
            buffer = .allocate(byteCount: max(32, bytes.count), alignment: 1)
            buffers[slot] = buffer
        }
        buffer.copyMemory(from: bytes)
        return UnsafeRawPointer(buffer.baseAddress!)
    }

    /// Lets go of the large buffers: called after SQLite cleared the statement's bindings,
    /// when no buffer is in use.
    func bindingsCleared() {
        for slot in buffers.indices {
            if let buffer = buffers[slot], buffer.count > Self.keptCapacity {
                buffer.deallocate()
                buffers[slot] = nil
            }
        }
    }
}
