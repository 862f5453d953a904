import XCTest
@testable import OpenCoreData

/// Keys looked up in batches (`Z_PK IN (?, …)`, a cascade's `ZPARENT IN (?, …)`) are cut
/// into chunks of the distinct keys, ascending, each padded to a batch size.
final class StorePaddedKeyChunkTests: XCTestCase {
    func testKeysAlreadyAscendingComeBackAsTheyAre() {
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([1, 2, 5, 9]), [1, 2, 5, 9])
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([]), [])
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([7]), [7])
    }

    func testOtherKeysAreSortedWithRepeatsDropped() {
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([5, 1, 5, 3, 1, 1]), [1, 3, 5])
        // Ascending but with a repeat: not strictly ascending, so the repeat goes.
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([1, 2, 2, 3]), [1, 2, 3])
        XCTAssertEqual(PaddedKeyChunk.distinctAscending([4, 4, 4]), [4])
    }

    func testChunksHoldEachKeyOnceInOrderPaddedToABatchSize() {
        let keys = (1...1_100).reversed().map(Int64.init) + [3, 700]
        let chunks = PaddedKeyChunk.chunks(of: keys)
        XCTAssertEqual(chunks.map(\.keys.count), [512, 512, 76])
        XCTAssertEqual(chunks.map(\.size), [512, 512, 512])
        XCTAssertEqual(chunks.flatMap(\.keys), (1...1_100).map(Int64.init))
        XCTAssertEqual(PaddedKeyChunk.chunks(of: [9, 2]).map(\.size), [8])
    }
}
