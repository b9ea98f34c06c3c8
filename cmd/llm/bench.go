package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
	"github.com/llmforge/forge/unit12"
)

var benchCommand = &command{
	name:     "bench",
	synopsis: "-m MODEL.gguf [-p 512] [-n 128] [-d 0] [-t 1,2] [-r 3] [--json] [--plot FILE.svg] [--roofline]",
	summary:  "prompt processing and generation speed, llama-bench style",
	setup:    setupBench,
	help: `
Two tests, as llama-bench names them: ppN processes a prompt of N tokens
in one prefill into an empty cache; tgN generates N tokens, one decode
step each, after an untimed prompt of 8 tokens. The tokens are fixed (BOS,
then pseudo-random ids; no sampling), the same on every run. Each test
runs once to warm up (as llama-bench: the whole prompt, or one step), then
-r times, for every thread count of -t; t/s is the mean tokens per second
± the sample standard deviation over the repetitions. -p, -n, -d and -t
take comma lists and repeat; -p 0 or -n 0 skips that test.

-d is llama-bench's depth: each test runs again after N tokens already in
the cache (filled untimed, once per thread count and depth; each
repetition cuts the cache back to them), named "pp512 @ d4096" as
llama-bench names it. At depth 0 a tg test still follows its 8 untimed
tokens. Attention's share of a step grows with the depth; the weights'
does not.

With --model-draft FILE or --lookup (and --draft-max, --draft-min, as
llm run takes them), each tgN test has a specN test after it: N tokens
of greedy speculative decoding (unit12) after the same untimed prompt, on
a fresh cache and drafter each repetition, the draft's work included; a
line on stderr gives the drafted tokens accepted and the tokens a target
pass yielded, and --json adds them as "acceptance" and "tokens_per_pass".
tgN feeds fixed tokens, specN generates greedily: on a model whose text
is what the drafter expects they differ only in the passes.

With --plot FILE.svg, the speeds are drawn too (gonum/plot): tokens per
second against the depth, a line for each test and thread count ("pp512
t=2"), or, when -d gives one depth, against the threads, a line for each
test; error bars are the standard deviations. The extension picks the
format: .svg, .png, .pdf, and the others plot.Save takes (.eps, .jpg,
.jpeg, .tex, .tif, .tiff). The file is opened before the benchmark runs,
so a path that cannot be written is an error at once; a benchmark that
fails leaves it as it was.

With --roofline, a second table on stderr puts each test against the
roofline (unit14.PassCost): the megabytes and operations one forward pass
must move and do (the whole prompt of a pp test, one decode step of a tg
test at its mean depth), their ratio, and the bandwidth and arithmetic
rate the measured speed implies. A decode step whose GB/s is near the
machine's read bandwidth cannot go faster; one far below it has room.

With --device cuda and -ngl N, as llm run takes them, the tests run with
the last N layers on the GPU; a line on stderr says what went there.

With --json, one JSON object per line and test:
  {"model": "m.gguf", "threads": 2, "test": "pp512", "n_tokens": 512,
   "n_depth": 0, "type_k": "f16", "type_v": "f16", "tps": 123.4,
   "tps_stddev": 1.2}

Example:
  llm gen --shape tinyllama-1.1b --type q4_0 -o /tmp/tl.gguf
  llm bench -m /tmp/tl.gguf -p 64 -n 32 -t 1,2
  llm bench -m /tmp/tl.gguf -p 64 -n 32 -d 0,512,1024 -t 1,2 --plot bench.svg`,
}

type benchOptions struct {
	model   string
	pp, tg  []int
	depths  []int
	threads []int
	reps    int
	cache   cacheTypes
	json    bool
	plot    string // --plot FILE: the speeds drawn, "" for none
	roof    bool   // --roofline: each test against unit14's cost model, on stderr
	spec    specOptions
	device  deviceOptions
}

