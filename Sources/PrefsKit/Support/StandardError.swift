/// Writes a message to standard error without Foundation.
func standardErrorWrite(_ text: String) {
    FileDescriptor.writeAll(text, to: 2)
}
