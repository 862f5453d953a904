/// An object's identity as a dictionary key, hashed by one multiplication instead of
/// `Hasher`'s SipHash: the lists of inserted, updated and deleted objects key every object
/// a save writes by its identity (two look-ups per object inserted or changed), and
/// addresses need no protection against chosen collisions.
struct IdentityKey: Hashable {
    let address: UInt

    init(_ object: AnyObject) { address = UInt(bitPattern: ObjectIdentifier(object)) }

    static func == (lhs: IdentityKey, rhs: IdentityKey) -> Bool { lhs.address == rhs.address }

    func hash(into hasher: inout Hasher) { hasher.combine(address) }

    /// What a dictionary buckets by. Fibonacci hashing mixes the address (whose low bits
    /// are always zero, objects being aligned) into the high bits; folding them down gives
    /// the low bits a dictionary's bucket index is taken from. The seed keeps each
    /// dictionary's order its own, as `Hasher`'s does.
    func _rawHashValue(seed: Int) -> Int {
        let mixed = (address ^ UInt(bitPattern: seed)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: mixed ^ (mixed >> 29))
    }
}
