package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
	"github.com/llmforge/forge/unit12"
)

var runCommand = &command{
	name:     "run",
	synopsis: "-m MODEL.gguf -p PROMPT [flags]",
	summary:  "generate text from a prompt, streamed to stdout, with llama.cpp's sampling flags",
	setup:    setupRun,
	help: `
The prompt is tokenized as llama.cpp does: BOS first when the vocabulary
asks for it, and special tokens written in the text (<|im_start|>, <s>)
recognised unless --no-parse-special. Generation stops at the model's EOS
(and end-of-turn token, if the file names one) unless --ignore-eos, after
-n tokens, at a --reverse-prompt, or when the context is full. A line of
statistics goes to stderr; Ctrl-C stops generation (exit status 130).

Speculative decoding (unit12): --model-draft FILE, a smaller model with the
same vocabulary (often the same model, quantized further), drafts up to
--draft-max tokens that the model verifies in one pass; --lookup drafts
what followed the last earlier appearance of the text's last 2 to 4
tokens, with no second model. The output is distributed exactly as
without a drafter (at --temp 0, the same tokens, up to float rounding);
the statistics line adds the drafted tokens accepted and the tokens each
pass of the model yielded.

With --device cuda, the last -ngl N layers (default: all) run their
matrix products (f32, f16, q8_0 and q4_0 weights) and their attention on
an NVIDIA GPU, through its driver; a line on stderr says what went there
and what stayed on the CPU (docs/engine.md, "On a GPU").

With --json nothing is streamed: one JSON object goes to stdout,
  {"prompt_tokens": [...], "tokens": [...], "text": "...", "stop": "stop",
   "seed": 42, "timings": {"prompt_ms": ..., "prompt_tps": ...,
   "gen_ms": ..., "gen_tps": ...}}
(and with a drafter "speculative": {"drafter": "model", "draft_max": 3,
 "passes": ..., "drafted": ..., "accepted": ..., "rejected": ...,
 "acceptance": ..., "tokens_per_pass": ...})
with stop one of stop (EOS or a reverse prompt), length (-n), context,
canceled. --temp 0 is greedy: the same tokens as llama.cpp's greedy
decoding on the same model.

Example:
  llm run -m tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf -n 64 --temp 0 \
    -p $'<|user|>\nName three colours.</s>\n<|assistant|>\n'`,
}

type runOptions struct {
	model, prompt, file string
	n                   int
	params              unit11.Params
	seed                int64 // −1: random
	ctx, threads        int
	cache               cacheTypes
	stops               []string
	ignoreEOS, json     bool
	noDisplayPrompt     bool
	noParseSpecial      bool
	spec                specOptions
	device              deviceOptions
}

func setupRun(fs *flagSet) func(*env) error {
	o := &runOptions{n: 128, params: unit11.DefaultParams(), seed: -1, ctx: ctxUnset, threads: defaultThreads(), cache: defaultCache}
	d := unit11.DefaultParams()
	fs.str(&o.model, "m,model", "FILE", "the model, a GGUF file")
	fs.str(&o.prompt, "p,prompt", "TEXT", "the prompt")
	fs.str(&o.file, "f,file", "FILE", "read the prompt from a file")
	fs.integer(&o.n, "n,n-predict", "N", "tokens to generate; -1: until EOS or the context is full (default 128)", func(n int) string {
		if n == 0 || n < -1 {
			return "want -1 (until EOS or the context is full) or a count ≥ 1"
		}
		return ""
	})
	samplingFlags(fs, &o.params, d)
	fs.add("s,seed", "N", "the sampler's seed; -1: a random one, printed (default -1)", false, func(v string) error {
		if v == "-1" {
			o.seed = -1
			return nil
		}
		s, err := strconv.ParseUint(v, 10, 63)
		if err != nil {
			return fmt.Errorf("want -1 (random) or an integer in [0, 2^63)")
		}
		o.seed = int64(s)
		return nil
	})
	contextFlags(fs, &o.ctx, &o.threads)
	cacheFlags(fs, &o.cache)
	fs.strs(&o.stops, "r,reverse-prompt", "TEXT", "stop when the text contains TEXT (repeatable)")
	fs.boolean(&o.ignoreEOS, "ignore-eos", "do not stop at the end-of-sequence token")
	fs.boolean(&o.noDisplayPrompt, "no-display-prompt", "do not print the prompt before the generated text")
	fs.boolean(&o.noParseSpecial, "no-parse-special", "treat special tokens written in the prompt as plain text")
	fs.boolean(&o.json, "json", "print one JSON object with tokens, text, seed and timings instead of streaming")
	specFlags(fs, &o.spec)
	deviceFlags(fs, &o.device)
	return func(e *env) error { return doRun(e, o) }
}

