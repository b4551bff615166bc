import PostgresCore
import Testing

/// A result's integers are read from libpq's bytes without a String: they must read as
/// `Int64(String)` reads the same text, at the edges of the range and for anything that
/// is not an integer (what a hostile server could send).
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
}
