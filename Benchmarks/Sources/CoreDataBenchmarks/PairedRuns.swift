import Foundation

/// `core-data-benchmarks --pairs N --phase PHASE [--only a,b,…]`: one phase, the subjects
/// run back to back N times (the order rotating each time), and each subject's time
/// divided by the first subject's time *of the same repetition*.
///
/// Why: the shared machine switches between two speeds, sometimes within one repetition
/// of the whole benchmark, so a ratio of medians can divide a fast-mode run by a slow-mode
/// one. Two runs of one phase a fraction of a second apart almost always meet the same
/// mode, so the median of the per-repetition ratios is the figure to trust; the range
/// shows how often they did not.
///
/// Each run is a fresh process, as in the whole benchmark. The database a phase starts
/// from is made by the phases that write before it (insert; update-all before
/// delete-all), untimed: once per subject for the phases that only read, afresh before
/// every run for the phases that write.
enum PairedRuns {
    /// The phases before `phase` that change the file: what its starting state needs.
    static func setUpPhases(for phase: Phase) -> [Phase] {
        Phase.allCases.prefix { $0 != phase }.filter { $0 == .insert || $0 == .updateAll }
    }

    static func writes(_ phase: Phase) -> Bool {
        [.insert, .updateAll, .deleteAll].contains(phase)
    }

    static func run(phase: Phase, subjects: [String], repetitions: Int, scratch: URL,
                    measure: (String, Phase, URL) throws -> PhaseMeasurement) throws {
        func database(_ subject: String) -> URL { scratch.appendingPathComponent("pairs-\(subject).sqlite") }
        func remove(_ url: URL) {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        func setUp(_ subject: String) throws {
            remove(database(subject))
            for earlier in setUpPhases(for: phase) { _ = try measure(subject, earlier, database(subject)) }
        }
        if !writes(phase) { for subject in subjects { try setUp(subject) } }

        var runs: [String: [PhaseMeasurement]] = [:]
        for repetition in 0..<repetitions {
            let shift = repetition % subjects.count
            var checksums: [(String, Int)] = []
            for subject in subjects[shift...] + subjects[..<shift] {
                if writes(phase) { try setUp(subject) }
                let measurement = try measure(subject, phase, database(subject))
                runs[subject, default: []].append(measurement)
                checksums.append((subject, measurement.checksum))
            }
            guard Set(checksums.map(\.1)).count == 1 else {
                throw BenchmarkError("checksum mismatch in \(phase.rawValue), repetition \(repetition + 1): "
                    + checksums.map { "\($0.0)=\($0.1)" }.joined(separator: ", "))
            }
        }
        for subject in subjects { remove(database(subject)) }
        report(phase: phase, subjects: subjects, runs: runs)
    }

    private static func report(phase: Phase, subjects: [String], runs: [String: [PhaseMeasurement]]) {
        let base = subjects[0]
        let count = runs[base]?.count ?? 0
        print("\(phase.title): \(count) repetitions, each subject's run paired with \(base)'s run of the same repetition")
        print("")
        print("| subject | CPU s, median (min–max) | wall s, median | ÷ \(base), CPU: paired median (range) | ÷ \(base), wall: paired median (range) |")
        print("|---|---:|---:|---:|---:|")
        for subject in subjects {
            let mine = runs[subject] ?? [], theirs = runs[base] ?? []
            let cpu = mine.map(\.cpuSeconds).sorted()
            func paired(_ value: KeyPath<PhaseMeasurement, Double>) -> String {
                let ratios = zip(mine, theirs).map { $0[keyPath: value] / $1[keyPath: value] }.sorted()
                guard let low = ratios.first, let high = ratios.last else { return "–" }
                return "\(format(median(ratios), 2))× (\(format(low, 2))–\(format(high, 2)))"
            }
            let range = cpu.isEmpty ? "–" : "\(format(median(cpu))) (\(format(cpu[0]))–\(format(cpu[cpu.count - 1])))"
            print("| \(subject) | \(range) | \(format(median(mine.map(\.seconds)))) | \(paired(\.cpuSeconds)) | \(paired(\.seconds)) |")
        }
    }
}
