package mutation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"go/build/constraint"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/llmforge/forge/internal/overlay"
	"github.com/llmforge/forge/internal/workbook"
)

// Status is what became of one mutant.
type Status string

const (
	Killed       Status = "killed"        // the tests failed
	Survived     Status = "survived"      // the tests passed
	NotCovered   Status = "not-covered"   // no test runs its line: survived, not run
	Timeout      Status = "timeout"       // the tests ran past the limit: counted as killed
	NotCompiling Status = "not-compiling" // left out of the score
	Equivalent   Status = "equivalent"    // triaged in ci/mutation/unitNN.txt: left out
	NotRun       Status = "not-run"       // not drawn in the sample, or the time box ran out
)

// Options configure a run over one unit.
type Options struct {
	Repo   workbook.Repo
	Unit   workbook.Unit
	Jobs   int   // mutants graded at once; 0 for 1
	Sample int   // grade this many mutants (a deterministic sample); 0 for all
	Seed   int64 // picks the sample
	// Deadline, if not zero, stops launching mutants (the time box); those
	// left are NotRun.
	Deadline time.Time
	// Budget, if not zero, stops launching mutants once this long has
	// passed since the unit's setup (building and running the reference
	// under coverage) was done: a time box for the grading alone, so that
	// the first unit, which compiles what the others then find in the
	// build cache, is not cut short by its compiles.
	Budget time.Duration
	Long   bool // run the tests without -test.short
	// OtherBuilds grades a survivor again under each other build (tag set)
	// whose tests run its line: a mistake in a Go kernel that the SIMD
	// build only reaches for a row's last block is caught by the purego
	// build's tests, which CI runs too. Off in CI's sample, where the
	// other builds' setups would cost more than the time box.
	OtherBuilds bool
	Log         io.Writer // progress notes; nil for none
	// Files, if not empty, limits the mutants to these files of the
	// solution (base names): new code graded without the whole unit.
	Files []string
	// TriagePath is the unit's equivalent-mutant file; "" for
	// ci/mutation/unitNN.txt.
	TriagePath string
}

// Result is one mutant's outcome.
type Result struct {
	Mutant Mutant
	Status Status
	Tags   string // build tags it was graded with
	Detail string // why: the first failing test, the compile error, the triage reason
}

// UnitReport is the outcome of a run over one unit.
type UnitReport struct {
	Unit      workbook.Unit
	Results   []Result      // every generated mutant, in source order
	Skipped   []string      // files no tag set builds here, and why
	Stale     []TriageEntry // triage entries that match no mutant
	Sample    int           // the sample size asked for (0: all)
	Seed      int64
	TimedOut  bool          // the time box stopped the run early
	RefTime   time.Duration // the reference's own test run, per tag set, longest
	Elapsed   time.Duration
	Setup     time.Duration // with Options.Budget: the setup before the budget's clock started
	Unchecked int           // mutants not type-checked in-process (no checker for their tags)
}

// tagSets are tried in order for each file: the first under which the file
// is compiled on this machine grades its mutants.
var tagSets = []string{"", "purego", "forgedebug", "purego,forgedebug"}

// avx2Build is a build that is not a tag set: the plain build run with
// GODEBUG=cpu.avx512f=off, as CI's AVX2 step runs it, so that on an
// AVX-512 machine the AVX2 roads (their Go wrappers, which choose and
// bound-check) are run and graded too. It comes right after the plain
// build for a unit with amd64-only files, on a machine with AVX-512.
const avx2Build = "avx2"

// noSIMDBuild is the plain build run with AVX2 and AVX-512 both off, as on
// an x86-64 CPU without them: the amd64 files' roads for such a CPU (their
// fallbacks to Go, which purego does not compile) are run and graded too.
// It comes after the AVX2 build, on a machine with AVX2.
const noSIMDBuild = "nosimd"

// goTags is the -tags value of build b.
func goTags(b string) string {
	if b == avx2Build || b == noSIMDBuild {
		return ""
	}
	return b
}

// runEnv is the environment a test binary of build b runs in: nil for
// this process's own.
func runEnv(b string) []string {
	switch b {
	case avx2Build:
		return append(os.Environ(), "GODEBUG=cpu.avx512f=off")
	case noSIMDBuild:
		return append(os.Environ(), "GODEBUG=cpu.avx2=off,cpu.avx512f=off")
	}
	return nil
}

