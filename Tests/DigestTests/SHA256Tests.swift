import Digest
import XCTest

final class SHA256Tests: XCTestCase {
    // Test vectors from FIPS 180-4's examples and NIST's SHA-256 byte-oriented suite.
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hexDigest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexDigest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hexDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testMillionAs() {
        var hasher = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        XCTAssertEqual(hasher.finalize().hexString, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testIncrementalEqualsOneShot() {
        let text = String(repeating: "Trailhead ✓ ", count: 50)
        var hasher = SHA256()
        for piece in text.split(separator: "✓", omittingEmptySubsequences: false).enumerated() {
            if piece.offset > 0 { hasher.update("✓") }
            hasher.update(String(piece.element))
        }
        XCTAssertEqual(hasher.finalize(), SHA256.hash(text.utf8))
    }
}
