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
