// Package grade compiles a unit's tests once, runs them challenge by
// challenge, measures the boss, and reports what passed, what failed and
// what is still a stub.
package grade

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/docs"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// Options configure a Grader.
type Options struct {
	Repo      workbook.Repo
	Selection overlay.Selection
	Run       *regexp.Regexp // only tests whose name matches; nil for all
	Timeout   time.Duration  // per test process; 0 for 5 minutes
	// Boss says how much of the boss to measure: BossSkip, BossQuick (one
	// benchmark run, as `forge grade` does) or BossFull (BenchCount runs,
	// median, as `forge boss` does).
	Boss       BossMode
	BenchCount int
	Short      bool // run tests and benchmarks with -test.short (CI's quick mode)
	// ReportHardware: a missed Hardware bar (bosses.Bar) is shown but
	// does not fail the boss. CI's make test sets it.
	ReportHardware bool
	BuildFlags     []string // extra flags for compiling the test binaries, e.g. -race
	OnlyBoss       bool     // skip the challenges: measure the boss alone
	// SkipGates leaves out the bosses' gates (gofmt, vet, race). CI sets
	// it: make test runs each of them over every unit in steps of its own.
	SkipGates bool
	Log       io.Writer // progress notes ("compiling unit01..."); nil for none
}

// BossMode is how much of a boss a Grader measures.
type BossMode int

const (
	BossSkip BossMode = iota
	BossQuick
	BossFull
)

// Grader grades units under one selection of implementations.
type Grader struct {
	opt         Options
	tmp         string
	overlayPath string
	runner      Runner
}

// New prepares a Grader: it writes the overlay and finds test2json. Call
// Close when done.
func New(ctx context.Context, opt Options) (*Grader, error) {
	if opt.Timeout == 0 {
		opt.Timeout = 5 * time.Minute
	}
	if opt.BenchCount == 0 {
		opt.BenchCount = 5
	}
	t2j, err := FindTest2JSON(ctx)
	if err != nil {
		return nil, err
	}
	ov, err := overlay.Build(opt.Repo, opt.Selection)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "forge-grade-")
	if err != nil {
		return nil, err
	}
	path, err := ov.Write(tmp, "overlay.json")
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Grader{opt: opt, tmp: tmp, overlayPath: path, runner: Runner{Test2JSON: t2j, Timeout: opt.Timeout}}, nil
}

// Close removes the Grader's temporary files.
func (g *Grader) Close() error { return os.RemoveAll(g.tmp) }

// OverlayPath is the overlay file the Grader builds with.
func (g *Grader) OverlayPath() string { return g.overlayPath }

// UnitResult is the grade of one unit.
type UnitResult struct {
	Unit       workbook.Unit
	Written    bool
	Impl       string      // the implementation graded: "mine", "ref" or a folder
	Build      *BuildError // the test binary did not compile
	Challenges []ChallengeResult
	Boss       *BossResult // nil when the unit has no boss or the boss was skipped
	Stray      []string    // tests that follow no naming convention
	Doc        docs.Doc
	Next       workbook.Unit // the next written unit, −1 if there is none
}

// ChallengeResult is the grade of one challenge.
type ChallengeResult struct {
	ID, Title string
	Status    Status
	Tests     []TestResult
}

func (g *Grader) logf(format string, args ...any) {
	if g.opt.Log != nil {
		fmt.Fprintf(g.opt.Log, format, args...)
	}
}

// Unit grades one unit.
func (g *Grader) Unit(ctx context.Context, u workbook.Unit) (UnitResult, error) {
	res := UnitResult{Unit: u, Written: g.opt.Repo.Written(u), Impl: g.opt.Selection.For(u)}
	res.Next = -1
	for _, w := range g.opt.Repo.WrittenUnits() {
		if w > u {
			res.Next = w
			break
		}
	}
	if !res.Written {
		return res, nil
	}
	if text, err := os.ReadFile(g.opt.Repo.DocPath(u)); err == nil {
		res.Doc = docs.Parse(string(text))
	}
	g.logf("compiling %s tests (impl %s)...\n", u, res.Impl)
	bins, err := g.compile(ctx, u)
	if err != nil {
		if be, ok := err.(*BuildError); ok {
			res.Build = be
			res.Challenges = g.docChallenges(res.Doc, Build)
			return res, nil
		}
		return res, err
	}
	names, err := g.listAll(ctx, bins)
	if err != nil {
		return res, err
	}
	grouped := GroupTests(int(u), names.all)
	res.Stray = grouped.Stray
	for _, grp := range grouped.Challenges {
		if g.opt.OnlyBoss {
			break
		}
		tests := g.filter(grp.Tests)
		if len(tests) == 0 {
			continue
		}
		g.logf("running %s %s...\n", u, grp.ID)
		results, err := g.runAcross(ctx, bins, names.in, tests)
		if err != nil {
			return res, err
		}
		c := ChallengeResult{ID: grp.ID, Title: titleOf(res.Doc, grp.ID), Tests: results}
		c.Status = Merge(results)
		res.Challenges = append(res.Challenges, c)
	}
	if boss, ok := bosses.For(int(u)); ok && g.opt.Boss != BossSkip && (g.opt.Run == nil || g.opt.Run.MatchString(boss.TestName())) {
		g.logf("measuring the %s boss...\n", u)
		br, err := g.boss(ctx, u, boss, bins, names, grouped)
		if err != nil {
			return res, err
		}
		res.Boss = &br
	}
	return res, nil
}

