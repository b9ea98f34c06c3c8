package oracle

import (
	"bytes"
	"os"
	"testing"
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
