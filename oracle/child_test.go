package oracle

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestRunChild runs itself as a child that passes and one that fails.
func TestRunChild(t *testing.T) {
	switch os.Getenv("FORGE_ORACLE_CHILD") {
	case "pass":
		return
	case "fail":
		t.Fatal("failing on purpose")
	case "todo":
		panic("TODO(0.0): a stub, on purpose")
	}
	if out, ok := RunChild(t, "TestRunChild", "FORGE_ORACLE_CHILD=pass"); !ok {
		t.Errorf("RunChild of a passing test reported a failure; its output:\n%s", out)
	}
	out, ok := RunChild(t, "TestRunChild", "FORGE_ORACLE_CHILD=fail")
	if ok || !bytes.Contains(out, []byte("failing on purpose")) {
		t.Errorf("RunChild of a failing test = %v with output %q; want false and the child's failure", ok, out)
	}
	v, panicked := func() (v any, panicked bool) {
		defer func() { v = recover(); panicked = v != nil }()
		RunChild(t, "TestRunChild", "FORGE_ORACLE_CHILD=todo")
		return nil, false
	}()
	if !panicked || v != "TODO(0.0): a stub, on purpose" {
		t.Errorf("RunChild of a child that panicked with a TODO: recovered %q, want the TODO itself raised again", v)
	}
}

// TestChildTimeout: a test with a deadline hands its children the time
// left (at least a second); a TB without one gives none.
func TestChildTimeout(t *testing.T) {
	d, ok := childTimeout(t)
	if deadline, has := t.Deadline(); has {
		if !ok || d <= 0 || d > time.Until(deadline)+time.Second {
			t.Errorf("childTimeout = %v, %v with %v left: want the time left", d, ok, time.Until(deadline))
		}
	} else if ok {
		t.Errorf("childTimeout = %v, true for a test without a deadline", d)
	}
	if _, ok := childTimeout(noDeadline{t}); ok {
		t.Error("childTimeout of a TB without Deadline: want false")
	}
}

// noDeadline hides T's Deadline method.
type noDeadline struct{ testing.TB }
