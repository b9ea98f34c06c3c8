package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

const solution = "package unit01\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"

const goodPatch = `Mutant: Add subtracts.
Caught-by: 1.2, boss

--- a/solutions/unit01/add.go
+++ b/solutions/unit01/add.go
@@ -3,3 +3,3 @@
 func Add(a, b int) int {
-	return a + b
+	return a - b
 }
`

func repoWith(t *testing.T, patch string) (workbook.Repo, string) {
	root := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("solutions/unit01/add.go", solution)
	write("solutions/unit01/other.go", "package unit01\n")
	path := "ci/mutants/unit01/subtracts/" + PatchName
	write(path, patch)
	return workbook.Repo{Root: root}, filepath.Join(root, path)
}

func TestLoadAndWrite(t *testing.T) {
	r, _ := repoWith(t, goodPatch)
	ms, err := Load(r)
	if err != nil || len(ms) != 1 {
		t.Fatalf("Load: %v, %d mutants", err, len(ms))
	}
	m := ms[0]
	if m.ID() != "unit01/subtracts" || m.Description != "Add subtracts." || strings.Join(m.CaughtBy, "|") != "1.2|boss" {
		t.Errorf("mutant %s: %q caught by %q", m.ID(), m.Description, m.CaughtBy)
	}
	dst := t.TempDir()
	if err := m.Write(r, dst); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dst, "unit01", "add.go"))
	if !strings.Contains(string(got), "return a - b") {
		t.Errorf("the written mutant does not hold the change:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dst, "unit01", "other.go")); err != nil {
		t.Errorf("Write must copy the unit's untouched files too: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := map[string]string{
		"no header":    strings.SplitN(goodPatch, "\n\n", 2)[1],
		"no catcher":   strings.Replace(goodPatch, "Caught-by: 1.2, boss\n", "", 1),
		"outside unit": strings.ReplaceAll(goodPatch, "solutions/unit01/add.go", "solutions/unit02/add.go"),
		"not a patch":  "Mutant: x\nCaught-by: 1.1\n\nnothing here\n",
	}
	for name, p := range tests {
		_, path := repoWith(t, p)
		if _, err := LoadFile(path); err == nil {
			t.Errorf("%s: LoadFile accepted a malformed mutant", name)
		}
	}
	r, path := repoWith(t, strings.Replace(goodPatch, " func Add(a, b int) int {", " func Add(a, b int64) int {", 1))
	m, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(r, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no longer applies") {
		t.Errorf("Write of a stale mutant: %v, want an error saying it no longer applies", err)
	}
}
