//go:build !forgedebug

package unit00

import (
	"testing"

	"github.com/llmforge/forge/oracle"
)

func TestC0_2_AssertRelease(t *testing.T) {
	if Debug {
		t.Fatal("Debug is true in a build without the forgedebug tag")
	}
	if v, panicked := oracle.Panics(func() { Assert(false, "must vanish in release builds") }); panicked {
		t.Fatalf("Assert(false, ...) panicked with %v in a build without the forgedebug tag; release Assert must do nothing", v)
	}
	if v, panicked := oracle.Panics(func() { Assert(true, "fine") }); panicked {
		t.Fatalf("Assert(true, ...) panicked with %v", v)
	}
}
