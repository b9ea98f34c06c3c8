package unit00

// Check panics when cond is false. The panic value is the string
// "check failed at DIR/FILE.go:LINE: msg", where DIR/FILE.go:LINE is the
// place that called Check (the last directory and the file name only), so
// the message points at the broken invariant, not at Check itself.
//
// Check is always on. Use it for invariants whose violation means a bug in
// the program, never for bad input: bad input gets an error.
func Check(cond bool, msg string) {
	panic("TODO(0.2): write Check, see docs/unit00.md")
}

// Checkf is Check with a formatted message. Its arguments are evaluated (and
// boxed into interfaces) even when cond holds, so keep it off hot paths.
func Checkf(cond bool, format string, args ...any) {
	panic("TODO(0.2): write Checkf, see docs/unit00.md")
}
