package ci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/checks"
	"github.com/llmforge/forge/internal/grade"
	"github.com/llmforge/forge/internal/mutants"
	"github.com/llmforge/forge/internal/mutation"
	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// Steps are the checks of `make test`, in the order they run: quick
// structural checks first, so a broken tree fails fast.
func Steps() []Step {
	return []Step{
		{"gofmt: every Go file is formatted", stepGofmt},
		{"structure: solution APIs equal stub APIs", structural(checks.API)},
		{"structure: imports (no solution imports oracle/, units import earlier units only)", structural(checks.Imports)},
		{"structure: stubs are TODO panics naming their challenge", structural(checks.Stubs)},
		{"docs: seven parts per challenge, matching the tests; links and citations resolve in the repo", structural(checks.DocsAndLinks)},
		{"testdata: every file matches its checksum manifest", structural(checks.Testdata)},
		{"structure: amd64 assembly runs no legacy SSE with dirty upper halves", structural(checks.AsmSSE)},
		{"structure: every sentinel error a test expects is named in the stub's doc comment", structural(checks.Contracts)},
		{"go vet: stubs, oracle and tooling", stepVetStubs},
		{"go vet: reference overlay", stepVetRef},
		{"staticcheck: stubs, oracle and tooling", stepStaticcheckStubs},
		{"staticcheck: reference overlay", stepStaticcheckRef},
		{"tests: reference solutions (with -race), forgedebug and purego builds, and on AVX2", stepTestRef},
		{"tests: oracle, bosses and tooling (the grader's self-test included)", stepTestTooling},
		{"tests: the engine (cmd/llm) on the reference", stepTestEngine},
		{"red gate: every challenge fails on the stubs because of its TODO", stepRedGate},
		{"mutants: every mutant is caught", stepMutants},
		{"mutation: a deterministic sample of mechanical mutants per unit, against its floor", stepMutation},
		{"bosses: reference figures meet their bars (quick)", stepBosses},
		{"cross-build: darwin/arm64, windows/amd64 (linux/arm64: the next step)", stepCrossBuild},
		{"tests: reference under GOARCH=arm64 (pure Go paths, qemu; the units with per-architecture code)", stepArm64},
	}
}

func structural(check func(workbook.Repo) []string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		probs := check(e.Repo)
		for _, p := range probs {
			e.Logf("%s\n", p)
		}
		if len(probs) > 0 {
			return fmt.Errorf("%d problems", len(probs))
		}
		return nil
	}
}