func setupBench(fs *flagSet) func(*env) error {
	o := &benchOptions{pp: []int{512}, tg: []int{128}, depths: []int{0}, threads: []int{defaultThreads()}, reps: 3, cache: defaultCache}
	fs.str(&o.model, "m,model", "FILE", "the model, a GGUF file")
	fs.ints(&o.pp, "p,n-prompt", "N", "prompt tokens to process, a comma list (default 512)", tokenCount)
	fs.ints(&o.tg, "n,n-gen", "N", "tokens to generate, a comma list (default 128)", tokenCount)
	fs.ints(&o.depths, "d,n-depth", "N", "tokens already in the cache before each test, a comma list (default 0)", tokenCount)
	fs.ints(&o.threads, "t,threads", "N", fmt.Sprintf("thread counts, a comma list (default %d, the CPUs; at most %d)", defaultThreads(), maxThreads), threadCount)
	fs.integer(&o.reps, "r,repetitions", "N", "repetitions of each test (default 3)", atLeast(1))
	cacheFlags(fs, &o.cache)
	fs.boolean(&o.json, "json", "print one JSON object per line and test")
	fs.boolean(&o.roof, "roofline", "print each test's bytes and operations per pass and the GB/s and Gop/s reached (stderr)")
	fs.add("plot", "FILE", "draw t/s against the depth (or the threads) into FILE (.svg, .png, .pdf, ...)", false, func(v string) error {
		if _, err := plotFormat(v); err != nil {
			return err // checked here, so that a bad extension fails before anything runs
		}
		o.plot = v
		return nil
	})
	specFlags(fs, &o.spec)
	deviceFlags(fs, &o.device)
	return func(e *env) error { return doBench(e, o) }
}

// benchTest is one test: ppN or tgN, at a depth.
type benchTest struct {
	name   string
	prompt bool // a prefill, else decode steps
	n      int
	depth  int  // tokens in the cache before the timed part
	spec   bool // greedy speculative decoding (--model-draft, --lookup), not fixed tokens
}

// prefix is how many tokens the cache holds, untimed, before the test's
// timed part: the depth, or tgPrompt for a tg test at depth 0.
func (t benchTest) prefix() int {
	if !t.prompt && t.depth == 0 {
		return tgPrompt
	}
	return t.depth
}

type benchJSON struct {
	Model     string  `json:"model"`
	Threads   int     `json:"threads"`
	Test      string  `json:"test"`
	NTokens   int     `json:"n_tokens"`
	NDepth    int     `json:"n_depth"`
	TypeK     string  `json:"type_k"`
	TypeV     string  `json:"type_v"`
	TPS       float64 `json:"tps"`
	TPSStddev float64 `json:"tps_stddev"`
	// A speculative test's drafter: drafted tokens accepted of those judged
	// and tokens per target pass, over its repetitions.
	Acceptance    *float64 `json:"acceptance,omitempty"`
	TokensPerPass *float64 `json:"tokens_per_pass,omitempty"`
}

