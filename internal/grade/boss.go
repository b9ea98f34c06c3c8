package grade

import (
	"bytes"
	"context"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// The grader measures a boss's GPU bars where a CUDA driver sees a device.
func init() { bosses.GPU = func() bool { return cuda.Load() == nil } }

// BossResult is the outcome of a unit's boss.
type BossResult struct {
	Boss    bosses.Boss
	Status  Status // Pass, Fail, Todo (not attempted yet), Build
	Detail  string // why it is not a pass, one line
	Tests   []TestResult
	Gates   []GateResult
	Figures []Figure
	Runs    int // benchmark runs behind each figure
}

// GateResult is the outcome of one gate.
type GateResult struct {
	Gate   bosses.Gate
	OK     bool
	Detail string // first problem, one line
	Output string // everything the check printed
}

// Figure is one measured figure against its bar.
type Figure struct {
	Bar   bosses.Bar
	Value float64
	Found bool // the benchmark reported this metric
	Met   bool
	// NotHere says why the bar cannot be measured on this machine (it
	// needs a CPU feature this one lacks); the figure neither meets nor
	// misses it.
	NotHere string
	// ReportedOnly marks a missed Hardware bar in CI's report mode
	// (Options.ReportHardware): shown, not failed.
	ReportedOnly bool
}

// boss runs the boss's correctness tests, then its gates and benchmark.
func (g *Grader) boss(ctx context.Context, u workbook.Unit, boss bosses.Boss, bins []Binary, names testNames, grouped Grouped) (BossResult, error) {
	br := BossResult{Boss: boss, Status: Pass}
	if len(grouped.BossTests) > 0 {
		rs, err := g.runAcross(ctx, bins, names.in, grouped.BossTests)
		if err != nil {
			return br, err
		}
		br.Tests = rs
		if st := Merge(rs); st != Pass {
			br.Status = st
			br.Detail = testDetail(rs)
			return br, nil
		}
	}
	for _, gate := range boss.Gates {
		if g.opt.SkipGates {
			break
		}
		gr := g.gate(ctx, u, gate)
		br.Gates = append(br.Gates, gr)
		if !gr.OK && br.Status == Pass {
			br.Status, br.Detail = Fail, fmt.Sprintf("gate %s: %s", gate, gr.Detail)
		}
	}
	if len(grouped.BossBench) == 0 {
		if br.Status == Pass {
			br.Status, br.Detail = Fail, fmt.Sprintf("no %s benchmark in the unit's tests", boss.BenchName())
		}
		return br, nil
	}
	count := 1
	if g.opt.Boss == BossFull {
		count = g.opt.BenchCount
	}
	br.Runs = count
	figs, todo, err := g.bench(ctx, names.in[boss.BenchName()], boss.BenchName(), count)
	if err != nil {
		return br, err
	}
	if todo != nil {
		br.Status, br.Detail = Todo, todo.Detail
		br.Tests = append(br.Tests, *todo)
		return br, nil
	}
	var notHere []string
	for _, bar := range boss.Bars {
		f := Figure{Bar: bar}
		if vals := figs[bar.Metric]; len(vals) > 0 {
			f.Value, f.Found = bosses.Median(vals), true
			f.Met = bar.Met(f.Value)
		}
		if bar.Cmp != bosses.Info && !bosses.Has(bar.Needs) {
			f.NotHere = fmt.Sprintf("needs %s; this machine is %s", bar.Needs, bosses.Class())
			if bar.Needs == "gpu" {
				f.NotHere = "not measured: no GPU"
			}
			notHere = append(notHere, bar.Metric)
		} else if bar.Hardware && g.opt.ReportHardware && f.Found && !f.Met {
			f.ReportedOnly = true
		}
		br.Figures = append(br.Figures, f)
		if bar.Cmp == bosses.Info || f.NotHere != "" || f.ReportedOnly {
			continue
		}
		if !f.Met && br.Status == Pass {
			br.Status = Fail
			if !f.Found {
				br.Detail = fmt.Sprintf("%s reported no %q figure", boss.BenchName(), bar.Metric)
			} else {
				br.Detail = fmt.Sprintf("%s = %.4g misses the bar %v", bar.Metric, f.Value, bar)
			}
		}
	}
	if len(notHere) > 0 && br.Status == Pass {
		br.Status = Skip
		br.Detail = fmt.Sprintf("%s cannot be measured on this machine (%s): see the bar matrix in docs/README.md",
			strings.Join(notHere, ", "), br.Figures[indexOf(br.Figures, notHere[0])].NotHere)
	}
	return br, nil
}

func indexOf(fs []Figure, metric string) int {
	for i, f := range fs {
		if f.Bar.Metric == metric {
			return i
		}
	}
	return 0
}

// testDetail is the one-line reason of the first test that did not pass.
func testDetail(rs []TestResult) string {
	if r, ok := FirstProblem(rs); ok {
		return r.Name + ": " + r.Detail
	}
	if r, ok := FirstTodo(rs); ok {
		return r.Detail
	}
	return ""
}

var benchLineRE = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

// bench runs a benchmark count times and collects every reported figure.
// A stub hit during the benchmark is returned as a TODO test result.
func (g *Grader) bench(ctx context.Context, b Binary, name string, count int) (map[string][]float64, *TestResult, error) {
	b.Short = g.opt.Short
	evs, err := g.runner.run(ctx, b, "-test.run", "^$", "-test.bench", exactRE([]string{name}),
		"-test.benchtime", "1x", "-test.count", strconv.Itoa(count))
	if err != nil {
		return nil, nil, err
	}
	res := map[string]*TestResult{name: {Name: name, Status: NotRun}}
	absorbBench(evs, res[name], g.opt.Repo.Root)
	if r := res[name]; r.Status == Todo || r.Status == Panic || r.Status == Timeout {
		return nil, r, nil
	}
	return ParseBench(evs, name), nil, nil
}

// absorbBench collects a benchmark's output and classifies a crash in it.
func absorbBench(evs []event, r *TestResult, repoRoot string) {
	for _, e := range evs {
		if e.Action == "output" {
			r.Output = append(r.Output, splitLines(e.Output)...)
		}
	}
	classifyCrash(r, repoRoot)
	if r.Status == Panic && r.Detail == "the test process exited during this test" {
		r.Status = NotRun
	}
}

// ParseBench extracts the figures of benchmark name from test output:
// metric unit → one value per run.
func ParseBench(evs []event, name string) map[string][]float64 {
	var text strings.Builder
	for _, e := range evs {
		if e.Action == "output" {
			text.WriteString(e.Output)
		}
	}
	figs := map[string][]float64{}
	for _, line := range strings.Split(text.String(), "\n") {
		m := benchLineRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || m[1] != name {
			continue
		}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				figs[f[i+1]] = append(figs[f[i+1]], v)
			}
		}
	}
	return figs
}

