package unit14

import (
	"testing"

	"github.com/llmforge/forge/oracle"
)

// eps32 is float32's machine epsilon, 2⁻²³.
const eps32 = 1.0 / (1 << 23)

// mustPanic fails t unless f panics (a unit00.Check); a stub's TODO panic
// is not taken for one.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	if _, panicked := oracle.Panics(f); !panicked {
		t.Errorf("%s did not panic: the contract says it panics (unit00.Check) on arguments that do not fit", what)
	}
}
