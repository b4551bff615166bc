// prefs-fuzz: the fuzzing executable. Built normally it replays files through a target:
//   prefs-fuzz TARGET FILE...
// Built for libFuzzer, libFuzzer's main calls LLVMFuzzerTestOneInput (see Tests/run-fuzz):
//   swift build --sanitize fuzzer --sanitize address -Xswiftc -DFUZZING --product prefs-fuzz
//   PREFS_FUZZ_TARGET=json .build/debug/prefs-fuzz Tests/Fuzz/Corpus/json -max_total_time=60
import Foundation
import PrefsFuzzing

#if FUZZING
    // Fuzzing builds compile executables as libraries, and libFuzzer's main calls this.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let name = ProcessInfo.processInfo.environment["PREFS_FUZZ_TARGET"] ?? "json"
        FuzzTarget(rawValue: name)?.run(bytes)
        return 0
    }
#else
    @main
    enum PrefsFuzz {
        static func main() {
            let arguments = CommandLine.arguments
            guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
                print(
                    "usage: prefs-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE..."
                )
                exit(64)
            }
            for path in arguments.dropFirst(2) {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                target.run(Array(data))
            }
        }
    }
#endif