// Run generates the unit's mutants and grades them.
func Run(ctx context.Context, opt Options) (*UnitReport, error) {
	start := time.Now()
	if opt.Jobs < 1 {
		opt.Jobs = 1
	}
	r, u := opt.Repo, opt.Unit
	rep := &UnitReport{Unit: u, Sample: opt.Sample, Seed: opt.Seed}
	solDir := r.SolutionDir(u)
	names, err := workbook.ImplFiles(solDir)
	if err != nil {
		return nil, err
	}
	// Generate, file by file, remembering each file's text and the builds
	// (tag sets) that compile it.
	sets, err := unitTagSets(solDir, names)
	if err != nil {
		return nil, err
	}
	srcs := map[string][]byte{}
	fileTags := map[string][]string{}
	var ms []Mutant
	for _, name := range names {
		if filepath.Ext(name) != ".go" || (len(opt.Files) > 0 && !slices.Contains(opt.Files, name)) {
			continue // assembly is not mutated; other files were not asked for
		}
		tags, why, err := tagsFor(filepath.Join(solDir, name), sets)
		if err != nil {
			return nil, err
		}
		if why != "" {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("solutions/%s/%s: %s", u.Dir(), name, why))
			continue
		}
		src, err := os.ReadFile(filepath.Join(solDir, name))
		if err != nil {
			return nil, err
		}
		got, err := Generate("solutions/"+u.Dir()+"/"+name, src)
		if err != nil {
			return nil, err
		}
		srcs[name], fileTags[name] = src, tags
		ms = append(ms, got...)
	}
	rep.Results = make([]Result, len(ms))
	for i, m := range ms {
		rep.Results[i] = Result{Mutant: m, Status: NotRun, Tags: fileTags[baseName(m.File)][0]}
	}
	triagePath := opt.TriagePath
	if triagePath == "" {
		triagePath = TriageFile(r, u)
	}
	entries, err := LoadTriage(triagePath)
	if err != nil {
		return nil, err
	}
	equiv, stale := Triage(ms, entries)
	rep.Stale = stale
	for i, reason := range equiv {
		rep.Results[i].Status, rep.Results[i].Detail = Equivalent, reason
	}

	tmp, err := os.MkdirTemp("", "forge-mutation-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	base, err := overlay.Build(r, overlay.Selection{Impl: overlay.Ref, Deps: overlay.Ref})
	if err != nil {
		return nil, err
	}
	basePath, err := base.Write(tmp, "ref.json")
	if err != nil {
		return nil, err
	}
	envs := map[string]*tagEnv{}
	tree := ""
	env := func(tags string) (*tagEnv, error) {
		if e, ok := envs[tags]; ok {
			return e, nil
		}
		opt.logf("%s: the reference in build %q: coverage, timing, type-checker\n", u, tags)
		if tree == "" {
			// go test -cover ignores -overlay for the files it instruments
			// (it would cover the stubs), so coverage runs in a copy of the
			// tree with the reference swapped in for real.
			tree = filepath.Join(tmp, "tree")
			if err := overlay.Materialize(r, base, tree); err != nil {
				return nil, err
			}
		}
		e, err := newTagEnv(ctx, r, u, basePath, tree, tags, !opt.Long, tmp)
		if err != nil {
			return nil, err
		}
		envs[tags] = e
		if e.coverNote != "" {
			opt.logf("%s: tags %q: %s\n", u, tags, e.coverNote)
		}
		if e.checkErr != nil {
			opt.logf("%s: no in-process type-check, every mutant goes to the compiler: %v\n", u, e.checkErr)
		}
		rep.RefTime = max(rep.RefTime, e.refTime)
		return e, nil
	}

	order := candidates(rep.Results, opt.Sample, opt.Seed)
	g := &grader{repo: r, unit: u, base: base, tmp: tmp, short: !opt.Long}
	results := make(chan graded, opt.Jobs) // buffered: an early return leaves no sender blocked
	inFlight, scored := 0, 0
	collect := func() {
		res := <-results
		inFlight--
		rep.Results[res.i].Status, rep.Results[res.i].Detail = res.status, res.detail
		if res.status != NotCompiling {
			scored++
		}
	}
	total := len(order)
	if opt.Sample > 0 {
		total = min(total, opt.Sample)
	}
	opt.logf("%s: %d mutants generated, %d to grade, %d at a time\n", u, len(ms), total, opt.Jobs)
	progress := newProgress(opt.Log, u, total)
	if opt.Budget > 0 {
		if len(order) > 0 {
			// Set up the build most mutants grade in before the clock starts.
			if _, err := env(fileTags[baseName(rep.Results[order[0]].Mutant.File)][0]); err != nil {
				return nil, err
			}
		}
		rep.Setup = time.Since(start)
		if d := time.Now().Add(opt.Budget); opt.Deadline.IsZero() || d.Before(opt.Deadline) {
			opt.Deadline = d
		}
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		// Wait for the mutants in flight before asking for another: they
		// may complete the sample (or, not compiling, leave room in it).
		for opt.Sample > 0 && inFlight > 0 && scored+inFlight >= opt.Sample {
			collect()
		}
		if opt.Sample > 0 && scored >= opt.Sample {
			break
		}
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			rep.TimedOut = true
			break
		}
		res := &rep.Results[i]
		m := res.Mutant
		name := baseName(m.File)
		mutated := m.Apply(srcs[name])
		// Grade it in the first build whose tests run its line: a file
		// compiled everywhere may be exercised only under purego (the Go
		// kernels behind assembly).
		var e *tagEnv
		covered := false
		for _, t := range fileTags[name] {
			if e, err = env(t); err != nil {
				return nil, err
			}
			if covered = e.covered(name, m.Line, m.Col); covered {
				res.Tags = t
				break
			}
		}
		if !covered {
			e, _ = env(res.Tags)
		}
		if e.checker != nil && e.checker.has(name) {
			if err := e.checker.check(name, mutated); err != nil {
				res.Status, res.Detail = NotCompiling, "type-check: "+err.Error()
				continue
			}
		} else {
			rep.Unchecked++
		}
		if !covered {
			res.Status, res.Detail = NotCovered, "no test runs this line in any build"
			scored++
			progress.step()
			continue
		}
		for inFlight >= opt.Jobs {
			collect()
		}
		inFlight++
		tags := res.Tags
		go func() {
			st, detail := g.grade(ctx, m, mutated, tags, e)
			progress.step()
			results <- graded{i, st, detail}
		}()
	}
	for inFlight > 0 {
		collect()
	}
	if err := g.err(); err != nil {
		return nil, err
	}
	if opt.OtherBuilds {
		if err := regradeSurvivors(ctx, opt, rep, g, srcs, fileTags, env); err != nil {
			return nil, err
		}
		if err := g.err(); err != nil {
			return nil, err
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, ctx.Err()
}

// regradeSurvivors grades each survivor again under the builds after the
// one it survived in, in order, while it survives and its line is run
// there; the first build whose tests kill it decides.
func regradeSurvivors(ctx context.Context, opt Options, rep *UnitReport, g *grader, srcs map[string][]byte, fileTags map[string][]string, env func(string) (*tagEnv, error)) error {
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Status != Survived {
			continue
		}
		name := baseName(res.Mutant.File)
		tags := fileTags[name]
		at := slices.Index(tags, res.Tags)
		for _, t := range tags[at+1:] {
			if ctx.Err() != nil || !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
				return nil
			}
			e, err := env(t)
			if err != nil {
				return err
			}
			if !e.covered(name, res.Mutant.Line, res.Mutant.Col) {
				continue
			}
			mutated := res.Mutant.Apply(srcs[name])
			if e.checker != nil && e.checker.has(name) && e.checker.check(name, mutated) != nil {
				continue // does not build here: the first build's verdict stands
			}
			st, detail := g.grade(ctx, res.Mutant, mutated, t, e)
			if st == Killed || st == Timeout {
				res.Status, res.Detail, res.Tags = st, detail+" (in the "+tagName(t)+" build)", t
				break
			}
		}
	}
	return nil
}

