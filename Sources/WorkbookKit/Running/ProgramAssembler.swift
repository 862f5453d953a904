import SwiftParser
import SwiftSyntax

/// A source file of an assembled chapter program.
public struct SourceFile: Sendable, Equatable {
    public var name: String
    public var text: String
}

/// What the program does with each snippet.
public enum SnippetPlan: Sendable, Equatable {
    /// Top-level code of `main.swift`, run in order.
    case run
    /// Compiled in `main.swift`; its statements sit in a block that never runs (`no-run`).
    case compileOnly
    /// Compiled in `main.swift` in a block that runs only in the trap run for this snippet.
    case trap
    /// Left out of the main program; compiled on its own after the snippets before it.
    case compileFail
    /// A separate source file of the program.
    case sourceFile(String)
    /// Neither compiled nor run: `ignore`, or an exercise stub whose solution follows.
    case skipped
}

/// Turns a chapter's snippets into the Swift sources of its program.
///
/// Every snippet is preceded by `#sourceLocation(file: "Chapters/NN-slug.md", line: N)`,
/// so diagnostics and runtime messages (`fatalError`, force unwraps, `#file`) name the
/// chapter's own lines. Between snippets, `main.swift` calls into `_WorkbookRuntime.swift`,
/// which writes a marker (on descriptor 3, apart from the program's output) that the runner
/// uses to attribute output to snippets. The
/// runtime lives in its own file, so its imports never leak into the chapter's code.
public enum ProgramAssembler {
    /// The name of the support file; chapter snippets may not use it.
    static let runtimeFileName = "_WorkbookRuntime.swift"
    /// The environment variable naming the trap snippet to run.
    public static let trapVariable = "WORKBOOK_TRAP_SNIPPET"

    /// The plan for every snippet, indexed like ``Chapter/snippets``.
    public static func plans(for chapter: Chapter) -> [SnippetPlan] {
        let snippets = chapter.snippets
        return snippets.map { snippet in
            let attributes = snippet.attributes
            if attributes.mode == .ignore { return .skipped }
            if attributes.role == .exercise,
               snippet.index + 1 < snippets.count, snippets[snippet.index + 1].attributes.role == .solution {
                return .skipped
            }
            if let name = attributes.fileName { return .sourceFile(name) }
            switch attributes.mode {
            case .run: return .run
            case .noRun: return .compileOnly
            case .trap: return .trap
            case .compileFail: return .compileFail
            case .ignore: return .skipped
            }
        }
    }

    /// The chapter's program: every snippet that compiles, with compile-fail snippets left out.
    public static func mainProgram(_ chapter: Chapter) -> [SourceFile] {
        assemble(chapter, upTo: nil)
    }

    /// The program that must fail to compile for the compile-fail snippet at `index`: the
    /// snippets before it as in the main program, then the snippet itself, unguarded.
    public static func compileFailProgram(_ chapter: Chapter, snippet index: Int) -> [SourceFile] {
        assemble(chapter, upTo: index)
    }

    private static func assemble(_ chapter: Chapter, upTo failing: Int?) -> [SourceFile] {
        let plans = plans(for: chapter)
        var main = "_WorkbookRuntime.start()\n"
        var files: [SourceFile] = []
        for snippet in chapter.snippets {
            let plan = plans[snippet.index]
            if let failing, snippet.index > failing {
                if case .sourceFile = plan {} else { continue }
            }
            let located = located(snippet, in: chapter.path)
            switch plan {
            case .run:
                main += "_WorkbookRuntime.begin(\(snippet.index))\n" + located
            case .compileOnly:
                main += "_WorkbookRuntime.begin(\(snippet.index))\n"
                main += isDeclarationsOnly(snippet.code)
                    ? located
                    : "if _WorkbookRuntime.never {\n" + located + "}\n"
            case .trap:
                main += "_WorkbookRuntime.begin(\(snippet.index))\n"
                main += "if _WorkbookRuntime.runsTrap(\(snippet.index)) {\n" + located
                    + "_WorkbookRuntime.trapDidNotHappen()\n}\n"
            case .compileFail:
                if snippet.index == failing { main += located }
            case .sourceFile(let name):
                files.append(SourceFile(name: name, text: located))
            case .skipped:
                continue
            }
        }
        if failing == nil { main += "_WorkbookRuntime.end()\n" }
        return [SourceFile(name: "main.swift", text: main), SourceFile(name: runtimeFileName, text: runtime)] + files
    }