// gate runs one whole-package check of a boss.
func (g *Grader) gate(ctx context.Context, u workbook.Unit, gate bosses.Gate) GateResult {
	gr := GateResult{Gate: gate}
	var out string
	var err error
	switch gate {
	case bosses.GateGofmt:
		out, err = g.gofmt(u)
	case bosses.GateVet:
		out, err = g.goCmd(ctx, "vet", u)
		if err == nil {
			out, err = g.goCmd(ctx, "vet", u, "-tags", "forgedebug")
		}
	case bosses.GateRace:
		args := []string{"-race", "-count=1"}
		if g.opt.Short {
			args = append(args, "-short")
		}
		out, err = g.goCmd(ctx, "test", u, args...)
	default:
		err = fmt.Errorf("unknown gate %q", gate)
	}
	gr.OK, gr.Output = err == nil, out
	if err != nil {
		gr.Detail = firstMeaningfulLine(out, err)
	}
	return gr
}

// goCmd runs `go <verb> -overlay ... [args] ./unitNN` in the repository.
func (g *Grader) goCmd(ctx context.Context, verb string, u workbook.Unit, args ...string) (string, error) {
	full := append([]string{verb, "-overlay", g.overlayPath}, args...)
	full = append(full, "./"+u.Dir())
	cmd := exec.CommandContext(ctx, "go", full...)
	cmd.Dir = g.opt.Repo.Root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// gofmt checks every Go file that makes up the unit under the selection:
// the implementation's files, the given files and the tests.
func (g *Grader) gofmt(u workbook.Unit) (string, error) {
	src, err := overlay.SourceDir(g.opt.Repo, g.opt.Selection.For(u), u)
	if err != nil {
		return "", err
	}
	unitDir := g.opt.Repo.UnitDir(u)
	files, _ := filepath.Glob(filepath.Join(unitDir, "*.go"))
	if src != "" {
		files = nil
		all, _ := filepath.Glob(filepath.Join(unitDir, "*.go"))
		for _, f := range all {
			if !workbook.IsImpl(filepath.Base(f)) {
				files = append(files, f)
			}
		}
		impl, _ := filepath.Glob(filepath.Join(src, "*.go"))
		files = append(files, impl...)
	}
	var bad []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		formatted, err := format.Source(data)
		if err != nil || !bytes.Equal(formatted, data) {
			rel, _ := filepath.Rel(g.opt.Repo.Root, f)
			bad = append(bad, rel)
		}
	}
	if len(bad) > 0 {
		return "not gofmt-formatted: " + strings.Join(bad, " "), fmt.Errorf("run gofmt -w on %s", strings.Join(bad, " "))
	}
	return "", nil
}

// firstMeaningfulLine picks the line of a tool's output that says what is wrong.
func firstMeaningfulLine(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "exit status") {
			continue
		}
		return l
	}
	return err.Error()
}