func stepGofmt(ctx context.Context, e *Env) error {
	var bad []string
	err := filepath.WalkDir(e.Repo.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".tools" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if out, err := format.Source(src); err != nil || !bytes.Equal(out, src) {
			rel, _ := filepath.Rel(e.Repo.Root, path)
			bad = append(bad, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		e.Logf("not gofmt-formatted:\n  %s\n", strings.Join(bad, "\n  "))
		return fmt.Errorf("%d files need gofmt -w (make fmt)", len(bad))
	}
	return nil
}

func stepVetStubs(ctx context.Context, e *Env) error {
	if err := e.Go(ctx, nil, "vet", "./..."); err != nil {
		return err
	}
	return e.Go(ctx, nil, "vet", "-tags", "forgedebug", "./...")
}

func stepVetRef(ctx context.Context, e *Env) error {
	args := append([]string{"vet", "-overlay", e.RefOverlay}, e.UnitPkgs()...)
	if err := e.Go(ctx, nil, args...); err != nil {
		return err
	}
	args = append([]string{"vet", "-tags", "forgedebug", "-overlay", e.RefOverlay, "./cmd/llm"}, e.UnitPkgs()...)
	return e.Go(ctx, nil, args...)
}

// stepStaticcheckStubs lints the stubs without U1000 (unused code: a stub
// declares fields that only the learner's code will use) and without their
// tests (staticcheck sees that every stub panics, so to it the code after
// each call is dead). The tests are linted against the reference instead.
func stepStaticcheckStubs(ctx context.Context, e *Env) error {
	if _, err := os.Stat(e.Staticcheck); err != nil {
		return fmt.Errorf("staticcheck not found at %s: `make tools` installs it", e.Staticcheck)
	}
	args := append([]string{"-tests=false", "-checks", "inherit,-U1000"}, e.UnitPkgs()...)
	if err := e.Cmd(ctx, nil, e.Staticcheck, args...); err != nil {
		return err
	}
	return e.Cmd(ctx, nil, e.Staticcheck, "./oracle/...", "./bosses/...", "./internal/...", "./cmd/...", "./ci/tokcorpus")
}

// stepStaticcheckRef lints the reference solutions in place: staticcheck
// does not read overlays, so the tree is materialized with the solutions
// swapped in for real.
func stepStaticcheckRef(ctx context.Context, e *Env) error {
	ov, err := overlay.Build(e.Repo, overlay.Selection{Impl: overlay.Ref, Deps: overlay.Ref})
	if err != nil {
		return err
	}
	dir := filepath.Join(e.Tmp, "ref-tree")
	if err := overlay.Materialize(e.Repo, ov, dir); err != nil {
		return err
	}
	ref := &Env{Repo: workbook.Repo{Root: dir}, out: e.out}
	for _, tags := range []string{"", "forgedebug"} {
		args := append([]string{"-tags", tags, "./cmd/llm"}, e.UnitPkgs()...)
		if err := ref.Cmd(ctx, nil, e.Staticcheck, args...); err != nil {
			return err
		}
	}
	return nil
}

// stepTestRef runs the units' tests on the reference three ways: as built
// for this CPU with the race detector, with the forgedebug tag (debug
// assertions on), and with the purego tag (every assembly path replaced by
// its pure-Go fallback). On amd64 a fourth run hides AVX-512 from the CPU
// detection (GODEBUG, which golang.org/x/sys/cpu honours), so the AVX2
// kernels are tested too on a machine that would otherwise never pick them.
//
// Only the first run has -race: the threads (unit03's pool, the tasks that
// share products and attention out over it) are the same code in every
// build, the tags and GODEBUG change only what each thread computes, and
// the race detector slows unit10's conformance runs fivefold (the purego
// build's unit10 took 127 s with it, 16 s without), which CI's 30 minutes
// cannot afford four times.
//
// The forgedebug run covers unit00, where Assert lives, and the units whose
// reference calls unit00.Assert or reads unit00.Debug: in the others the
// tag changes nothing.
func stepTestRef(ctx context.Context, e *Env) error {
	debugPkgs, err := e.DebugPkgs()
	if err != nil {
		return err
	}
	for _, tags := range []string{"", "forgedebug", "purego"} {
		args := []string{"test", "-short", "-count=1", "-tags", tags, "-overlay", e.RefOverlay}
		pkgs := e.UnitPkgs()
		switch tags {
		case "":
			args = append(args, "-race")
		case "forgedebug":
			pkgs = debugPkgs
		}
		if err := e.Go(ctx, nil, append(args, pkgs...)...); err != nil {
			return err
		}
	}
	if runtime.GOARCH != "amd64" {
		return nil
	}
	args := append([]string{"test", "-short", "-count=1", "-overlay", e.RefOverlay}, e.UnitPkgs()...)
	return e.Go(ctx, []string{"GODEBUG=cpu.avx512f=off"}, args...)
}

func stepTestTooling(ctx context.Context, e *Env) error {
	return e.Go(ctx, nil, "test", "-count=1", "./oracle/...", "./bosses/...", "./internal/...", "./cmd/forge/...", "./ci/tokcorpus")
}

// stepTestEngine runs the engine's tests (cmd/llm, end to end on generated
// models) on the reference: against the stubs it could only panic.
func stepTestEngine(ctx context.Context, e *Env) error {
	return e.Go(ctx, nil, "test", "-short", "-count=1", "-overlay", e.RefOverlay, "./cmd/llm")
}

// stepRedGate grades the stubs with every dependency from the reference:
// each challenge must be TODO, and the TODO hit must be its own or an
// earlier challenge's of the same unit (a later challenge's tests may need
// the constructors of an earlier one). Anything else (PASS, FAIL, another
// panic, a compile error) means the stubs or the tests are wrong.
func stepRedGate(ctx context.Context, e *Env) error {
	units := e.Repo.WrittenUnits()
	bad := 0
	for _, u := range units {
		g, err := grade.New(ctx, grade.Options{
			Repo:      e.Repo,
			Selection: overlay.Selection{Units: []workbook.Unit{u}, Impl: overlay.Mine, Deps: overlay.Ref},
			Boss:      grade.BossQuick,
		})
		if err != nil {
			return err
		}
		res, err := g.Unit(ctx, u)
		g.Close()
		if err != nil {
			return err
		}
		if res.Build != nil {
			e.Logf("%s: the stubs do not compile with the tests:\n%s\n", u, res.Build.Output)
			bad++
			continue
		}
		for _, c := range res.Challenges {
			if why := redReason(c.ID, c.Status, c.Tests); why != "" {
				e.Logf("%s %s: %s\n", u, c.ID, why)
				bad++
			} else {
				e.Logf("%s %s: TODO as it should be\n", u, c.ID)
			}
		}
		if res.Boss != nil {
			last := fmt.Sprintf("%d.99", int(u))
			if why := redReason(last, res.Boss.Status, res.Boss.Tests); why != "" {
				e.Logf("%s boss: %s\n", u, why)
				bad++
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d challenges are not red for the TODO reason", bad)
	}
	return nil
}

// redReason says why a result on the stubs is not a proper TODO ("" if it is).
func redReason(id string, st grade.Status, tests []grade.TestResult) string {
	if st != grade.Todo {
		if t, ok := grade.FirstProblem(tests); ok {
			return fmt.Sprintf("%s on the stubs, want TODO (%s: %s)", st, t.Name, t.Detail)
		}
		return fmt.Sprintf("%s on the stubs, want TODO", st)
	}
	for _, t := range tests {
		if t.Status == grade.Todo && !sameUnitNotLater(t.TodoID, id) {
			return fmt.Sprintf("%s hit TODO(%s), which is not challenge %s or an earlier one of its unit", t.Name, t.TodoID, id)
		}
	}
	return ""
}

// sameUnitNotLater reports whether TODO id hit belongs to the unit of
// challenge id and is not a later challenge than it.
func sameUnitNotLater(hit, id string) bool {
	var hu, hm, cu, cm int
	if _, err := fmt.Sscanf(hit, "%d.%d", &hu, &hm); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(id, "%d.%d", &cu, &cm); err != nil {
		return false
	}
	return hu == cu && hm <= cm
}

func stepMutants(ctx context.Context, e *Env) error {
	ms, err := mutants.Load(e.Repo)
	if err != nil {
		return err
	}
	// Two at a time: compiling and running a mutant keeps about one core busy.
	verdicts := make([]mutants.Verdict, len(ms))
	errs := make([]error, len(ms))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			verdicts[i], errs[i] = mutants.Check(ctx, e.Repo, m, true)
		}()
	}
	wg.Wait()
	perUnit := map[workbook.Unit]int{}
	missed := 0
	for i, m := range ms {
		perUnit[m.Unit]++
		if errs[i] != nil {
			return fmt.Errorf("%s: %v", m.ID(), errs[i])
		}
		verdict := "caught"
		if !verdicts[i].Caught {
			verdict = "NOT CAUGHT"
			missed++
		}
		e.Logf("%-40s %s\n", m.ID(), verdict)
		for _, l := range verdicts[i].Lines {
			e.Logf("    %s\n", l)
		}
	}
	for _, u := range e.Repo.WrittenUnits() {
		if perUnit[u] < 3 {
			e.Logf("%s has %d mutants; every unit keeps at least 3\n", u, perUnit[u])
			missed++
		}
	}
	if missed > 0 {
		return fmt.Errorf("%d mutant problems", missed)
	}
	return nil
}

// stepMutation grades a deterministic sample of the mechanical mutants of
// every written unit (internal/mutation; the full run is make mutation) and
// fails when a unit's sampled score is under its floor in
// ci/mutation/floors.txt, or has fallen well under the score the same sample
// had when the floor was set. The sample is drawn by a hash of each
// mutant's identity, so an unchanged tree grades the same mutants every
// time. The grading is time-boxed: each unit gets an equal share of what
// is left of the box when its turn comes (what a quick unit leaves over
// goes to the later ones). The box counts grading only, not the units'
// setups (building and running the reference under coverage; the first
// unit's compiles what the others find in the build cache), so a slow
// setup cannot starve the units after it; a unit its share cuts short is
// reported and not gated.
func stepMutation(ctx context.Context, e *Env) error {
	floors, err := mutation.LoadFloors(mutation.FloorsFile(e.Repo))
	if err != nil {
		return err
	}
	deadline := time.Now().Add(mutation.CITimebox * time.Second)
	bad := 0
	units := e.Repo.WrittenUnits()
	for i, u := range units {
		share := time.Until(deadline) / time.Duration(len(units)-i)
		f, ok := floors[u]
		if !ok {
			e.Logf("%s: no line in ci/mutation/floors.txt; run `make mutation UNIT=%02d` and add the floors line it prints\n", u, int(u))
			bad++
			continue
		}
		rep, err := mutation.Run(ctx, mutation.Options{
			Repo: e.Repo, Unit: u, Jobs: runtime.NumCPU(),
			Sample: mutation.CISample, Seed: mutation.CISeed, Budget: share,
		})
		if err != nil {
			return fmt.Errorf("%s: %v", u, err)
		}
		deadline = deadline.Add(rep.Setup)
		e.Reportf("%s (%v)\n", rep.ScoreLine(), rep.Elapsed.Round(time.Second))
		for _, x := range rep.With(mutation.Survived, mutation.NotCovered) {
			e.Logf("    survivor: %s\n", x.Mutant)
		}
		for _, s := range rep.Stale {
			e.Logf("    stale triage entry, line %d of ci/mutation/%s.txt: %s %s %s -> %s\n", s.Line, u, s.Key.Func, s.Key.Op, s.Key.Orig, s.Key.Mut)
		}
		if rep.TimedOut {
			e.Reportf("%s: NOT GATED: its share of the step's %ds time box (%v) ran out after %d of %d sampled mutants\n", u, mutation.CITimebox, share.Round(time.Second), rep.Total().Scored(), mutation.CISample)
			continue
		}
		if why := mutation.Gate(rep.Total().Score(), f); why != "" {
			e.Logf("%s: FAIL: %s\n", u, why)
			bad++
			continue
		}
		e.Reportf("%s: ok: floor %.1f%%, this sample scored %.1f%% when it was set\n", u, f.Floor, f.Sample)
	}
	if bad > 0 {
		return fmt.Errorf("%d units under their mutation floor", bad)
	}
	return nil
}

func stepBosses(ctx context.Context, e *Env) error {
	var units []workbook.Unit
	for _, u := range e.Repo.WrittenUnits() {
		if _, ok := bosses.For(int(u)); ok {
			units = append(units, u)
		}
	}
	g, err := grade.New(ctx, grade.Options{
		Repo: e.Repo, Selection: overlay.Selection{Impl: overlay.Ref, Deps: overlay.Ref},
		Boss: grade.BossFull, BenchCount: 3, Short: true, OnlyBoss: true, ReportHardware: true,
		SkipGates: true, // gofmt, vet and the race detector are steps of their own
	})
	if err != nil {
		return err
	}
	defer g.Close()
	failed := 0
	for _, u := range units {
		res, err := g.Unit(ctx, u)
		if err != nil {
			return err
		}
		if res.Boss == nil {
			e.Logf("%s: the boss was not measured\n", u)
			failed++
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s · %s\n", u, u.Title())
		grade.RenderBoss(&b, u, *res.Boss, res.Boss.Status != grade.Pass)
		e.Reportf("%s", b.String())
		if res.Boss.Status != grade.Pass && !grade.NeedsGPUOnly(*res.Boss) {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d reference bosses miss their bars", failed)
	}
	return nil
}

// crossTargets are the platforms built for but not tested on. linux/arm64
// is not among them: the arm64 step builds and runs the tests there.
var crossTargets = [][2]string{{"darwin", "arm64"}, {"windows", "amd64"}}

func stepCrossBuild(ctx context.Context, e *Env) error {
	for _, t := range crossTargets {
		env := []string{"GOOS=" + t[0], "GOARCH=" + t[1], "CGO_ENABLED=0"}
		if err := e.Go(ctx, env, "build", "-overlay", e.RefOverlay, "./..."); err != nil {
			return err
		}
		// vet type-checks the test files too, so the tests build there as well.
		args := append([]string{"vet", "-overlay", e.RefOverlay}, e.UnitPkgs()...)
		if err := e.Go(ctx, env, args...); err != nil {
			return err
		}
	}
	return nil
}

// stepArm64 runs on arm64, under qemu-user unless the machine is one, the
// tests of the units that have code of their own for some architectures
// (assembly and its pure-Go fallbacks, CPU detection, mmap): there the
// arm64 build runs other code than the amd64 one. The other units are the
// same Go on every architecture and their tests, which the native run has
// passed, take minutes under emulation; they are built and vetted for
// arm64 here, not run.
func stepArm64(ctx context.Context, e *Env) error {
	env := []string{"GOARCH=arm64", "CGO_ENABLED=0"}
	arch, portable, err := e.ArchPkgs()
	if err != nil {
		return err
	}
	if len(portable) > 0 {
		if err := e.Go(ctx, env, append([]string{"vet", "-overlay", e.RefOverlay}, portable...)...); err != nil {
			return err
		}
	}
	args := []string{"test", "-short", "-count=1", "-overlay", e.RefOverlay}
	if runtime.GOARCH != "arm64" {
		qemu, err := exec.LookPath("qemu-aarch64")
		if err != nil {
			return errors.New("qemu-aarch64 not found: `make tools` installs Debian's qemu-user (as root)")
		}
		args = append(args, "-exec", qemu)
		// Tests that are slow under emulation and check nothing the
		// native run has not (unit10's long-context comparison) look
		// for this and skip themselves.
		env = append(env, "FORGE_EMULATED=qemu")
	}
	args = append(args, arch...)
	args = append(args, "./oracle/...", "./bosses/...")
	return e.Go(ctx, env, args...)
}
