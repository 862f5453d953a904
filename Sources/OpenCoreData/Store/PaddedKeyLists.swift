import Foundation

/// One chunk of a list of primary keys bound to an `IN (?, …)` list whose length is one
/// of ``SelectPlan/batchSizes``: a few fixed lengths keep the statement cache small, and
/// the last key repeats to fill the list.
struct PaddedKeyChunk {
    /// The keys of this chunk, in ascending order.
    let keys: ArraySlice<Int64>
    /// The number of placeholders: the smallest batch size that holds the keys.
    let size: Int

    /// `?, ?, …`, one per placeholder.
    var placeholders: String {
        if let index = SelectPlan.batchSizes.firstIndex(of: size) { return Self.placeholderLists[index] }
        return SQLPlaceholders.list(size)
    }

    /// The placeholder list of each batch size, made once: joining 512 strings for every
    /// statement cost 1.5 % of a cascade through 100,000 objects.
    private static let placeholderLists = SelectPlan.batchSizes.map(SQLPlaceholders.list)

    /// The distinct `keys`, sorted, cut into chunks of at most the largest batch size.
    static func chunks(of keys: [Int64]) -> [PaddedKeyChunk] {
        let unique = distinctAscending(keys)
        let largest = SelectPlan.batchSizes.last!
        return stride(from: 0, to: unique.count, by: largest).map { start in
            let slice = unique[start..<min(start + largest, unique.count)]
            return PaddedKeyChunk(keys: slice, size: SelectPlan.batchSizes.first { $0 >= slice.count }!)
        }
    }

    /// `keys` sorted, each once. Keys often come in ascending order already (the rows of
    /// the level above, read in key order, in a cascade): those are handed back as they
    /// are, after one pass; others are sorted and their repeats dropped. (A `Set` of the
    /// keys, then a sort, cost 1.3 % of a cascade through 100,000 objects.)
    static func distinctAscending(_ keys: [Int64]) -> [Int64] {
        if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) { return keys }
        var sorted = keys.sorted()
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }

    /// Binds the keys from parameter `index` on, repeating the last one up to `size`
    /// values; returns the next free parameter index.
    @discardableResult
    func bind(to statement: SQLiteStatement, from index: Int32 = 1) -> Int32 {
        var next = index
        for key in keys {
            statement.bindKey(key, at: next)
            next += 1
        }
        for _ in keys.count..<size {
            statement.bindKey(keys.last!, at: next)
            next += 1
        }
        return next
    }
}
