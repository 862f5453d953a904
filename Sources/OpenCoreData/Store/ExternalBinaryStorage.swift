import Foundation

/// Binary data kept in files beside the store, for attributes that allow external storage.
///
/// Core Data's format: every value of such an attribute is stored with a leading marker
/// byte. `0x01` is followed by the data itself (kept in the database); `0x02` is followed
/// by the name of a file (an uppercase UUID string) and a NUL byte, the file living in
/// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` beside the store. Values larger than 128 KiB
/// (`0x20000` bytes, Core Data's internal threshold) go to files.
///
/// Files are written when the row is written; a transaction that rolls back removes the
/// files it wrote. Files of replaced or deleted values are removed only after the
/// transaction commits, so a failed save never loses data.
final class ExternalBinaryStorage {
    /// Values larger than this many bytes are stored in files.
    static let threshold = 0x20000
    static let inlineMarker: UInt8 = 0x01
    static let fileMarker: UInt8 = 0x02

    /// The `_EXTERNAL_DATA` folder, or `nil` for an in-memory store (values stay inline).
    let directory: URL?
    private var writtenInTransaction: [URL] = []
    private var removeAfterCommit: [URL] = []

    /// The storage of the store at `storeURL` (`nil` for in-memory).
    init(storeURL: URL?) {
        guard let storeURL else {
            directory = nil
            return
        }
        let name = storeURL.deletingPathExtension().lastPathComponent
        directory = storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// The column bytes for `data`, writing it to a new file when it is large.
    func columnValue(for data: Data) throws -> Data {
        guard let directory, data.count > Self.threshold else {
            var column = Data(capacity: data.count + 1)
            column.append(Self.inlineMarker)
            column.append(data)
            return column
        }
        let name = UUID().uuidString
        let url = directory.appendingPathComponent(name, isDirectory: false)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw coreDataError(NSPersistentStoreSaveError, userInfo: [
                NSLocalizedDescriptionKey: "The external data file could not be written.",
                NSFilePathErrorKey: url.path,
                NSUnderlyingErrorKey: error,
            ])
        }
        writtenInTransaction.append(url)
        var column = Data(capacity: name.utf8.count + 2)
        column.append(Self.fileMarker)
        column.append(contentsOf: name.utf8)
        column.append(0)
        return column
    }

    /// The data a column holds: inline bytes, or the contents of its file.
    func data(fromColumn bytes: UnsafeRawBufferPointer) throws -> Data {
        guard let marker = bytes.first else { return Data() }
        switch marker {
        case Self.inlineMarker:
            return Data(bytes: bytes.baseAddress! + 1, count: bytes.count - 1)
        case Self.fileMarker:
            guard let url = fileURL(fromColumn: bytes) else { return Data(bytes: bytes.baseAddress!, count: bytes.count) }
            do {
                return try Data(contentsOf: url, options: .mappedIfSafe)
            } catch {
                throw coreDataError(NSFileReadNoSuchFileError, userInfo: [
                    NSLocalizedDescriptionKey: "External data reference can't find underlying file.",
                    NSFilePathErrorKey: url.path,
                    NSUnderlyingErrorKey: error,
                ])
            }
        default:
            // Written without a marker (not by this store): the bytes are the value.
            return Data(bytes: bytes.baseAddress!, count: bytes.count)
        }
    }

    /// The file a column refers to, or `nil` when the value is inline.
    func fileURL(fromColumn bytes: UnsafeRawBufferPointer) -> URL? {
        guard let directory, bytes.first == Self.fileMarker else { return nil }
        let nameBytes = bytes.dropFirst().prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        // A name is a UUID: never let a stored value point outside the folder.
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else { return nil }
        return directory.appendingPathComponent(name, isDirectory: false)
    }

    /// Marks the file a replaced or deleted column referred to for removal at commit.
    func removeAfterCommit(column bytes: UnsafeRawBufferPointer) {
        if let url = fileURL(fromColumn: bytes) { removeAfterCommit.append(url) }
    }

    /// Whether a transaction wrote or scheduled anything.
    var hasPendingWork: Bool { !writtenInTransaction.isEmpty || !removeAfterCommit.isEmpty }

    /// After COMMIT: removes the files of replaced and deleted values.
    func transactionCommitted() {
        for url in removeAfterCommit { try? FileManager.default.removeItem(at: url) }
        removeAfterCommit.removeAll()
        writtenInTransaction.removeAll()
    }

    /// After ROLLBACK: removes the files the transaction wrote, keeps everything else.
    func transactionRolledBack() {
        for url in writtenInTransaction { try? FileManager.default.removeItem(at: url) }
        writtenInTransaction.removeAll()
        removeAfterCommit.removeAll()
    }
}
