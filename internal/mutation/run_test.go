package mutation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/internal/workbook"
)

const fixtureSolution = `package unit00

// Clamp limits x to [lo, hi].
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// Unused is never tested.
func Unused(a int) int { return a + 1 }

var s = "a"

// Cat is never tested either.
func Cat() string { return s + s }
`

const fixtureTest = `package unit00

import "testing"

func TestC0_1_Clamp(t *testing.T) {
	for _, c := range [][4]int{{5, 0, 10, 5}, {-1, 0, 10, 0}, {11, 0, 10, 10}} {
		if got := Clamp(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d", c[0], c[1], c[2], got, c[3])
		}
	}
}
`

// fixture is a one-unit workbook: unit00 with a stub, a test and a given
// file, and its reference solution.
func fixture(t *testing.T) workbook.Repo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	for path, text := range map[string]string{
		"go.mod":                    "module " + workbook.Module + "\n\ngo 1.25\n",
		"unit00/clamp.go":           "package unit00\n\nfunc Clamp(x, lo, hi int) int { panic(\"TODO(0.1)\") }\n\nfunc Unused(a int) int { panic(\"TODO(0.1)\") }\n\nfunc Cat() string { panic(\"TODO(0.1)\") }\n",
		"unit00/given.go":           "package unit00\n\n// Limit is given: never mutated.\nconst Limit = 3\n",
		"unit00/clamp_test.go":      fixtureTest,
		"solutions/unit00/clamp.go": fixtureSolution,
		"ci/mutation/unit00.txt":    "# x == lo returns lo either way\nclamp.go\tClamp\tconditionals-boundary\tx < lo\tx <= lo\t0\tx == lo returns lo either way\nclamp.go\tClamp\tguard-removal\tx < 0\tfalse\t0\tstale: no such guard\n",
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

func TestRunEndToEnd(t *testing.T) {
	r := fixture(t)
	rep, err := Run(context.Background(), Options{Repo: r, Unit: 0, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, x := range rep.Results {
		got[string(x.Mutant.Op)+": "+x.Mutant.Orig+" -> "+x.Mutant.Mut] = x.Status
		if strings.Contains(x.Mutant.File, "given") {
			t.Errorf("a given file was mutated: %s", x.Mutant)
		}
	}
	want := map[string]Status{
		"guard-removal: x < lo -> false":           Killed,
		"conditionals-boundary: x < lo -> x <= lo": Equivalent,
		"conditionals-negation: x < lo -> x >= lo": Killed,
		"guard-removal: x > hi -> false":           Killed,
		"conditionals-boundary: x > hi -> x >= hi": Survived,
		"conditionals-negation: x > hi -> x <= hi": Killed,
		"arithmetic-base: a + 1 -> a - 1":          NotCovered,
		"integer-constant: a + 1 -> a + 0":         NotCovered,
		"integer-constant: a + 1 -> a + 2":         NotCovered,
		"arithmetic-base: s + s -> s - s":          NotCompiling,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s, want %s", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d mutants, want %d: %v", len(got), len(want), got)
	}
	c := rep.Total()
	if c.Score() != 100*4.0/8 {
		t.Errorf("score %.1f, want 50.0 (4 killed of 8 scored)", c.Score())
	}
	if len(rep.Stale) != 1 || rep.Stale[0].Line != 3 {
		t.Errorf("stale entries %+v, want line 3 of the triage file", rep.Stale)
	}
	var b strings.Builder
	rep.Render(&b)
	for _, line := range []string{
		"solutions/unit00/clamp.go:8: conditionals-boundary: x > hi -> x >= hi (in func Clamp)",
		"solutions/unit00/clamp.go:15: arithmetic-base: a + 1 -> a - 1 (in func Unused) [not covered]",
		"unit00 score: 50.0%",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the report lacks %q:\n%s", line, b.String())
		}
	}

	// A sample of 2 grades exactly two scored mutants, and the full run's
	// results predict its score.
	want2, n := rep.SampleScore(2, 7)
	srep, err := Run(context.Background(), Options{Repo: r, Unit: 0, Jobs: 2, Sample: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if sc := srep.Total(); sc.Scored() != 2 || n != 2 || sc.Score() != want2 {
		t.Errorf("sample of 2: %d scored at %.1f%%, the full run predicts %d at %.1f%%", sc.Scored(), sc.Score(), n, want2)
	}
}

// TestRunOtherBuilds: a mutant that the plain build's tests run but do not
// kill, and the purego build's tests kill, survives a run that grades each
// mutant in one build and is killed when survivors are graded again in the
// other builds that run their line.
func TestRunOtherBuilds(t *testing.T) {
	r := fixture(t)
	for path, text := range map[string]string{
		"solutions/unit00/twice.go": "package unit00\n\n// Twice doubles a.\nfunc Twice(a int) int { return a * 2 }\n",
		"unit00/twice.go":           "package unit00\n\nfunc Twice(a int) int { panic(\"TODO(0.1)\") }\n",
		"unit00/twice_test.go":      "package unit00\n\nimport \"testing\"\n\nfunc TestC0_1_Twice(t *testing.T) {\n\tif Twice(0) != 0 {\n\t\tt.Error(\"Twice(0)\")\n\t}\n}\n",
		// A file only the purego build compiles: the unit has two builds.
		"solutions/unit00/pure.go":    "//go:build purego\n\npackage unit00\n\n// Pure says which build this is.\nconst Pure = true\n",
		"unit00/twice_purego_test.go": "//go:build purego\n\npackage unit00\n\nimport \"testing\"\n\nfunc TestC0_1_TwicePurego(t *testing.T) {\n\tif Twice(3) != 6 {\n\t\tt.Error(\"Twice(3)\")\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(r.Root, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The plain build's test runs Twice but cannot tell a * 2 from a / 2
	// (at 0); only the purego build's test can, so the verdict must come
	// from there, and say so.
	key := "arithmetic-base: a * 2 -> a / 2"
	rep, err := Run(context.Background(), Options{Repo: r, Unit: 0, Jobs: 2, OtherBuilds: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Results {
		if string(x.Mutant.Op)+": "+x.Mutant.Orig+" -> "+x.Mutant.Mut != key {
			continue
		}
		if x.Status != Killed || x.Tags != "purego" || !strings.Contains(x.Detail, "purego build") {
			t.Errorf("%s is %s in build %q (%s), want killed in the purego build, and the detail saying so", key, x.Status, x.Tags, x.Detail)
		}
		return
	}
	t.Fatalf("no mutant %q", key)
}

// TestMachineFailure: a full disk (or another failure of the machine) in a
// build or a test's output ends the run with an error naming it, instead
// of counting the mutant as not compiling or killed.
func TestMachineFailure(t *testing.T) {
	var g grader
	require.NoError(t, g.err(), "a fresh grader")
	assert.False(t, g.machineFailure("--- FAIL: TestC0_1_Clamp (0.00s)\n    clamp_test.go:12: got 3, want 4"), "a failing test is the mutant's doing")
	assert.False(t, g.machineFailure("./clamp.go:7:2: undefined: x"), "a compile error is the mutant's doing")
	require.NoError(t, g.err())
	out := "# github.com/llmforge/forge/unit00\nwrite /tmp/go-build/b001/_pkg_.a: no space left on device\n"
	assert.True(t, g.machineFailure(out))
	assert.True(t, g.machineFailure("open /tmp/x: too many open files"), "a second failure is still one")
	err := g.err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write /tmp/go-build/b001/_pkg_.a: no space left on device", "the error names the first failure")
	for _, f := range machineFailures {
		var h grader
		assert.True(t, h.machineFailure("x: "+f), f)
	}
}
