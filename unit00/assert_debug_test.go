//go:build forgedebug

package unit00

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// These tests are compiled only with -tags forgedebug; `make unit00` runs
// them in a second test binary built with that tag.

func TestC0_2_AssertDebug(t *testing.T) {
	if !Debug {
		t.Fatal("Debug is false in a build with the forgedebug tag")
	}
	var where string
	v, panicked := oracle.Panics(func() {
		where = here()
		Assert(false, "index in range")
	})
	want := "assertion failed at " + where + ": index in range"
	if !panicked || fmt.Sprint(v) != want {
		t.Errorf("debug Assert(false, ...): panicked=%v with %q, want a panic with %q", panicked, v, want)
	}
	if v, panicked := oracle.Panics(func() { Assert(true, "fine") }); panicked {
		t.Errorf("debug Assert(true, ...) panicked with %v", v)
	}
}
