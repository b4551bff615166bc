import Foundation

/// Prints results as a table with ratios, or as JSON.
enum Report {
    static func format(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "-" }
        if unit == "ns/op" {
            switch value {
            case ..<1_000: return String(format: "%.0f ns", value)
            case ..<1_000_000: return String(format: "%.2f us", value / 1_000)
            default: return String(format: "%.2f ms", value / 1_000_000)
            }
        }
        return String(format: "%.2f %@", value, unit)
    }

    static func ratio(_ value: Double, to baseline: Double?) -> String {
        guard let baseline, baseline > 0, value.isFinite else { return "" }
        return String(format: "%.2fx", value / baseline)
    }

    static func table(_ results: [WorkloadResult]) -> String {
        var lines: [String] = []
        let header = [
            "workload", "implementation", "median", "min", "max", "vs raw C", "vs UserDefaults",
            "peak RSS", "target",
        ]
        var rows: [[String]] = [header]
        for result in results {
            let raw = result.sample("raw C")?.median
            let defaults = result.sample("UserDefaults")?.median
            for (index, sample) in result.samples.enumerated() {
                rows.append([
                    index == 0 ? result.name : "", sample.contender,
                    format(sample.median, unit: result.unit),
                    format(sample.minimum, unit: result.unit),
                    format(sample.maximum, unit: result.unit),
                    sample.contender == "raw C" ? "" : ratio(sample.median, to: raw),
                    sample.contender == "UserDefaults" ? "" : ratio(sample.median, to: defaults),
                    result.peakKilobytes[sample.contender].map {
                        String(format: "%.1f MB", Double($0) / 1024)
                    } ?? "",
                    index == 0 ? result.target : "",
                ])
            }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (index, row) in rows.enumerated() {
            lines.append(
                "| "
                    + row.enumerated().map {
                        $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0)
                    }
                    .joined(separator: " | ") + " |")
            if index == 0 {
                lines.append(
                    "|"
                        + widths.map { String(repeating: "-", count: $0 + 2) }.joined(
                            separator: "|") + "|")
            }
        }
        var paired: [String] = []
        for result in results {
            for sample in result.samples where sample.contender != "raw C" {
                let ratios = result.roundRatios(of: sample.contender)
                guard let low = ratios.first, let high = ratios.last else { continue }
                var line =
                    "\(result.name), \(sample.contender): "
                    + String(format: "%.2fx (rounds %.2fx-%.2fx)", median(ratios), low, high)
                // The measuring thread's CPU: the work itself, where the machine is shared. Not
                // for whole processes, whose work is another process's.
                let cpu = result.roundCPURatios(of: sample.contender)
                if result.peakKilobytes.isEmpty, let low = cpu.first, let high = cpu.last {
                    line += String(
                        format: "; thread CPU %.2fx (rounds %.2fx-%.2fx)", median(cpu), low, high)
                }
                // Every thread of the process: what users pay, background threads included;
                // for whole processes, the programs' own user and system time (and the
                // bench's spawning and waiting, the same for both).
                let process = result.roundProcessCPURatios(of: sample.contender)
                if let low = process.first, let high = process.last {
                    line += String(
                        format: "; process CPU %.2fx (rounds %.2fx-%.2fx, %@ against %@ a op)",
                        median(process), low, high,
                        format(sample.processCPUMedian, unit: result.unit),
                        format(result.sample("raw C")?.processCPUMedian ?? .nan, unit: result.unit))
                }
                paired.append(line)
            }
        }
        if !paired.isEmpty {
            lines.append("")
            lines.append(
                "Per round, against raw C in the same round (the median of the rounds' ratios):")
            lines += paired
        }
        if let load = Clock.loadAverages() {
            lines.append("")
            lines.append("Load averages when the report was written (1, 5, 15 min): \(load)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The median of sorted values.
    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func json(_ results: [WorkloadResult], notes: [String: Any]) throws -> String {
        let workloads: [[String: Any]] = results.map { result in
            let raw = result.sample("raw C")?.median
            let defaults = result.sample("UserDefaults")?.median
            return [
                "name": result.name, "unit": result.unit, "target": result.target,
                "implementations": result.samples.map { sample -> [String: Any] in
                    var entry: [String: Any] = [
                        "name": sample.contender, "median": sample.median, "min": sample.minimum,
                        "max": sample.maximum,
                    ]
                    if let raw, raw > 0, sample.contender != "raw C" {
                        entry["ratioToRawC"] = sample.median / raw
                        let ratios = result.roundRatios(of: sample.contender)
                        if !ratios.isEmpty { entry["roundRatiosToRawC"] = ratios }
                    }
                    if result.peakKilobytes.isEmpty, !sample.cpuNanosecondsPerOperation.isEmpty {
                        entry["cpuMedian"] = sample.cpuMedian
                        let ratios = result.roundCPURatios(of: sample.contender)
                        if !ratios.isEmpty { entry["cpuRoundRatiosToRawC"] = ratios }
                        entry["processCPUMedian"] = sample.processCPUMedian
                        let process = result.roundProcessCPURatios(of: sample.contender)
                        if !process.isEmpty { entry["processCPURoundRatiosToRawC"] = process }
                    }
                    if let defaults, defaults > 0, sample.contender != "UserDefaults" {
                        entry["ratioToUserDefaults"] = sample.median / defaults
                    }
                    if let peak = result.peakKilobytes[sample.contender] {
                        entry["peakRSSKilobytes"] = peak
                    }
                    return entry
                },
            ]
        }
        var notes = notes
        if let load = Clock.loadAverages() { notes["loadAverages"] = load }
        let data = try JSONSerialization.data(
            withJSONObject: ["workloads": workloads, "notes": notes],
            options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
