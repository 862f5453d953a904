/// A set of property slots (indexes into ``EntityPropertyTable/all``), kept as bits: what an
/// object records for each change, so that noting one hashes nothing and allocates nothing
/// for entities of up to 64 properties.
struct SlotSet: Sequence, Equatable {
    /// Slots 0 to 63.
    private var low: UInt64 = 0
    /// Slots from 64 up, 64 to a word; empty for most entities.
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    // contains and insert: the test of the first word inline (every value set asks both),
    // the other words apart.

    @inline(__always)
    func contains(_ slot: Int) -> Bool {
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        return highContains(slot)
    }

    private func highContains(_ slot: Int) -> Bool {
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    /// Adds `slot`; returns whether it was new.
    @inline(__always) @discardableResult
    mutating func insert(_ slot: Int) -> Bool {
        if slot < 64 {
            let bit: UInt64 = 1 << UInt64(slot)
            defer { low |= bit }
            return low & bit == 0
        }
        return insertHigh(slot)
    }

    private mutating func insertHigh(_ slot: Int) -> Bool {
        let word = slot / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        let bit: UInt64 = 1 << UInt64(slot % 64)
        defer { high[word] |= bit }
        return high[word] & bit == 0
    }

    /// Takes `slot` out (a merge policy giving a property back to the store's value).
    mutating func remove(_ slot: Int) {
        if slot < 64 {
            low &= ~(1 << UInt64(slot))
        } else if slot / 64 - 1 < high.count {
            high[slot / 64 - 1] &= ~(1 << UInt64(slot % 64))
        }
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    /// The slots in ascending order.
    func makeIterator() -> AnyIterator<Int> {
        var word = 0
        var bits = low
        let high = self.high
        return AnyIterator {
            while bits == 0 {
                guard word < high.count else { return nil }
                bits = high[word]
                word += 1
            }
            let slot = (word * 64) + bits.trailingZeroBitCount
            bits &= bits - 1
            return slot
        }
    }
}