// tagName names a tag set for a message: "plain" for none.
func tagName(tags string) string {
	if tags == "" {
		return "plain"
	}
	return tags
}

type graded struct {
	i      int
	status Status
	detail string
}

// candidates orders the mutants to grade: all of them in source order, or,
// for a sample, every one in the order of a hash of its identity and the
// seed, so the same tree and seed draw the same sample, and an edit moves
// only the mutants it touches in or out of it.
func candidates(rs []Result, sample int, seed int64) []int {
	var idx []int
	for i, r := range rs {
		if r.Status != Equivalent {
			idx = append(idx, i)
		}
	}
	if sample <= 0 {
		return idx
	}
	h := make(map[int]uint64, len(idx))
	for _, i := range idx {
		h[i] = sampleHash(rs[i].Mutant.Key(), seed)
	}
	sort.SliceStable(idx, func(a, b int) bool { return h[idx[a]] < h[idx[b]] })
	return idx
}

func sampleHash(k Key, seed int64) uint64 {
	f := fnv.New64a()
	fmt.Fprintf(f, "%d\x00%s\x00%s\x00%s\x00%s\x00%s\x00%d", seed, k.File, k.Func, k.Op, k.Orig, k.Mut, k.Occ)
	return f.Sum64()
}

// TriageFile is where the unit's equivalent mutants are recorded.
func TriageFile(r workbook.Repo, u workbook.Unit) string {
	return filepath.Join(r.Root, "ci", "mutation", u.Dir()+".txt")
}

