package mutation

import (
	"go/build"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/llmforge/forge/internal/workbook"
)

func TestTriage(t *testing.T) {
	src := "package p\n\nfunc f(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	ms, err := Generate("solutions/unit07/f.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	boundary := ms[1] // a < b -> a <= b: equal a and b return the same value
	if boundary.Op != ConditionalsBoundary {
		t.Fatalf("mutant 1 is %s, want the conditionals-boundary one", boundary)
	}
	file := "# equivalent mutants of unit07\n\n" +
		TriageLine(boundary, "a == b returns the same value either way") + "\n" +
		"f.go\tf\tinvert-logical\ta && b\ta || b\t0\tno such code any more\n"
	entries, err := ParseTriage("unit07.txt", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	equiv, stale := Triage(ms, entries)
	if len(equiv) != 1 || equiv[1] != "a == b returns the same value either way" {
		t.Errorf("equivalent = %v, want mutant 1 with its reason", equiv)
	}
	if len(stale) != 1 || stale[0].Line != 4 || stale[0].Key.Op != InvertLogical {
		t.Errorf("stale = %+v, want the invert-logical entry of line 4", stale)
	}

	// The entry still matches after an edit above the function.
	moved := strings.Replace(src, "package p\n", "package p\n\nconst unrelated = 1\n", 1)
	ms2, _ := Generate("solutions/unit07/f.go", []byte(moved))
	if equiv2, _ := Triage(ms2, entries); len(equiv2) != 1 || ms2[firstKey(equiv2)].Line != boundary.Line+2 {
		t.Errorf("after an unrelated edit the triage entry matched %v, want the boundary mutant two lines lower", equiv2)
	}

	for name, bad := range map[string]string{
		"six fields":     "f.go\tf\tguard-removal\ta < b\tfalse\t0\n",
		"bad operator":   "f.go\tf\tswap\ta < b\tfalse\t0\twhy\n",
		"no reason":      "f.go\tf\tguard-removal\ta < b\tfalse\t0\t \n",
		"bad occurrence": "f.go\tf\tguard-removal\ta < b\tfalse\tfirst\twhy\n",
	} {
		if _, err := ParseTriage("x.txt", []byte(bad)); err == nil || !strings.Contains(err.Error(), "x.txt:1") {
			t.Errorf("%s: ParseTriage error %v, want one naming x.txt:1", name, err)
		}
	}
}

func firstKey(m map[int]string) int {
	for k := range m {
		return k
	}
	return -1
}

func TestScore(t *testing.T) {
	rep := &UnitReport{Unit: 5}
	for _, s := range []Status{Killed, Killed, Killed, Timeout, Survived, NotCovered, NotCompiling, NotCompiling, Equivalent, NotRun} {
		rep.Results = append(rep.Results, Result{Mutant: Mutant{Op: ArithmeticBase}, Status: s})
	}
	c := rep.Total()
	want := Counts{Killed: 3, Timeout: 1, Survived: 2, NotCovered: 1, NotCompiling: 2, Equivalent: 1, NotRun: 1}
	if c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	// killed (timeouts included) / (killed + timeouts + survived): 4 / 6.
	if got := c.Score(); math.Abs(got-100*4.0/6) > 1e-9 {
		t.Errorf("score %.3f, want 66.667: not-compiling, equivalent and not-run mutants stay out", got)
	}
	if got := (Counts{}).Score(); got != 100 {
		t.Errorf("score of nothing scored = %v, want 100", got)
	}
	if !strings.Contains(rep.ScoreLine(), "66.7%") || !strings.Contains(rep.ScoreLine(), "below the 90% bar") {
		t.Errorf("ScoreLine() = %q, want 66.7%% and below the bar", rep.ScoreLine())
	}
}

func TestMarginAndFloor(t *testing.T) {
	for _, tt := range []struct{ n, score float64 }{{60, 75}, {60, 95}, {100, 60}, {200, 85}} {
		n := int(tt.n)
		m := Margin(n, tt.score, CIAlpha)
		floor := tt.score - m
		// The chance of a sample scoring under the floor is at most alpha...
		k := int(math.Ceil(float64(n)*floor/100)) - 1
		if p := BinomialCDF(k, n, tt.score/100); p > CIAlpha {
			t.Errorf("n=%d score=%v: margin %.1f leaves a %.2g chance of failing, want <= %g", n, tt.score, m, p, CIAlpha)
		}
		// ... and one more killed mutant's worth of floor would exceed it.
		if p := BinomialCDF(k+1, n, tt.score/100); p <= CIAlpha {
			t.Errorf("n=%d score=%v: margin %.1f is wider than it needs to be (P(X<=%d)=%.2g)", n, tt.score, m, k+1, p)
		}
		if f := Floor(n, tt.score, CIAlpha); f > floor || f < floor-0.1 {
			t.Errorf("Floor(%d, %v) = %v, want %v rounded down to a tenth", n, tt.score, f, floor)
		}
	}
	if got := BinomialCDF(2, 4, 0.5); math.Abs(got-11.0/16) > 1e-12 {
		t.Errorf("BinomialCDF(2, 4, 0.5) = %v, want 11/16", got)
	}
	if Margin(60, 100, CIAlpha) != 0 {
		t.Errorf("a unit at 100%% can lose nothing by sampling")
	}
}

func TestFloorsAndGate(t *testing.T) {
	text := "# unit floor full date sample\nunit05\t60.0\t80.0\t2026-11-25\t81.7\n"
	fl, err := ParseFloors("floors.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	f := fl[workbook.Unit(5)]
	if f.Floor != 60 || f.Full != 80 || f.Sample != 81.7 || f.Date != "2026-11-25" || f.String() != "unit05\t60.0\t80.0\t2026-11-25\t81.7" {
		t.Errorf("parsed %+v (%q)", f, f)
	}
	for _, tt := range []struct {
		sampled float64
		fail    string
	}{{81.7, ""}, {74.8, ""}, {74.5, "more than 7 points under"}, {59, "under the floor"}} {
		got := Gate(tt.sampled, f)
		if (tt.fail == "") != (got == "") || !strings.Contains(got, tt.fail) {
			t.Errorf("Gate(%v) = %q, want %q", tt.sampled, got, tt.fail)
		}
	}
	for _, bad := range []string{"unit05 60 80 2026-11-25\n", "unit05 90 80 2026-11-25 85\n", "unit05 60 80 d 81\nunit5 60 80 d 81\n", "unit05 sixty 80 d 81\n"} {
		if _, err := ParseFloors("floors.txt", []byte(bad)); err == nil {
			t.Errorf("ParseFloors accepted %q", bad)
		}
	}
}

func TestSampleIsDeterministicAndStable(t *testing.T) {
	src := "package p\n\nfunc f(a, b int) int {\n\treturn a*b + a - b + 3\n}\n\nfunc g(a int) int { return a + 1 }\n"
	ms, _ := Generate("f.go", []byte(src))
	results := func(ms []Mutant) []Result {
		rs := make([]Result, len(ms))
		for i, m := range ms {
			rs[i] = Result{Mutant: m, Status: Killed}
		}
		return rs
	}
	a, b := candidates(results(ms), 4, 1), candidates(results(ms), 4, 1)
	if strings.Join(keys(ms, a[:4]), "|") != strings.Join(keys(ms, b[:4]), "|") {
		t.Errorf("two draws with seed 1 differ")
	}
	if strings.Join(keys(ms, a[:4]), "|") == strings.Join(keys(ms, candidates(results(ms), 4, 2)[:4]), "|") {
		t.Errorf("seeds 1 and 2 drew the same sample")
	}
	// Adding a function does not reorder the mutants that were there.
	more, _ := Generate("f.go", []byte(src+"\nfunc h(x int) int { return x - 7 }\n"))
	var kept []string
	for _, k := range keys(more, candidates(results(more), 4, 1)) {
		if !strings.Contains(k, "func h") {
			kept = append(kept, k)
		}
	}
	if strings.Join(kept, "|") != strings.Join(keys(ms, a), "|") {
		t.Errorf("an added function reordered the old mutants:\n%q\n%q", kept, keys(ms, a))
	}
}

func keys(ms []Mutant, idx []int) []string {
	var out []string
	for _, i := range idx {
		m := ms[i]
		out = append(out, strings.Join([]string{string(m.Op), m.Orig, m.Mut, "func " + m.Func}, " "))
	}
	return out
}

func TestTagSets(t *testing.T) {
	if build.Default.GOARCH != "amd64" {
		t.Skip("the fixture's constraints are written for amd64")
	}
	dir := t.TempDir()
	files := map[string]string{
		"a.go":         "package p\n",
		"k_amd64.go":   "//go:build amd64 && !purego\n\npackage p\n",
		"k_generic.go": "//go:build !amd64 || purego\n\npackage p\n",
		"w_windows.go": "package p\n",
	}
	var names []string
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	sets, err := unitTagSets(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	// forgedebug compiles the same files as the plain build: not a build of
	// its own. On an AVX2 machine a unit with amd64 files also gets the
	// build without SIMD, and on an AVX-512 one the AVX2 build before it,
	// right after the plain one, compiling what it compiles.
	plain := []string{""}
	if cpu.X86.HasAVX512F {
		plain = append(plain, avx2Build)
	}
	if cpu.X86.HasAVX2 {
		plain = append(plain, noSIMDBuild)
	}
	want := append(slices.Clone(plain), "purego")
	if !slices.Equal(sets, want) {
		t.Errorf("unitTagSets = %q, want %q", sets, want)
	}
	for name, want := range map[string][]string{"a.go": append(slices.Clone(plain), "purego"), "k_amd64.go": plain, "k_generic.go": {"purego"}, "w_windows.go": nil} {
		got, why, err := tagsFor(filepath.Join(dir, name), sets)
		if err != nil || !slices.Equal(got, want) || (want == nil) != (why != "") {
			t.Errorf("tagsFor(%s) = %q, %q, %v; want %q", name, got, why, err, want)
		}
	}
}

// TestCommittedFiles reads the repository's floors and triage files: a
// malformed line there would only show in make test's mutation step.
func TestCommittedFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := LoadFloors(filepath.Join(root, "ci", "mutation", "floors.txt")); err != nil {
		t.Error(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "ci", "mutation", "unit*.txt"))
	for _, p := range paths {
		if _, err := LoadTriage(p); err != nil {
			t.Error(err)
		}
	}
}
