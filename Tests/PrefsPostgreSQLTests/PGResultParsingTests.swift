import PostgresCore
import Testing

/// A result's integers and doubles are read from libpq's bytes without a String: they must
/// read as `Int64(String)` and `Double(String)` read the same text, at the edges of the
/// range and for anything that is not a number (what a hostile server could send).
@Suite struct PGResultParsingTests {
    @Test(arguments: [
        "0", "-0", "+0", "7", "+5", "-42", "0042", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "99999999999999999999999", "", "-", "+",
        "+-1", "--1", "12a", " 1", "1 ", "1.5", "1e3", "\u{0660}", "0x10",
    ])
    func anIntegerReadsAsInt64Does(text: String) {
        let parsed = text.withCString { PGResult.integer($0) }
        #expect(parsed == Int64(text), "\(text)")
    }

    @Test func randomDigitsReadAsInt64Does() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let length = Int.random(in: 1...21, using: &generator)
            var text = ["", "-", "+"].randomElement(using: &generator) ?? ""
            for _ in 0..<length {
                text += String(Int.random(in: 0...9, using: &generator))
            }
            let parsed = text.withCString { PGResult.integer($0) }
            #expect(parsed == Int64(text), "\(text)")
        }
    }

    static func sameDouble(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
    }

    @Test(arguments: [
        "0", "-0", "1.5", "818119864.6098081", "-1e-05", "1.7976931348623157e+308", "1e308",
        "1e309", "-1e400", "5e-324", "1e-400", "2.2250738585072014e-308", "Infinity",
        "-Infinity", "inf", "NaN", "nan", "nan(123)", "0x1p3", "0x", "", "-", ".", "1.", ".5",
        "1e", "1e+", " 1", "\t1", "\n1", "1 ", "1,5", "1.5x", "abc", "+7", "00012.50",
        "\u{0661}", "1\u{00A0}",
    ])
    func aDoubleReadsAsDoubleDoes(text: String) {
        let parsed = text.withCString { PGResult.double($0) }
        #expect(Self.sameDouble(parsed, Double(text)), "\(text): \(String(describing: parsed))")
    }

    @Test func randomDoublesReadAsDoubleDoes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double(
                bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            for text in ["\(value)", String(format: "%.17g", value)] {
                let parsed = text.withCString { PGResult.double($0) }
                #expect(Self.sameDouble(parsed, Double(text)), "\(text)")
            }
        }
    }
}
