#if canImport(FoundationEssentials) && !PREFS_FULL_FOUNDATION
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes XML property lists in Apple's layout (tab indentation, sorted keys).
enum XMLPropertyListWriter {
    static func document(for value: PreferenceValue) -> String {
        document { write(value, into: &$0, indent: 0) }
    }

    /// A document whose top level is a dictionary of these entries, in this order (keys that
    /// Swift calls equal but whose bytes differ stay two entries).
    static func document(forEntries entries: [(key: String, value: PreferenceValue)]) -> String {
        var bytes: [UInt8] = []
        // An array's walk and an appending sink throw nothing.
        try? write(
            entries: { visit in for (key, value) in entries { try visit(key, value) } },
            to: { bytes += $0 })
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same document, handed to `sink` in pieces of about 64 KB as `walk` gives the
    /// entries (once).
    static func write(entries walk: PropertyListEntryWalk, to sink: ([UInt8]) throws -> Void)
        throws
    {
        // The walk's closure uses the sink; the walk does not keep it.
        try withoutActuallyEscaping(sink) { sink in
            var output = ChunkedOutput()
            output.append(header)
            var isEmpty = true
            var text = ""
            try walk { key, value in
                text += isEmpty ? "<dict>\n" : ""
                isEmpty = false
                text += "\t<key>\(escape(key))</key>\n"
                write(value, into: &text, indent: 1)
                if text.utf8.count >= 1 << 16 {
                    output.append(text)
                    text = ""
                    try output.flush(into: sink)
                }
            }
            output.append(text + (isEmpty ? "<dict/>\n" : "</dict>\n") + footer)
            try output.flush(into: sink)
        }
    }

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" \
        "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    private static let footer = "</plist>\n"

    private static func document(body: (inout String) -> Void) -> String {
        var output = header
        body(&output)
        output += footer
        return output
    }

    private static func write(_ value: PreferenceValue, into output: inout String, indent: Int) {
        let tabs = String(repeating: "\t", count: indent)
        switch value {
        case .bool(let flag):
            output += tabs + (flag ? "<true/>" : "<false/>") + "\n"
        case .int(let integer):
            output += tabs + "<integer>\(integer)</integer>\n"
        case .double(let real):
            output += tabs + "<real>\(realText(real))</real>\n"
        case .float(let real):
            // The Float's own shortest digits, not those of its widening.
            let text = real.isFinite && real != real.rounded() ? "\(real)" : realText(Double(real))
            output += tabs + "<real>\(text)</real>\n"
        case .string(let text), .json(let text):
            output += tabs + "<string>\(escape(text))</string>\n"
        case .url(let url):
            output += tabs + "<string>\(escape(url.absoluteString))</string>\n"
        case .date(let date):
            output += tabs + "<date>\(wholeSecondDate(date))</date>\n"
        case .data(let bytes):
            output += tabs + "<data>\n"
            let encoded = bytes.base64EncodedString()
            var start = encoded.startIndex
            while start < encoded.endIndex {
                let end =
                    encoded.index(start, offsetBy: 68, limitedBy: encoded.endIndex)
                    ?? encoded.endIndex
                output += tabs + encoded[start..<end] + "\n"
                start = end
            }
            output += tabs + "</data>\n"
        case .array(let elements):
            if elements.isEmpty {
                output += tabs + "<array/>\n"
                return
            }
            output += tabs + "<array>\n"
            for element in elements { write(element, into: &output, indent: indent + 1) }
            output += tabs + "</array>\n"
        case .dictionary(let entries):
            if entries.isEmpty {
                output += tabs + "<dict/>\n"
                return
            }
            output += tabs + "<dict>\n"
            for key in entries.keys.sorted() {
                output += tabs + "\t<key>\(escape(key))</key>\n"
                if let element = entries[key] { write(element, into: &output, indent: indent + 1) }
            }
            output += tabs + "</dict>\n"
        }
    }

    private static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "+inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Whether XML 1.0 can carry the text: no control characters but tab, line feed and
    /// carriage return, and no U+FFFE or U+FFFF.
    static func canCarry(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }
    }

    /// Whether the XML form keeps the date as it is: it writes whole seconds.
    static func isWholeSecond(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSinceReferenceDate
        return seconds == seconds.rounded(.down)
    }

    private static func wholeSecondDate(_ date: Date) -> String {
        let rounded = Date(
            timeIntervalSinceReferenceDate:
                date.timeIntervalSinceReferenceDate.rounded(.down))
        let text = ISO8601.string(from: rounded)
        // Drop the ".000" that whole seconds carry: XML property lists have no fraction.
        guard let dot = text.firstIndex(of: ".") else { return text }
        return String(text[..<dot]) + "Z"
    }

    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            // A reader turns a bare carriage return into a line feed; a reference keeps it.
            case "\r": output += "&#13;"
            default: output.unicodeScalars.append(character)
            }
        }
        return output
    }
}
