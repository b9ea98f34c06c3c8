package grade_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/llmforge/forge/internal/grade"
	"github.com/llmforge/forge/internal/mutants"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/")

// TestGraderReports grades units 00 and 01 three ways and compares the
// reports with golden files: the reference must say PASS everywhere, the
// stubs TODO everywhere (with the starting line), and a mutant FAIL exactly
// where it is wrong. Measured figures and temporary paths are masked.
func TestGraderReports(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs the units' tests three times")
	}
	r, err := workbook.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	units := []workbook.Unit{0, 1}
	mutantDir := t.TempDir()
	ms, err := mutants.Load(r)
	if err != nil {
		t.Fatal(err)
	}
	var offsetTwice mutants.Mutant
	for _, m := range ms {
		if m.ID() == "unit01/offset-added-twice" {
			offsetTwice = m
		}
	}
	if offsetTwice.Name == "" {
		t.Fatal("the mutant unit01/offset-added-twice is missing")
	}
	if err := offsetTwice.Write(r, mutantDir); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		golden string
		sel    overlay.Selection
	}{
		{"ref.golden", overlay.Selection{Units: units, Impl: overlay.Ref, Deps: overlay.Ref}},
		{"stubs.golden", overlay.Selection{Units: units, Impl: overlay.Mine, Deps: overlay.Mine}},
		{"mutant.golden", overlay.Selection{Units: []workbook.Unit{1}, Impl: mutantDir, Deps: overlay.Ref}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			got := report(t, r, tc.sel, mutantDir)
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./internal/grade -run TestGraderReports -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the grade report differs from %s (rerun with -update if the change is intended):\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

// report grades the selected units and renders them as forge grade does.
func report(t *testing.T, r workbook.Repo, sel overlay.Selection, tmp string) []byte {
	ctx := context.Background()
	g, err := grade.New(ctx, grade.Options{Repo: r, Selection: sel, Boss: grade.BossQuick, Short: true})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var buf bytes.Buffer
	var results []grade.UnitResult
	for _, u := range sel.Units {
		res, err := g.Unit(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		grade.Render(&buf, res, sel.Deps, false)
		results = append(results, res)
	}
	if grade.AllTodo(results) {
		buf.WriteString(grade.StartingLine + "\n")
	}
	out := figureRE.ReplaceAll(buf.Bytes(), []byte("${1}# "))
	out = marginRE.ReplaceAll(out, []byte("margin #"))
	out = timedBossRE.ReplaceAll(out, []byte("${1}(timed)"))
	out = timedVerdictRE.ReplaceAll(out, []byte("${1}(timed),"))
	out = timedNextRE.ReplaceAll(out, []byte("${1}(after unit00's timed boss)"))
	return bytes.ReplaceAll(out, []byte(tmp), []byte("MUTANT_DIR"))
}

// figureRE matches the measured number on a boss figure line, with the
// padding after it (whose width depends on the number).
var figureRE = regexp.MustCompile(`(?m)^(       \S+\s+)-?[0-9][0-9.e+-]*\s+`)

// marginRE matches the measured margin after a bar's verdict.
var marginRE = regexp.MustCompile(`margin [+-][0-9]+%`)

// timedBossRE and timedVerdictRE match the verdict of unit00's boss, whose
// one bar is a timing (Assert's overhead in a release build, near 0% against
// a bar of 5%): one quick run beside the other packages' tests has read 6%.
// Whether a timing meets its bar is the bosses step's business, measured
// as a median on a quiet machine; what the golden pins is the report's
// shape. unit01's boss, whose bars count allocations, keeps its verdicts.
var (
	timedBossRE    = regexp.MustCompile(`(?m)^(  boss green, clean and free\s+)(PASS|FAIL)\b.*$`)
	timedVerdictRE = regexp.MustCompile(`(?m)^(       assert-overhead-%\s+# bar <= 5\s+)(met|MISSED),`)
	// timedNextRE: the line after unit00's report names the boss or unit01
	// as that timing falls.
	timedNextRE = regexp.MustCompile("(?m)^(  next: )(unit00 is done\\. On to unit01: docs/unit01\\.md|the boss: docs/unit00\\.md § Boss sets the bar, `make boss00 V=1` measures it)$")
)