    /// The snippet's code between `#sourceLocation` directives.
    static func located(_ snippet: Snippet, in path: String) -> String {
        var code = snippet.code
        if !code.isEmpty && !code.hasSuffix("\n") { code += "\n" }
        return "#sourceLocation(file: \(stringLiteral(path)), line: \(snippet.firstCodeLine))\n" + code + "#sourceLocation()\n"
    }

    /// Whether the code only declares types, functions and imports, so that placing it at
    /// top level runs nothing (variable declarations run their initializers, so they do not count).
    static func isDeclarationsOnly(_ code: String) -> Bool {
        let file = Parser.parse(source: code)
        return file.statements.allSatisfy { item in
            guard case .decl(let decl) = item.item else { return false }
            return decl.is(StructDeclSyntax.self) || decl.is(ClassDeclSyntax.self) || decl.is(EnumDeclSyntax.self)
                || decl.is(ProtocolDeclSyntax.self) || decl.is(ExtensionDeclSyntax.self) || decl.is(FunctionDeclSyntax.self)
                || decl.is(TypeAliasDeclSyntax.self) || decl.is(ImportDeclSyntax.self) || decl.is(ActorDeclSyntax.self)
                || decl.is(OperatorDeclSyntax.self) || decl.is(PrecedenceGroupDeclSyntax.self)
        }
    }

    /// A Swift string literal for `text`.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The support file every chapter program is compiled with.
    static let runtime = """
        // Written by the workbook tool; not part of the chapter. Every C function is called
        // through its module name and every type is qualified, so that names a chapter
        // declares at top level (a `write` function, a `String` type) cannot capture them.
        #if canImport(Glibc)
        import Glibc
        private typealias _CFile = Swift.UnsafeMutablePointer<Glibc.FILE>
        private func _standardOutput() -> _CFile? { Glibc.stdout }
        private func _setLineBuffered(_ file: _CFile?) { _ = Glibc.setvbuf(file, nil, Glibc._IOLBF, 0) }
        private func _flush(_ file: _CFile?) { _ = Glibc.fflush(file) }
        private func _write(_ bytes: Swift.UnsafeRawPointer, _ count: Swift.Int) { _ = Glibc.write(\(OutputCapture.markerDescriptor), bytes, count) }
        private func _variable(_ name: Swift.String) -> Swift.String? { Glibc.getenv(name).map { Swift.String(cString: $0) } }
        private func _exit(_ status: Swift.Int32) -> Swift.Never { Glibc.exit(status) }
        #elseif canImport(Darwin)
        import Darwin
        private typealias _CFile = Swift.UnsafeMutablePointer<Darwin.FILE>
        private func _standardOutput() -> _CFile? { Darwin.stdout }
        private func _setLineBuffered(_ file: _CFile?) { _ = Darwin.setvbuf(file, nil, Darwin._IOLBF, 0) }
        private func _flush(_ file: _CFile?) { _ = Darwin.fflush(file) }
        private func _write(_ bytes: Swift.UnsafeRawPointer, _ count: Swift.Int) { _ = Darwin.write(\(OutputCapture.markerDescriptor), bytes, count) }
        private func _variable(_ name: Swift.String) -> Swift.String? { Darwin.getenv(name).map { Swift.String(cString: $0) } }
        private func _exit(_ status: Swift.Int32) -> Swift.Never { Darwin.exit(status) }
        #endif

        enum _WorkbookRuntime {
            /// The trap snippet this run executes, or -1 in the main run.
            static let trapSnippet: Swift.Int = _variable("\(trapVariable)").flatMap { Swift.Int($0) } ?? -1

            /// Line-buffered standard output, as in a terminal, so output and errors interleave as a reader sees them.
            static func start() { _setLineBuffered(_standardOutput()) }

            static func begin(_ index: Swift.Int) { mark("snippet \\(index)") }

            static func end() { mark("end") }

            static func runsTrap(_ index: Swift.Int) -> Swift.Bool { trapSnippet == index }

            /// False, but not known to the compiler, so `no-run` code is compiled without warnings.
            static var never: Swift.Bool { trapSnippet == -2 }

            static func trapDidNotHappen() -> Swift.Never {
                mark("no-trap")
                _exit(0)
            }

            /// Flushes standard output, then names the boundary on the marker descriptor (one
            /// write, one datagram), which the program's own output can never reach.
            private static func mark(_ name: Swift.String) {
                _flush(_standardOutput())
                let bytes = Swift.Array(name.utf8)
                bytes.withUnsafeBytes { _write($0.baseAddress!, $0.count) }
            }
        }

        """
}
