package oracle

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// childTODO finds a stub's TODO panic in a child's output.
var childTODO = regexp.MustCompile(`panic: (TODO\(\d+\.\d+\)[^\n\[]*?)\s*(\[recovered|\n)`)

// RunChild runs test, a top-level test of this test binary, in a child
// process whose environment adds env ("NAME=value" entries), and returns
// its output and whether it passed. A test uses it to start from a fresh
// process: no package state (a reused buffer, a filled free list) left by
// the tests before it. Where the binary cannot start a copy of itself (an
// emulator such as qemu-user with no binfmt registration runs it), t is
// skipped with the reason, so a missing feature of the machine never reads
// as a wrong answer. A child that panicked with a stub's TODO makes
// RunChild panic with the same message, so an unwritten stub fails for
// its TODO here too.
func RunChild(t testing.TB, test string, env ...string) (out []byte, passed bool) {
	t.Helper()
	args := []string{"-test.run=^" + test + "$", "-test.count=1"}
	if d, ok := childTimeout(t); ok {
		args = append(args, "-test.timeout="+d.String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, true
	case errors.As(err, &exit):
		// An unwritten stub's TODO in the child is the reason the test
		// fails, as it would be called directly: raise it here.
		if m := childTODO.FindSubmatch(out); m != nil {
			panic(string(m[1]))
		}
		return out, false
	}
	t.Skipf("cannot run %s in a child process of this test binary here (%v): skipped", test, err)
	return nil, false
}

// childTimeout is the time left before t's deadline (go test's -timeout),
// which a child gets as its own -test.timeout: a child run directly has
// no timeout of its own, so a child that hangs (a mutant's endless loop)
// would outlive a parent killed for running too long, and keep a core busy
// until someone noticed. False when t has no deadline.
func childTimeout(t testing.TB) (time.Duration, bool) {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return 0, false
	}
	deadline, ok := d.Deadline()
	if !ok {
		return 0, false
	}
	return max(time.Until(deadline), time.Second), true
}