// samplingFlags declares llama.cpp's sampling flags, with their defaults.
func samplingFlags(fs *flagSet, p *unit11.Params, d unit11.Params) {
	fs.float(&p.Temperature, "temp", "T", fmt.Sprintf("temperature; 0 is greedy (default %g)", d.Temperature), func(x float64) string {
		if x < 0 {
			return "want a number ≥ 0 (0 is greedy)"
		}
		return ""
	})
	fs.integer(&p.TopK, "top-k", "K", fmt.Sprintf("keep the K most likely tokens; 0 keeps all (default %d)", d.TopK), atLeast(0))
	fs.float(&p.TopP, "top-p", "P", fmt.Sprintf("keep the smallest set of tokens of probability P; 1 is off (default %g)", d.TopP), inUnit)
	fs.float(&p.MinP, "min-p", "P", fmt.Sprintf("drop tokens less likely than P times the best; 0 is off (default %g)", d.MinP), inUnit)
	fs.float(&p.RepeatPenalty, "repeat-penalty", "R", fmt.Sprintf("penalise repeated tokens; 1 is off (default %g)", d.RepeatPenalty), func(x float64) string {
		if x <= 0 {
			return "want a number > 0 (1 is off)"
		}
		return ""
	})
	fs.integer(&p.PenaltyLastN, "repeat-last-n", "N", fmt.Sprintf("the penalties look at the last N tokens; 0 none, -1 all (default %d)", d.PenaltyLastN), func(n int) string {
		if n < -1 {
			return "want -1 (all), 0 (none) or a count"
		}
		return ""
	})
	fs.float(&p.FrequencyPenalty, "frequency-penalty", "F", "subtract F × count from a seen token's logit (default 0)", anyFloat)
	fs.float(&p.PresencePenalty, "presence-penalty", "P", "subtract P from a seen token's logit (default 0)", anyFloat)
}

// contextFlags declares -c and -t.
func contextFlags(fs *flagSet, ctx, threads *int) {
	fs.integer(ctx, "c,ctx-size", "N", fmt.Sprintf("context size in tokens; 0: the model's (default: the model's, at most %d)", defaultCtx), contextSize)
	fs.integer(threads, "t,threads", "N", fmt.Sprintf("threads (default %d, the CPUs; at most %d)", defaultThreads(), maxThreads), threadCount)
}

// promptText returns the prompt of -p or -f.
func promptText(prompt, file string, givenP bool) (string, error) {
	switch {
	case givenP && file != "":
		return "", usagef("give -p PROMPT or -f FILE, not both")
	case file != "":
		return readPrompt(file)
	case !givenP:
		return "", usagef("no prompt: give -p PROMPT or -f FILE")
	}
	return prompt, nil
}

// maxPromptBytes bounds -f: a prompt is text for a context of tokens, and
// a file that never ends (/dev/zero) must not fill the memory first.
const maxPromptBytes = 64 << 20

// readPrompt reads the prompt file of -f, at most maxPromptBytes. Pipes
// are fine (-f <(echo hi)): the limit is on what is read, not the size.
func readPrompt(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", badInput(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPromptBytes+1))
	switch {
	case err != nil:
		return "", badInput(err)
	case len(b) > maxPromptBytes:
		return "", usagef("-f %s: more than %s, too long for a prompt", path, formatBytes(maxPromptBytes))
	}
	return string(b), nil
}

type runJSON struct {
	PromptTokens []int       `json:"prompt_tokens"`
	Tokens       []int       `json:"tokens"`
	Text         string      `json:"text"`
	Stop         string      `json:"stop"`
	Seed         uint64      `json:"seed"`
	Timings      timingsJSON `json:"timings"`
	Speculative  *specJSON   `json:"speculative,omitempty"`
}

type timingsJSON struct {
	PromptMS  float64 `json:"prompt_ms"`
	PromptTPS float64 `json:"prompt_tps"`
	GenMS     float64 `json:"gen_ms"`
	GenTPS    float64 `json:"gen_tps"`
}

