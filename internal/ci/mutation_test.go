package ci

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/internal/workbook"
)

// mutationFixture is a one-unit workbook whose reference has six graded
// mutants: four killed, two surviving (a 67% score).
func mutationFixture(t *testing.T, floors string) workbook.Repo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	for path, text := range map[string]string{
		"go.mod":                    "module " + workbook.Module + "\n\ngo 1.25\n",
		"unit00/clamp.go":           "package unit00\n\nfunc Clamp(x, lo, hi int) int { panic(\"TODO(0.1)\") }\n",
		"unit00/clamp_test.go":      "package unit00\n\nimport \"testing\"\n\nfunc TestC0_1_Clamp(t *testing.T) {\n\tif Clamp(5, 0, 10) != 5 || Clamp(-1, 0, 10) != 0 || Clamp(11, 0, 10) != 10 {\n\t\tt.Error(\"Clamp is wrong\")\n\t}\n}\n",
		"solutions/unit00/clamp.go": "package unit00\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n",
		"ci/mutation/floors.txt":    floors,
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return workbook.Repo{Root: root}
}

func TestStepMutation(t *testing.T) {
	// The sample (all six mutants here) scores 66.7%; the line recorded 80%
	// for it, so the step must report that the tests lost ground.
	r := mutationFixture(t, "unit00\t40.0\t66.7\t2026-11-25\t80.0\n")
	e := &Env{Repo: r, out: &bytes.Buffer{}}
	err := stepMutation(context.Background(), e)
	if err == nil || !strings.Contains(e.out.String(), "more than 7 points under the 80.0%") {
		t.Errorf("stepMutation on a sample 13 points under its recorded score: %v\n%s", err, e.out)
	}
	if !strings.Contains(e.out.String(), "unit00 score: 66.7% (4 of 6 killed") {
		t.Errorf("the step's log lacks the score line:\n%s", e.out)
	}

	// A unit without a floors line fails without running anything.
	r = mutationFixture(t, "# no lines yet\n")
	e = &Env{Repo: r, out: &bytes.Buffer{}}
	if err := stepMutation(context.Background(), e); err == nil || !strings.Contains(e.out.String(), "no line in ci/mutation/floors.txt") {
		t.Errorf("stepMutation without a floors line: %v\n%s", err, e.out)
	}
}
