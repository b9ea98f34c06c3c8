package unit00

import (
	"fmt"
	"path/filepath"
	"runtime"
)

// Check panics when cond is false. The panic value is the string
// "check failed at DIR/FILE.go:LINE: msg", where DIR/FILE.go:LINE is the
// place that called Check (the last directory and the file name only), so
// the message points at the broken invariant, not at Check itself.
//
// Check is always on. Use it for invariants whose violation means a bug in
// the program, never for bad input: bad input gets an error.
func Check(cond bool, msg string) {
	if !cond {
		panic(checkFailed(msg))
	}
}

// Checkf is Check with a formatted message. Its arguments are evaluated (and
// boxed into interfaces) even when cond holds, so keep it off hot paths.
func Checkf(cond bool, format string, args ...any) {
	if !cond {
		panic(checkFailed(fmt.Sprintf(format, args...)))
	}
}

// checkFailed builds the panic message. It is called from Check or Checkf, so
// the frame to report is two above it.
func checkFailed(msg string) string {
	return "check failed at " + caller(3) + ": " + msg
}

// caller returns "dir/file.go:line" for the frame skip levels above its caller.
func caller(skip int) string {
	_, file, line, ok := runtime.Caller(skip)
	if !ok {
		return "unknown:0"
	}
	short := filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file))
	return fmt.Sprintf("%s:%d", filepath.ToSlash(short), line)
}
