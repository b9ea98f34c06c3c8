package oracle

import (
	"fmt"
	"regexp"
)

// todoRE matches the panic message of an unwritten stub: "TODO(1.3): ...".
var todoRE = regexp.MustCompile(`^TODO\(\d+\.\d+\)`)

// IsTODO reports whether a recovered panic value came from a stub's TODO.
func IsTODO(v any) bool {
	return v != nil && todoRE.MatchString(fmt.Sprint(v))
}

// Panics runs f and returns the value it panicked with, and whether it
// panicked. A TODO panic from a stub is raised again: a test that expects a
// panic must not pass because the code under test is not written yet.
func Panics(f func()) (value any, panicked bool) {
	defer func() {
		if v := recover(); v != nil || panicked {
			if IsTODO(v) {
				panic(v)
			}
			value = v
		}
	}()
	panicked = true
	f()
	panicked = false
	return nil, false
}
