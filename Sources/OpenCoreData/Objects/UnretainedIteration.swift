/// Visiting the objects of an array without retaining each one.
///
/// `for object in objects { object.method() }` retains every element around the call and
/// releases it after: two atomic operations per object, which the save path pays for every
/// object it handles, several times over (a third of an upsert's CPU time was reference
/// counting, Benchmarks/README.md, r16 pass). The array already keeps its elements alive,
/// so `body` gets each one borrowed instead.
extension Array where Element: AnyObject {
    /// Calls `body` with each element in order, borrowed from the array: `body` must not
    /// change the array it is called on (the array is a value here: it can only change
    /// through a variable the caller also holds).
    @inline(__always)
    func forEachBorrowed(_ body: (Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                try Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef(body)
            }
        }
    }
}

extension Array {
    /// Calls `body` with each object of an array of optional objects, skipping the `nil`s,
    /// borrowed as ``Swift/Array/forEachBorrowed(_:)`` does.
    @inline(__always)
    func forEachBorrowed<Object: AnyObject>(_ body: (Object) throws -> Void) rethrows where Element == Object? {
        try withUnsafeBufferPointer { buffer in
            // An optional object is one pointer, zero for nil: read as a word, it is tested
            // without binding (and so retaining) the object.
            let words = UnsafeRawBufferPointer(buffer)
            for index in buffer.indices {
                let word = words.load(fromByteOffset: index * MemoryLayout<Element>.stride, as: UInt.self)
                guard let pointer = UnsafeRawPointer(bitPattern: word) else { continue }
                try Unmanaged<Object>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
            }
        }
    }
}

extension Array {
    /// Calls `body` with each pair of objects of an array of pairs, both borrowed as
    /// ``Swift/Array/forEachBorrowed(_:)`` borrows one.
    @inline(__always)
    func forEachBorrowedPair<First: AnyObject, Second: AnyObject>(_ body: (First, Second) throws -> Void) rethrows
    where Element == (First, Second) {
        try withUnsafeBufferPointer { buffer in
            for index in buffer.indices {
                try Unmanaged.passUnretained(buffer[index].0)._withUnsafeGuaranteedRef { first in
                    try Unmanaged.passUnretained(buffer[index].1)._withUnsafeGuaranteedRef { second in try body(first, second) }
                }
            }
        }
    }
}

extension Array where Element: AnyObject {
    /// Calls `read` with each element borrowed, then `act` with each element and what `read`
    /// returned for it, a run of up to `runLength` elements at a time: the run is read
    /// first, with nothing else in between, and acted on after.
    ///
    /// For passes over many objects cold in memory (a save's 100,000 deletions): reading a
    /// run first lets the processor wait for its cache misses together, where acting on
    /// each object as it was read made every miss wait for the one before (the action's
    /// calls, and above all its retains and releases: each is an atomic instruction, and no
    /// later load starts before it is done). `read` should only read (and set plain
    /// fields), with no reference counting; the readings live in one short buffer, reused.
    /// `afterRun` is called once each run has been acted on (a caller that gathers a run's
    /// readings in `act` hands them on there).
    @inline(__always)
    func forEachBorrowedReadingAhead<Reading>(runLength: Int = 256, read: (Element) throws -> Reading,
                                              act: (Element, Reading) throws -> Void,
                                              afterRun: () throws -> Void) rethrows {
        var readings: [Reading] = []
        readings.reserveCapacity(Swift.min(runLength, count))
        try withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = Swift.min(start + runLength, buffer.count)
                readings.removeAll(keepingCapacity: true)
                for index in start..<end {
                    readings.append(try Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef(read))
                }
                for index in start..<end {
                    let reading = readings[index - start]
                    try Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef { try act($0, reading) }
                }
                try afterRun()
                start = end
            }
        }
    }

    /// ``forEachBorrowedReadingAhead(runLength:read:act:afterRun:)`` with nothing to do
    /// after each run.
    @inline(__always)
    func forEachBorrowedReadingAhead<Reading>(runLength: Int = 256, read: (Element) throws -> Reading,
                                              act: (Element, Reading) throws -> Void) rethrows {
        try forEachBorrowedReadingAhead(runLength: runLength, read: read, act: act, afterRun: {})
    }
}