// docChallenges lists the doc's challenges with one status, for when no test
// could run.
func (g *Grader) docChallenges(d docs.Doc, s Status) []ChallengeResult {
	var out []ChallengeResult
	for _, c := range d.Challenges {
		out = append(out, ChallengeResult{ID: c.ID, Title: c.Title, Status: s})
	}
	return out
}

func titleOf(d docs.Doc, id string) string {
	if c, ok := d.Challenge(id); ok {
		return c.Title
	}
	return ""
}

func (g *Grader) filter(tests []string) []string {
	if g.opt.Run == nil {
		return tests
	}
	var out []string
	for _, t := range tests {
		if g.opt.Run.MatchString(t) {
			out = append(out, t)
		}
	}
	return out
}

// compile builds the unit's test binary, and a second one with the
// forgedebug tag when the unit has tests that only build with it.
func (g *Grader) compile(ctx context.Context, u workbook.Unit) ([]Binary, error) {
	b, err := Compile(ctx, g.opt.Repo.Root, u.Dir(), g.overlayPath, filepath.Join(g.tmp, u.Dir()+".test"), g.opt.BuildFlags...)
	if err != nil {
		return nil, err
	}
	bins := []Binary{b}
	if hasDebugTests(g.opt.Repo.UnitDir(u)) {
		d, err := Compile(ctx, g.opt.Repo.Root, u.Dir(), g.overlayPath, filepath.Join(g.tmp, u.Dir()+".debug.test"), append([]string{"-tags", "forgedebug"}, g.opt.BuildFlags...)...)
		if err != nil {
			return nil, err
		}
		bins = append(bins, d)
	}
	return bins, nil
}

// hasDebugTests reports whether a test file in dir builds only with the
// forgedebug tag.
func hasDebugTests(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil && regexp.MustCompile(`(?m)^//go:build .*\bforgedebug\b`).Match(data) {
			return true
		}
	}
	return false
}

// testNames are the tests of a unit across its binaries.
type testNames struct {
	all []string          // every name, in first-seen order
	in  map[string]Binary // the binary each name runs in (the first that has it)
}

func (g *Grader) listAll(ctx context.Context, bins []Binary) (testNames, error) {
	tn := testNames{in: map[string]Binary{}}
	for _, b := range bins {
		names, err := List(ctx, b)
		if err != nil {
			return tn, err
		}
		for _, n := range names {
			if _, seen := tn.in[n]; !seen {
				tn.in[n] = b
				tn.all = append(tn.all, n)
			}
		}
	}
	return tn, nil
}

// runAcross runs tests, each in the binary that has it, keeping their order.
func (g *Grader) runAcross(ctx context.Context, bins []Binary, in map[string]Binary, tests []string) ([]TestResult, error) {
	byBin := map[string][]string{}
	for _, t := range tests {
		byBin[in[t].Path] = append(byBin[in[t].Path], t)
	}
	got := map[string]TestResult{}
	for _, b := range bins {
		if len(byBin[b.Path]) == 0 {
			continue
		}
		b.Short = g.opt.Short
		rs, err := g.runner.RunTests(ctx, b, byBin[b.Path], g.opt.Repo.Root)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			r.Tags = b.Tags
			got[r.Name] = r
		}
	}
	out := make([]TestResult, len(tests))
	for i, t := range tests {
		out[i] = got[t]
	}
	return out, nil
}

// Merge folds test results into a challenge status: a real failure (FAIL,
// PANIC or TIMEOUT, then SKIP) outranks a stub (TODO), which outranks a
// pass.
func Merge(rs []TestResult) Status {
	if len(rs) == 0 {
		return NotRun
	}
	if r, ok := FirstProblem(rs); ok {
		return r.Status
	}
	for _, r := range rs {
		if r.Status == Todo {
			return Todo
		}
	}
	for _, r := range rs {
		if r.Status != Pass {
			return r.Status
		}
	}
	return Pass
}

// FirstProblem returns the first test that failed for a reason other than a
// stub: a FAIL, PANIC or TIMEOUT before any SKIP, so that a test skipped
// for want of a GPU never hides another test's failure.
func FirstProblem(rs []TestResult) (TestResult, bool) {
	for _, r := range rs {
		switch r.Status {
		case Fail, Panic, Timeout:
			return r, true
		}
	}
	for _, r := range rs {
		if r.Status == Skip {
			return r, true
		}
	}
	return TestResult{}, false
}

// FirstTodo returns the first test that hit a stub.
func FirstTodo(rs []TestResult) (TestResult, bool) {
	for _, r := range rs {
		if r.Status == Todo {
			return r, true
		}
	}
	return TestResult{}, false
}
