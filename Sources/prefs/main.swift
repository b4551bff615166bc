import PrefsCommandLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(PrefsCommand.run(Array(CommandLine.arguments.dropFirst())))
