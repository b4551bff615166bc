// prefs-fuzz: the fuzzing executable. Built normally it replays files through a target:
//   prefs-fuzz TARGET FILE...
// Built for libFuzzer, it hands control to libFuzzer's driver (see Tests/fuzz):
//   swift build --sanitize fuzzer --sanitize address -Xswiftc -DFUZZING --product prefs-fuzz
//   PREFS_FUZZ_TARGET=json .build/debug/prefs-fuzz Tests/Fuzz/Corpus/json -max_total_time=60
import Foundation
import PrefsFuzzing

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    let targetName = ProcessInfo.processInfo.environment["PREFS_FUZZ_TARGET"] ?? "json"
    guard let target = FuzzTarget(rawValue: targetName) else {
        FileHandle.standardError.write(Data("prefs-fuzz: unknown target '\(targetName)'\n".utf8))
        exit(64)
    }
    nonisolated(unsafe) var selected = target
    var argc = CommandLine.argc
    var argv = Optional(CommandLine.unsafeArgv)
    exit(LLVMFuzzerRunDriver(&argc, &argv!) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        selected.run(bytes)
        return 0
    })
#else
    let arguments = CommandLine.arguments
    guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
        print("usage: prefs-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...")
        exit(64)
    }
    for path in arguments.dropFirst(2) {
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        target.run(Array(data))
    }
#endif