func doBench(e *env, o *benchOptions) error {
	if len(e.args) > 0 {
		return usagef("unexpected argument %q", e.args[0])
	}
	var tests []benchTest
	context := 1
	for _, d := range o.depths {
		add := func(kind string, prompt bool, n int) {
			name := fmt.Sprintf("%s%d", kind, n)
			if d > 0 {
				name += fmt.Sprintf(" @ d%d", d) // llama-bench's name
			}
			t := benchTest{name: name, prompt: prompt, n: n, depth: d}
			tests = append(tests, t)
			context = max(context, t.prefix()+n)
		}
		for _, n := range o.pp {
			if n > 0 {
				add("pp", true, n)
			}
		}
		for _, n := range o.tg {
			if n > 0 {
				add("tg", false, n)
			}
		}
		if o.spec.draft != "" || o.spec.lookup {
			for _, n := range o.tg {
				if n > 0 {
					add("tg", false, n)
					t := &tests[len(tests)-1]
					t.name, t.spec = strings.Replace(t.name, "tg", "spec", 1), true
					context = max(context, t.prefix()+n+o.spec.draftMax+1)
				}
			}
		}
	}
	if len(tests) == 0 {
		return usagef("nothing to measure: -p and -n are both 0")
	}
	if context > maxCtx {
		return usagef("-p/-n/-d: the longest test needs a context of %d tokens (its depth and its tokens), more than %d", context, maxCtx)
	}
	if o.model == "" {
		return usagef("no model: give -m MODEL.gguf")
	}
	// The context holds the longest test: its prefix (a depth, or the
	// short prompt of a tg test) and its tokens. The model's scratch is
	// sized for the most threads of -t, so that every pool of the list
	// fits in it.
	spec, err := o.spec.on(e)
	if err != nil {
		return err
	}
	var pf *plotFile
	if o.plot != "" {
		if pf, err = openPlot(o.plot); err != nil {
			return err
		}
		defer pf.discard() // a no-op once written
	}
	m, err := o.device.load(e, o.model, context, slices.Max(o.threads), "-p/-n/-d", o.cache)
	if err != nil {
		return err
	}
	defer m.Close()
	var newDrafter func() (unit12.Drafter, error)
	var dm *model
	if spec {
		if newDrafter, dm, err = o.spec.drafters(e, m, context, slices.Max(o.threads), o.cache, greedy()); err != nil {
			return err
		}
		if dm != nil {
			defer dm.Close()
		}
	}
	ctx, stop := withSignal(e.ctx)
	defer stop()

	b := &bencher{s: unit07.NewSession(m.net), ctx: ctx, tokens: benchTokens(m, context), newDrafter: newDrafter, gamma: o.spec.draftMax}
	label, size, params := modelLabel(m)
	header := !o.json
	var points []benchPoint // for --plot
	var roofs []rooflineRow // for --roofline
	var roofErr error       // why there is no roofline: a model unit14 cannot cost
	row := func(threads int, t benchTest, mean, sd float64, acc unit12.Result) error {
		points = append(points, pointOf(threads, t, mean, sd))
		if o.roof && roofErr == nil && !t.spec {
			var r rooflineRow
			if r, roofErr = newRooflineRow(m.net, threads, t, mean, o.cache); roofErr == nil {
				roofs = append(roofs, r)
			}
		}
		if t.spec {
			fmt.Fprintf(e.stderr, "%s, %d threads: %d of %d drafted tokens judged accepted (%.1f%%), %.2f tokens per target pass\n",
				t.name, threads, acc.Accepted, acc.Accepted+acc.Rejected, 100*acc.AcceptanceRate(), acc.TokensPerPass())
		}
		if o.json {
			row := benchJSON{Model: o.model, Threads: threads, Test: t.name, NTokens: t.n, NDepth: t.depth, TypeK: o.cache.k.String(), TypeV: o.cache.v.String(), TPS: mean, TPSStddev: sd}
			if t.spec {
				a, tpp := acc.AcceptanceRate(), acc.TokensPerPass()
				row.Acceptance, row.TokensPerPass = &a, &tpp
			}
			b, err := json.Marshal(row)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%s\n", b)
			return err
		}
		if header {
			fmt.Fprintf(e.stdout, "| %-24s | %10s | %8s | %7s | %14s | %18s |\n", "model", "size", "params", "threads", "test", "t/s")
			fmt.Fprintf(e.stdout, "| %s | %s: | %s: | %s: | %s: | %s: |\n", strings.Repeat("-", 24), strings.Repeat("-", 9),
				strings.Repeat("-", 7), strings.Repeat("-", 6), strings.Repeat("-", 13), strings.Repeat("-", 17))
			header = false
		}
		_, err := fmt.Fprintf(e.stdout, "| %-24s | %10s | %8s | %7d | %14s | %18s |\n", label, size, params, threads, t.name,
			fmt.Sprintf("%.2f ± %.2f", mean, sd))
		return err
	}
	defer func() {
		m.net.Pool = m.pool
		if dm != nil {
			dm.net.Pool = m.pool
		}
	}()
	for _, threads := range o.threads {
		pool := m.pool
		if threads != pool.Threads() {
			pool = unit03.NewPool(threads)
		}
		m.net.Pool = pool
		if dm != nil { // the draft runs on the model's threads
			dm.net.Pool = pool
		}
		err := func() error {
			if pool != m.pool {
				defer pool.Close()
			}
			b.s.Reset() // a prefix filled on another pool is filled again on this one
			for _, t := range tests {
				// The warm-up, as llama-bench's: the whole prompt of a pp
				// test, one step of a tg test. It pulls the memory-mapped
				// weights into memory and grows the scratch buffers.
				e.progress.show("%s, %d threads: warm-up", t.name, threads)
				warm := t
				if !t.prompt {
					warm.n = 1
				}
				if _, err := b.run(warm); err != nil {
					return err
				}
				tps := make([]float64, 0, o.reps)
				b.counts = unit12.Result{}
				for r := range o.reps {
					e.progress.show("%s, %d threads: repetition %d of %d", t.name, threads, r+1, o.reps)
					d, err := b.run(t)
					if err != nil {
						return err
					}
					tps = append(tps, float64(t.n)/d.Seconds())
				}
				e.progress.clear()
				mean, sd := meanStddev(tps)
				if err := row(threads, t, mean, sd, b.counts); err != nil {
					return err
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	if o.roof {
		if roofErr != nil {
			fmt.Fprintf(e.stderr, "llm bench: no roofline for this model: %v\n", roofErr)
		} else {
			writeRoofline(e.stderr, roofs)
		}
	}
	if pf == nil {
		return nil
	}
	p, err := benchPlot(fmt.Sprintf("llm bench: %s (%s)", filepath.Base(o.model), label), points)
	if err != nil {
		return err
	}
	if err := pf.write(p); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "llm bench: wrote %s\n", o.plot)
	return nil
}

// tgPrompt is the prompt a tg test decodes after, untimed: a step at
// position 0, with nothing to attend to, is not a typical one (and
// ci/llamabench runs llama.cpp the same way).
const tgPrompt = 8

// benchTokens are the tokens the tests feed: BOS (if the vocabulary has
// one), then fixed pseudo-random ids. What they are does not change the
// work.
func benchTokens(m *model, n int) []int {
	rng := rand.New(rand.NewPCG(1, 2))
	tokens := make([]int, n)
	for i := range tokens {
		tokens[i] = rng.IntN(m.net.Config.Vocab)
	}
	if bos := m.tok.BOS(); bos >= 0 && bos < m.net.Config.Vocab {
		tokens[0] = bos
	}
	return tokens
}

// bencher runs the tests on one session. Every test feeds the same
// sequence, tokens, from its start, so the cache always holds
// tokens[:s.Len()].
type bencher struct {
	s      *unit07.Session
	ctx    context.Context
	tokens []int

	newDrafter func() (unit12.Drafter, error) // nil without --model-draft or --lookup
	gamma      int                            // --draft-max
	counts     unit12.Result                  // a speculative test's drafter, over its repetitions
}

// run runs a test once and returns its time: a prefill of t.n tokens, or
// t.n decode steps, after t.prefix() tokens in the cache.
func (b *bencher) run(t benchTest) (time.Duration, error) {
	if b.ctx.Err() != nil {
		return 0, interrupted
	}
	if t.spec {
		return b.speculate(t)
	}
	if err := b.fill(t.prefix()); err != nil {
		return 0, err
	}
	runtime.GC()
	p := t.prefix()
	if t.prompt {
		start := time.Now()
		_, err := b.s.Prefill(b.tokens[p : p+t.n])
		return time.Since(start), err
	}
	start := time.Now()
	for i := range t.n {
		if i%16 == 15 && b.ctx.Err() != nil {
			return 0, interrupted
		}
		if _, err := b.s.Step(b.tokens[p+i]); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// speculate runs a speculative test once: t.n tokens of greedy
// speculative decoding after the test's prefix, on a fresh cache and a
// fresh drafter (the prefix is not timed: neither the target's prefill of
// it nor a draft model's, which Generate does when it primes the drafter),
// and adds its drafter's counts to b.counts.
func (b *bencher) speculate(t benchTest) (time.Duration, error) {
	d, err := b.newDrafter()
	if err != nil {
		return 0, err
	}
	smp, err := unit11.NewSampler(b.s.Model.Config.Vocab, greedy())
	if err != nil {
		return 0, err
	}
	sp, err := unit12.NewSpeculator(unit07.NewSession(b.s.Model), smp, d, b.gamma)
	if err != nil {
		return 0, err
	}
	runtime.GC()
	res, err := sp.Generate(b.ctx, b.tokens[:t.prefix()], unit12.Options{Options: unit11.Options{MaxTokens: t.n}, Draft: b.gamma})
	if b.ctx.Err() != nil {
		return 0, interrupted
	}
	if err != nil {
		return 0, err
	}
	b.counts.Passes += res.Passes
	b.counts.Drafted += res.Drafted
	b.counts.Accepted += res.Accepted
	b.counts.Rejected += res.Rejected
	b.counts.Tokens = append(b.counts.Tokens, res.Tokens...)
	// A test generates t.n tokens; one that stopped short is timed by them.
	return time.Duration(float64(res.GenTime) * float64(t.n) / float64(max(len(res.Tokens), 1))), nil
}

// greedy is the sampling of llm bench's speculative tests: temperature 0,
// so that the text, and the drafter's work, is the same on every run.
func greedy() unit11.Params {
	p := unit11.DefaultParams()
	p.Temperature = 0
	return p
}

// fill leaves exactly tokens[:n] in the cache, untimed: cut back to them
// when the cache holds as many (every repetition after the first),
// else the missing ones prefilled in pieces of 512.
func (b *bencher) fill(n int) error {
	if n <= b.s.Len() {
		return b.s.Truncate(n)
	}
	for start := b.s.Len(); start < n; start += 512 {
		if b.ctx.Err() != nil {
			return interrupted
		}
		if _, err := b.s.Prefill(b.tokens[start:min(start+512, n)]); err != nil {
			return err
		}
	}
	return nil
}

// meanStddev returns the mean and the sample standard deviation (0 for
// one sample), as llama-bench reports them.
func meanStddev(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// modelLabel describes a model as llama-bench's first columns do: "llama
// 1.1B Q4_0", its tensors' size and its parameter count.
func modelLabel(m *model) (label, size, params string) {
	var n, bytes int64
	count := map[unit01.DType]int64{}
	for _, t := range m.file.Tensors {
		k := int64(1)
		for _, d := range t.Dims {
			k *= int64(d)
		}
		n += k
		if b, err := t.Bytes(); err == nil {
			bytes += int64(b)
		}
		if len(t.Dims) >= 2 {
			count[t.Type] += k
		}
	}
	arch, _ := m.file.String("general.architecture")
	sizeLabel, err := m.file.String("general.size_label")
	if err != nil {
		sizeLabel = strings.ReplaceAll(formatCount(n), " ", "")
		sizeLabel = strings.Replace(sizeLabel, ".00", "", 1)
	}
	ftype := ""
	if id, err := m.file.Uint("general.file_type"); err == nil {
		ftype = ftypeNames[id]
	}
	if ftype == "" {
		var best unit01.DType
		for t, k := range count {
			if k > count[best] {
				best = t
			}
		}
		ftype = best.String()
	}
	return fmt.Sprintf("%s %s %s", arch, sizeLabel, ftype), formatBytes(bytes), formatCount(n)
}