// unitTagSets keeps, of tagSets, those that compile a different set of the
// unit's files: for unit09, "" and "purego"; forgedebug adds nothing there.
func unitTagSets(solDir string, names []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, t := range tagSets {
		var in []string
		for _, n := range names {
			ok, err := matchTags(solDir, n, t)
			if err != nil {
				return nil, err
			}
			if ok {
				in = append(in, n)
			}
		}
		if sig := strings.Join(in, "|"); !seen[sig] {
			seen[sig] = true
			out = append(out, t)
		}
	}
	amd64 := slices.ContainsFunc(names, func(n string) bool {
		return strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(n, ".go"), ".s"), "_amd64")
	})
	if amd64 && cpu.X86.HasAVX2 {
		out = slices.Insert(out, 1, noSIMDBuild)
	}
	if amd64 && cpu.X86.HasAVX512F {
		out = slices.Insert(out, 1, avx2Build)
	}
	return out, nil
}

// tagsFor lists the tag sets, of sets, under which the file is compiled on
// this machine, or says why there is none.
func tagsFor(path string, sets []string) (tags []string, why string, err error) {
	dir, name := filepath.Split(path)
	for _, t := range sets {
		ok, err := matchTags(dir, name, t)
		if err != nil {
			return nil, "", err
		}
		if ok {
			tags = append(tags, t)
		}
	}
	if len(tags) == 0 {
		return nil, fmt.Sprintf("not compiled on %s/%s with any of the tags %q (%s)", build.Default.GOOS, build.Default.GOARCH, tagSets, buildLine(path)), nil
	}
	return tags, "", nil
}

func matchTags(dir, name, tags string) (bool, error) {
	tags = goTags(tags)
	bctx := build.Default
	if tags != "" {
		bctx.BuildTags = strings.Split(tags, ",")
	}
	return bctx.MatchFile(dir, name)
}

// buildLine is the file's //go:build line, or its name's GOOS/GOARCH suffix.
func buildLine(path string) string {
	data, err := os.ReadFile(path)
	if err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if constraint.IsGoBuild(l) {
				return l
			}
		}
	}
	return "its file name"
}

// tagEnv is what grading under one tag set needs, prepared once: the
// reference's coverage, its run time and a type-checker.
type tagEnv struct {
	tags      string
	refTime   time.Duration
	timeout   time.Duration
	cover     map[string][]block // by base file name; nil: run every mutant
	coverNote string             // why there is no coverage
	checker   *typeChecker
	checkErr  error
}

type block struct {
	l0, c0, l1, c1 int
	count          int
}

