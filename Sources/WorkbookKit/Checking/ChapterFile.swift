import Foundation

/// Writes a chapter back to disk for `verify --update` without ever losing an edit.
///
/// The update is computed from the text read before the chapter ran, which can take
/// minutes; an author may save the file meanwhile. So the file's bytes are compared with
/// what was read, just before the new text replaces them, and a changed file is left
/// alone. A symbolic link stays a link: its target is written.
enum ChapterFile {
    /// Replaces the file at `url` (the chapter `path`) with `new` if it still holds `old`.
    /// - Throws: a ``Problem`` at the chapter's first line when the file changed or is gone.
    static func replace(_ url: URL, path: String, expecting old: Data, with new: Data) throws {
        let target = url.resolvingSymlinksInPath()
        let changed = Problem(file: path, line: 1, message: "the chapter changed while it ran, so it was not updated (your edit is kept); run `verify --update` again")
        guard FileManager.default.contents(atPath: target.path) == old else { throw changed }
        // A new file beside the old one, renamed over it: a reader never sees half a chapter.
        let directory = target.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(target.lastPathComponent).workbook-\(UUID().uuidString.prefix(8))")
        try new.write(to: temporary)
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(at: temporary) } }
        if let permissions = try? FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] {
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary.path)
        }
        // Checked again after the write, so the window for a lost edit is the rename alone.
        guard FileManager.default.contents(atPath: target.path) == old else { throw changed }
        guard rename(temporary.path, target.path) == 0 else {
            throw Problem(file: path, line: 1, message: "the chapter could not be written: \(String(cString: strerror(errno)))", isTransient: true)
        }
        renamed = true
    }
}