func doRun(e *env, o *runOptions) error {
	if len(e.args) > 0 {
		return usagef("unexpected argument %q (the prompt goes after -p)", e.args[0])
	}
	if o.model == "" {
		return usagef("no model: give -m MODEL.gguf")
	}
	prompt, err := promptText(o.prompt, o.file, e.given("p"))
	if err != nil {
		return err
	}
	params := o.params
	if o.seed >= 0 {
		params.Seed = uint64(o.seed)
	} else {
		params.Seed = uint64(rand.Uint32()) // 32 bits, like llama.cpp's: easy to retype
	}
	if err := params.Validate(); err != nil {
		return usagef("%v", err)
	}
	spec, err := o.spec.on(e)
	if err != nil {
		return err
	}
	m, err := o.device.load(e, o.model, o.ctx, o.threads, "-c", o.cache)
	if err != nil {
		return err
	}
	defer m.Close()
	ids := m.tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true, ParseSpecial: !o.noParseSpecial})
	if len(ids) == 0 {
		return usagef("the prompt is empty and the vocabulary adds no BOS: give a prompt")
	}
	if c := m.net.Config.MaxSeq; len(ids) > c {
		return usagef("the prompt is %d tokens, more than the context of %d: raise -c (the model's context is %d)", len(ids), c, m.trainCtx)
	}
	smp, err := unit11.NewSampler(m.net.Config.Vocab, params)
	if err != nil {
		return usagef("%v", err)
	}
	opt := unit11.Options{MaxTokens: max(o.n, 0)}
	if !o.ignoreEOS {
		opt.StopTokens = stopTokens(m)
	}
	var drafter unit12.Drafter // loaded before any output: a bad draft is an error, not a half-written answer
	if spec {
		d, dm, err := o.spec.drafter(e, m, m.net.Config.MaxSeq, o.threads, o.cache, params)
		if err != nil {
			return err
		}
		if dm != nil {
			defer dm.Close()
		}
		drafter = d
	}

	ctx, stop := withSignal(e.ctx)
	defer stop()

	var out textOut
	emit := func(string) error { return nil }
	if !o.json {
		out.w = e.stdout
		if !o.noDisplayPrompt {
			if err := out.write(prompt); err != nil {
				return err
			}
		}
		emit = out.write
	}
	var res unit11.Result
	var specRes *specJSON
	if spec {
		r, err2 := runSpeculative(ctx, unit07.NewSession(m.net), smp, drafter, m.tok, ids, o.stops, unit12.Options{Options: opt, Draft: o.spec.draftMax, MinDraft: o.spec.draftMin}, emit)
		res, err, specRes = r.Result, err2, o.spec.report(r)
	} else {
		res, err = unit11.Run(ctx, unit07.NewSession(m.net), smp, m.tok, ids, o.stops, opt, emit)
	}
	canceled := res.Stop == unit11.StopCanceled
	if err != nil && !canceled {
		out.endLine()
		return err
	}
	t := timings(len(ids), len(res.Tokens), res)
	if o.json {
		if res.Tokens == nil {
			res.Tokens = []int{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(runJSON{PromptTokens: ids, Tokens: res.Tokens, Text: res.Text, Stop: res.Stop.String(), Seed: params.Seed, Timings: t, Speculative: specRes}); err != nil {
			return err
		}
	} else {
		out.endLine()
		draft := ""
		if specRes != nil {
			draft = specRes.line()
		}
		fmt.Fprintf(e.stderr, "prompt: %s, %.2f tok/s | generated: %s, %.2f tok/s%s | stop: %s | seed: %d\n",
			plural(len(ids), "token"), t.PromptTPS, plural(len(res.Tokens), "token"), t.GenTPS, draft, res.Stop, params.Seed)
	}
	if canceled {
		return interrupted
	}
	return nil
}

// timings are a generation's figures in milliseconds and tokens per second.
func timings(prompt, gen int, res unit11.Result) timingsJSON {
	tps := func(n int, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	return timingsJSON{
		PromptMS:  float64(res.PromptTime.Microseconds()) / 1e3,
		PromptTPS: tps(prompt, res.PromptTime),
		GenMS:     float64(res.GenTime.Microseconds()) / 1e3,
		GenTPS:    tps(gen, res.GenTime),
	}
}

// textOut streams text to stdout and remembers whether the last piece
// ended its line.
type textOut struct {
	w       io.Writer
	pending bool // text was written since the last newline
}

func (t *textOut) write(s string) error {
	if s == "" || t.w == nil {
		return nil
	}
	t.pending = s[len(s)-1] != '\n'
	_, err := io.WriteString(t.w, s)
	return err
}

// endLine ends the output with a newline, if it needs one.
func (t *textOut) endLine() {
	if t.pending {
		io.WriteString(t.w, "\n")
		t.pending = false
	}
}

// withSignal returns ctx canceled also by Ctrl-C. Once it is canceled, a
// second Ctrl-C kills the program at once.
func withSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	go func() { <-ctx.Done(); stop() }()
	return ctx, stop
}

// plural is "1 token", "2 tokens".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