// newTagEnv runs the reference's tests with coverage of the unit's package,
// in tree (the repository materialized with the reference): the profile says
// which lines some test runs, and the run's time sets the mutants' timeout
// (coverage only slows it, so the timeout errs on the generous side).
// Should a test fail under coverage, no mutant is skipped as not covered,
// and a plain run of the reference through the overlay, where the tests
// must pass, gives the time instead. One run instead of two: for a sample
// of a few mutants, the reference's runs are much of the cost.
func newTagEnv(ctx context.Context, r workbook.Repo, u workbook.Unit, overlayPath, tree, tags string, short bool, tmp string) (*tagEnv, error) {
	e := &tagEnv{tags: tags}
	dir, err := os.MkdirTemp(tmp, "ref-")
	if err != nil {
		return nil, err
	}
	run := []string{"-test.count=1"}
	if short {
		run = append(run, "-test.short")
	}
	cbin := filepath.Join(dir, "cover.test")
	if out, err := goCmd(ctx, tree, "test", "-c", "-o", cbin, "-trimpath", "-tags", goTags(tags), "-cover", "-coverpkg", u.ImportPath(), "./"+u.Dir()); err != nil {
		return nil, fmt.Errorf("the reference of %s does not build with coverage and tags %q: %v\n%s", u, tags, err, out)
	}
	profile := filepath.Join(dir, "cover.out")
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, cbin, append(run, "-test.coverprofile="+profile, "-test.gocoverdir="+dir)...)
	cmd.Dir = filepath.Join(tree, u.Dir())
	cmd.Env = runEnv(tags)
	if out, err := cmd.CombinedOutput(); err == nil {
		e.refTime = time.Since(t0)
		if e.cover, err = readProfile(profile); err != nil {
			return nil, err
		}
	} else {
		e.coverNote = fmt.Sprintf("the tests fail under coverage (%s), so every mutant runs", firstFailure(out))
		bin := filepath.Join(dir, "ref.test")
		if out, err := goCmd(ctx, r.Root, "test", "-c", "-o", bin, "-overlay", overlayPath, "-tags", goTags(tags), "./"+u.Dir()); err != nil {
			return nil, fmt.Errorf("the reference of %s does not build with tags %q: %v\n%s", u, tags, err, out)
		}
		t0 = time.Now()
		cmd = exec.CommandContext(ctx, bin, run...)
		cmd.Dir = r.UnitDir(u)
		cmd.Env = runEnv(tags)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("the reference of %s fails its own tests with tags %q, so no mutant can be graded: %v\n%s", u, tags, err, tailLines(string(out), 20))
		}
		e.refTime = time.Since(t0)
	}
	// Three times the reference's own time, plus slack for a loaded machine.
	e.timeout = 3*e.refTime + 10*time.Second
	e.checker, e.checkErr = newTypeChecker(ctx, r.Root, u.Dir(), u.ImportPath(), r.SolutionDir(u), overlayPath, goTags(tags))
	return e, nil
}

// covered reports whether a test runs the statement at file:line:col. A
// position no block holds (a package-level declaration, say) counts as
// covered: only coverage can prove a mutant harmless to skip.
func (e *tagEnv) covered(file string, line, col int) bool {
	blocks, ok := e.cover[file]
	if !ok {
		return true
	}
	inAny := false
	for _, b := range blocks {
		after := line > b.l0 || line == b.l0 && col >= b.c0
		before := line < b.l1 || line == b.l1 && col <= b.c1
		if after && before {
			if b.count > 0 {
				return true
			}
			inAny = true
		}
	}
	return !inAny
}

// readProfile parses a Go cover profile: "pkg/file.go:l0.c0,l1.c1 stmts count".
func readProfile(path string) (map[string][]block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]block{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		var b block
		var stmts int
		colon := strings.LastIndex(line, ":")
		if colon < 0 {
			continue
		}
		if _, err := fmt.Sscanf(line[colon+1:], "%d.%d,%d.%d %d %d", &b.l0, &b.c0, &b.l1, &b.c1, &stmts, &b.count); err != nil {
			return nil, fmt.Errorf("%s: cannot read %q: %v", path, line, err)
		}
		name := baseName(line[:colon])
		out[name] = append(out[name], b)
	}
	return out, sc.Err()
}

// grader compiles and runs one mutant at a time, several in parallel.
type grader struct {
	repo  workbook.Repo
	unit  workbook.Unit
	base  overlay.Overlay
	tmp   string
	short bool
	n     atomic.Int64
	// broken is the first failure of the machine rather than of a
	// mutant (see machineFailure): once set, verdicts mean nothing.
	broken atomic.Pointer[string]
}

