#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// ISO 8601 dates in UTC with fractional seconds, exact in both directions.
///
/// The fraction always has nine digits (nanoseconds), in every output: enough for the
/// `Date`'s `Double` to read back bit for bit for any date from 2001-07 on and before it
/// back to 1970-07 (nearer 2001-01-01 a `Double` holds finer fractions than that; such a
/// date reads back to the nanosecond), so a date survives an export and import unchanged:
/// `2026-11-30T02:27:58.123000000Z`. Any number of digits is read.
package enum ISO8601 {
    private static let referenceOffset: Int64 = 978_307_200  // 1970 to 2001 in seconds

    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.fffffffffZ`.
    package static func string(from date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 1e15 else { return "invalid-date" }
        var (whole, shortest) = splitDecimal(interval)
        // Nine digits, rounded half up (with a carry into the seconds).
        var digits = Array(shortest.utf8.prefix(10))
        while digits.count < 10 { digits.append(UInt8(ascii: "0")) }
        let roundsUp = digits.removeLast() >= UInt8(ascii: "5")
        if roundsUp {
            var index = digits.count - 1
            while index >= 0 {
                if digits[index] == UInt8(ascii: "9") {
                    digits[index] = UInt8(ascii: "0")
                    index -= 1
                } else {
                    digits[index] += 1
                    break
                }
            }
            if index < 0 { whole += 1 }
        }
        let fraction = String(decoding: digits, as: UTF8.self)
        let unix = whole + referenceOffset
        let days = floorDivide(unix, 86_400)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":"
            + pad(secondOfDay % 60, 2) + "." + fraction + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`.
    ///
    /// - Returns: nil when the text is not such a date.
    package static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        var position = 0
        func number(_ digits: Int) -> Int64? {
            guard bytes.count - position >= digits else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + digits] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            position += digits
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard position < bytes.count, let ascii = character.asciiValue,
                bytes[position] == ascii || (character == "T" && bytes[position] == 0x74)
            else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"),
            let day = number(2), expect("T"), let hour = number(2), expect(":"),
            let minute = number(2), expect(":"), let second = number(2),
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = ""
        if position < bytes.count && (bytes[position] == 0x2E || bytes[position] == 0x2C) {
            position += 1
            let start = position
            while position < bytes.count && bytes[position] >= 0x30 && bytes[position] <= 0x39 {
                position += 1
            }
            guard position > start else { return nil }
            fraction = String(decoding: bytes[start..<position], as: UTF8.self)
        }
        var offset: Int64 = 0
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "Z") || bytes[position] == UInt8(ascii: "z") {
            position += 1
        } else if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[position] == UInt8(ascii: "+") ? 1 : -1
            position += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24,
                minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let days = days(fromCivil: year, month, day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset - referenceOffset
        return Date(timeIntervalSinceReferenceDate: joinDecimal(whole: whole, fraction: fraction))
    }

    /// Splits a double into whole seconds (rounded down) and the decimal digits of the
    /// non-negative remainder, taken from the shortest text that reads back exactly.
    private static func splitDecimal(_ value: Double) -> (Int64, String) {
        let text = "\(value)"
        guard !text.contains("e"), !text.contains("E") else {
            // Tiny fractions (or huge values): the nearest nanosecond, carried into the seconds.
            var whole = value.rounded(.down)
            var nanos = Int64(((value - whole) * 1_000_000_000).rounded())
            if nanos >= 1_000_000_000 {
                whole += 1
                nanos = 0
            }
            return (Int64(whole), trimZeros(pad(nanos, 9)))
        }
        let negative = text.hasPrefix("-")
        let unsigned = negative ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        let integer = Int64(parts[0]) ?? 0
        let digits = trimZeros(parts.count > 1 ? String(parts[1].prefix(18)) : "")
        if !negative { return (integer, digits) }
        if digits.isEmpty { return (-integer, "") }
        return (-integer - 1, complement(digits))
    }

    private static func joinDecimal(whole: Int64, fraction: String) -> Double {
        let digits = trimZeros(String(fraction.prefix(18)))
        if digits.isEmpty { return Double(whole) }
        if whole >= 0 { return Double("\(whole).\(digits)") ?? Double(whole) }
        return -(Double("\(-whole - 1).\(complement(digits))") ?? Double(-whole - 1))
    }

    /// 1 - 0.digits, as digits of the same length.
    private static func complement(_ digits: String) -> String {
        var power: UInt64 = 1
        for _ in digits { power *= 10 }
        let value = UInt64(digits) ?? 0
        return trimZeros(pad(Int64(power - value), digits.count))
    }

    private static func trimZeros(_ digits: String) -> String {
        var digits = Substring(digits)
        while digits.last == "0" { digits = digits.dropLast() }
        return String(digits)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Days since 1970-01-01 in the proleptic Gregorian calendar, and back; the
    // era-based method of Howard Hinnant's "chrono-Compatible Low-Level Date Algorithms".
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
