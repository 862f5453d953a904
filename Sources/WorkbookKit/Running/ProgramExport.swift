import Foundation

/// Writes what the runner would compile and run for a chapter, with a shell script that
/// does the same with bare `swiftc`: the baseline of the workbook benchmark, and a way to
/// look at the generated program when a chapter misbehaves.
public enum ProgramExport {
    /// Writes `main/`, one `fail-N/` per compile-fail snippet, `data/` and `run.sh` into `directory`.
    public static func write(_ chapter: Chapter, runner: ChapterRunner, to directory: URL) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        func writeSources(_ files: [SourceFile], _ name: String) throws -> [String] {
            let folder = directory.appendingPathComponent(name)
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            return try files.map { file in
                let url = folder.appendingPathComponent(file.name)
                try Data(file.text.utf8).write(to: url)
                return url.path
            }
        }
        let arguments = runner.compilerArguments()
        var script = "#!/bin/sh\n# Compiles and runs \(chapter.path) as `workbook` does, with bare swiftc.\nset -e\n"
        script += "here=\(quote(directory.path))\ncd \(quote(runner.packageRoot.path))\n"
        let main = try writeSources(ProgramAssembler.mainProgram(chapter), "main")
        script += command([runner.toolchain.swiftc] + arguments + ["-o", directory.appendingPathComponent("program").path] + main) + "\n"
        let plans = ProgramAssembler.plans(for: chapter)
        for snippet in chapter.snippets where plans[snippet.index] == .compileFail {
            let sources = try writeSources(ProgramAssembler.compileFailProgram(chapter, snippet: snippet.index), "fail-\(snippet.index)")
            let output = directory.appendingPathComponent("fail-\(snippet.index).out").path
            script += "if " + command([runner.toolchain.swiftc] + arguments + ["-o", output] + sources) + " 2>/dev/null; then echo 'compile-fail snippet compiled' >&2; exit 1; fi\n"
        }
        let data = directory.appendingPathComponent("data")
        try fileManager.createDirectory(at: data, withIntermediateDirectories: true)
        for file in chapter.dataFiles {
            let url = data.appendingPathComponent(file.path)
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url)
        }
        let traps = chapter.snippets.filter { plans[$0.index] == .trap }.map { String($0.index) }
        for run in [nil] + traps.map(Optional.some) {
            let work = "$here/work" + (run.map { "-trap-\($0)" } ?? "")
            var environment = runner.programEnvironment(workingDirectory: work, backtraceFile: "$here/backtrace.txt")
            if let run { environment[ProgramAssembler.trapVariable] = run }
            let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: " ")
            script += "rm -rf \"\(work)\" && mkdir -p \"\(work)/.tmp\" && cp -R \"$here/data/.\" \"\(work)/\"\n"
            // Descriptor 3 takes the snippet markers (see OutputCapture).
            script += "(cd \"\(work)\" && env -i \(assignments) \"$here/program\" </dev/null >/dev/null 2>&1 \(OutputCapture.markerDescriptor)>/dev/null)"
            // The shell reports a crashed child itself ("Illegal instruction"); keep that quiet too.
            script += run == nil ? "\n" : " 2>/dev/null || true\n"
        }
        let url = directory.appendingPathComponent("run.sh")
        try Data(script.utf8).write(to: url)
        try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    private static func command(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
    }

    /// Single-quotes a word for the shell.
    static func quote(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:#+,".contains($0) }
        return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