// machineFailures are what go and the test binaries print when the
// machine, not the mutant, failed: a full disk turns every later build
// into "not compiling" and every test that writes a file into "killed",
// and a run that went on would report a score that is not the tests'.
var machineFailures = []string{"no space left on device", "disk quota exceeded", "cannot allocate memory", "too many open files", "read-only file system"}

// machineFailure reports whether out shows one of machineFailures, and
// records the first such line in g.broken.
func (g *grader) machineFailure(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		for _, f := range machineFailures {
			if strings.Contains(l, f) {
				l = strings.TrimSpace(l)
				g.broken.CompareAndSwap(nil, &l)
				return true
			}
		}
	}
	return false
}

// err is the error that ends a run whose machine failed, or nil.
func (g *grader) err() error {
	if l := g.broken.Load(); l != nil {
		return fmt.Errorf("mutation: the machine failed while grading %s (%q): its verdicts are not the tests'; free the resource and run again", g.unit, *l)
	}
	return nil
}

func (g *grader) grade(ctx context.Context, m Mutant, mutated []byte, tags string, e *tagEnv) (Status, string) {
	dir := filepath.Join(g.tmp, "m"+strconv.FormatInt(g.n.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		g.machineFailure(err.Error())
		return NotCompiling, err.Error()
	}
	defer os.RemoveAll(dir)
	name := baseName(m.File)
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		g.machineFailure(err.Error())
		return NotCompiling, err.Error()
	}
	ov := overlay.Overlay{Replace: make(map[string]string, len(g.base.Replace)+1)}
	for k, v := range g.base.Replace {
		ov.Replace[k] = v
	}
	ov.Replace[filepath.Join(g.repo.UnitDir(g.unit), name)] = file
	data, err := json.Marshal(ov)
	if err != nil {
		return NotCompiling, err.Error()
	}
	ovPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovPath, data, 0o644); err != nil {
		g.machineFailure(err.Error())
		return NotCompiling, err.Error()
	}
	bin := filepath.Join(dir, "m.test")
	// No vet and no symbol table or DWARF: the link is most of a mutant's
	// cost, and neither changes what the tests see (panics still name
	// file:line from the pc tables). Measured on unit09: 1.40 s to 1.24 s.
	if out, err := goCmd(ctx, g.repo.Root, "test", "-c", "-vet=off", "-ldflags=-s -w", "-o", bin, "-overlay", ovPath, "-tags", goTags(tags), "./"+g.unit.Dir()); err != nil {
		g.machineFailure(out)
		return NotCompiling, firstLine(out)
	}
	args := []string{"-test.count=1", "-test.failfast", "-test.timeout=" + e.timeout.String()}
	if g.short {
		args = append(args, "-test.short")
	}
	// The test binary's own -test.timeout panics with a message; the
	// context kills it should it hang where that panic cannot fire.
	rctx, cancel := context.WithTimeout(ctx, e.timeout+15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(rctx, bin, args...)
	cmd.Dir = g.repo.UnitDir(g.unit)
	cmd.Env = runEnv(tags)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		return Survived, ""
	case g.machineFailure(string(out)):
		return Killed, firstLine(string(out))
	case rctx.Err() != nil && ctx.Err() == nil,
		bytes.Contains(out, []byte("panic: test timed out after")):
		return Timeout, fmt.Sprintf("ran past %v", e.timeout)
	}
	return Killed, firstFailure(out)
}

func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// firstFailure is the first "--- FAIL" line (or panic) of a test run.
func firstFailure(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "panic:") {
			return t
		}
	}
	return firstLine(string(out))
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

func tailLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, args...)
	}
}

// progress prints a line every tenth of the way.
type progress struct {
	w           io.Writer
	u           workbook.Unit
	total, done atomic.Int64
	t0          time.Time
	last        atomic.Int64
}

func newProgress(w io.Writer, u workbook.Unit, total int) *progress {
	p := &progress{w: w, u: u, t0: time.Now()}
	p.total.Store(int64(total))
	return p
}

func (p *progress) step() {
	n := p.done.Add(1)
	if p.w == nil {
		return
	}
	tenth := n * 10 / max(1, p.total.Load())
	if old := p.last.Load(); tenth > old && p.last.CompareAndSwap(old, tenth) {
		fmt.Fprintf(p.w, "%s: %d of %d graded (%v)\n", p.u, n, p.total.Load(), time.Since(p.t0).Round(time.Second))
	}
}
