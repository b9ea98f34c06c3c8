package unit14

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// eps32 is float32's machine epsilon, 2⁻²³.
const eps32 = 1.0 / (1 << 23)

// mustPanic fails t unless f panics through unit00.Check, whose message
// begins "check failed"; a runtime error (an index out of range, a
// division by zero) does not count, and a stub's TODO panic is not taken
// for one.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	switch {
	case !panicked:
		t.Errorf("%s did not panic: the contract says it panics (unit00.Check) on arguments that do not fit", what)
	case !strings.HasPrefix(fmt.Sprint(v), "check failed"):
		t.Errorf("%s panicked with %q, not through unit00.Check: check the arguments first, before they reach an index or a division", what, v)
	}
}
