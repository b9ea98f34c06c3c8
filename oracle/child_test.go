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
	}
	if out, ok := RunChild(t, "TestRunChild", "FORGE_ORACLE_CHILD=pass"); !ok {
		t.Errorf("RunChild of a passing test reported a failure; its output:\n%s", out)
	}
	out, ok := RunChild(t, "TestRunChild", "FORGE_ORACLE_CHILD=fail")
	if ok || !bytes.Contains(out, []byte("failing on purpose")) {
		t.Errorf("RunChild of a failing test = %v with output %q; want false and the child's failure", ok, out)
	}
}
