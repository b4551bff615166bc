import PrefsCommandLine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Past a file-size limit, a write should fail (and be reported as an I/O error, exit 74)
// rather than kill the process with SIGXFSZ half-way.
signal(SIGXFSZ, SIG_IGN)
exit(PrefsCommand.runWithProcessArguments())
