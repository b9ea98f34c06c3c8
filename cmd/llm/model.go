package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/llmforge/forge/internal/gpu"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit10"
)

// defaultCtx caps the context run and eval allocate when -c is not given:
// min(defaultCtx, the model's context_length), as llama.cpp's tools do
// (Llama 3.2's 131072 positions would need gigabytes of KV cache).
const defaultCtx = 4096

// ctxUnset is the -c value that means "the default".
const ctxUnset = -1

// model is a loaded model with the thread pool its products run on.
type model struct {
	loaded   *unit10.Model
	file     *unit10.File
	net      *unit05.Model
	tok      *unit04.Tokenizer
	pool     *unit03.Pool // nil when the model runs on another's pool
	trainCtx int          // the model's context_length
	dev      *gpu.Device  // the device its offloaded layers run on (--device cuda), or nil
}

// cacheTypes are the KV cache's key and value types (-ctk, -ctv).
type cacheTypes struct{ k, v unit08.CacheType }

// defaultCache is the cache llm keeps without -ctk/-ctv: F16, as
// llama.cpp's, chosen by measurement (docs/engine.md, "KV cache types"):
// half the memory of F32 and faster decode steps at depth, at the same
// prompt speed.
var defaultCache = cacheTypes{unit08.CacheF16, unit08.CacheF16}

// cacheFlags declares -ctk and -ctv, llama.cpp's names and spellings.
func cacheFlags(fs *flagSet, c *cacheTypes) {
	for _, f := range []struct {
		names, what string
		p           *unit08.CacheType
	}{{"ctk,cache-type-k", "keys", &c.k}, {"ctv,cache-type-v", "values", &c.v}} {
		fs.add(f.names, "TYPE", fmt.Sprintf("the KV cache's type for %s: f32, f16 or q8_0 (default %v)", f.what, *f.p), false, func(v string) error {
			t, err := unit08.ParseCacheType(v)
			if err != nil {
				if _, ok := map[string]bool{"bf16": true, "q4_0": true, "q4_1": true, "iq4_nl": true, "q5_0": true, "q5_1": true}[strings.ToLower(v)]; ok {
					return fmt.Errorf("llama.cpp has this type, llm does not: want f32, f16 or q8_0")
				}
				return fmt.Errorf("want f32, f16 or q8_0")
			}
			*f.p = t
			return nil
		})
	}
}

// loadModel loads the GGUF model at path for a context of ctx positions
// (ctxUnset: min(4096, the model's context_length); 0: the model's) with
// a pool of threads and a KV cache of types kv. flag is the flag that sets
// the context, for messages: "-c", or bench's "-p/-n". Before anything is
// allocated for the context, its memory is compared with the memory
// available (checkMemory); a -c beyond the model's trained context gets a
// warning. Its errors are bad input (exit status 2).
func loadModel(e *env, path string, ctx, threads int, flag string, kv cacheTypes) (*model, error) {
	return loadModelOn(e, path, ctx, threads, flag, kv, nil)
}

// loadModelOn is loadModel on the threads of pool, which the model then
// shares and does not close; nil makes the model a pool of its own. A
// draft model runs on its target's pool: the two take turns, and a second
// pool's idle workers would poll while the other model works.
func loadModelOn(e *env, path string, ctx, threads int, flag string, kv cacheTypes, pool *unit03.Pool) (*model, error) {
	if path == "" {
		return nil, usagef("no model: give -m MODEL.gguf")
	}
	size := int64(-1)
	if st, err := os.Stat(path); err == nil {
		size = st.Size()
	}
	e.progress.show("loading %s (%s)...", filepath.Base(path), formatBytes(size))
	cfg, experts, err := modelConfig(path)
	if err != nil {
		return nil, err
	}
	trainCtx := cfg.MaxSeq
	what := flag
	switch {
	case ctx == ctxUnset:
		ctx, what = min(defaultCtx, trainCtx), "the default context (no -c)"
	case ctx == 0:
		ctx, what = trainCtx, "-c 0 (the model's context)"
	case flag == "-c":
		what = fmt.Sprintf("-c %d", ctx)
	}
	if q8 := unit08.CacheQ8_0; (kv.k == q8 || kv.v == q8) && cfg.HeadDim%unit08.Q8Block != 0 {
		name := "-ctk"
		if kv.k != q8 {
			name = "-ctv"
		}
		return nil, usagef("%s q8_0: this model's heads are %d wide, and a q8_0 cache needs a multiple of %d: use f16", name, cfg.HeadDim, unit08.Q8Block)
	}
	if err := checkMemory(cfg, experts, ctx, threads, kv, what, flag); err != nil {
		return nil, err
	}
	if flag == "-c" && ctx > trainCtx { // as llama.cpp warns: allowed, but the model never saw such positions
		e.progress.clear()
		fmt.Fprintf(e.stderr, "llm %s: warning: -c %d is more than the %d tokens the model was trained on: past them its output degrades\n", e.flags.cmd, ctx, trainCtx)
	}
	own := pool == nil
	if own {
		pool = unit03.NewPool(threads)
	}
	closePool := func() {
		if own {
			pool.Close()
		}
	}
	m, err := unit10.Load(path, ctx, pool)
	if err != nil {
		closePool()
		return nil, badInput(err)
	}
	// Flash attention (unit08) for every prompt and decode step: a few
	// tiles of scratch per thread in place of unit05's score rows. A
	// float32 cache is unit07's; any other type is unit08's Store.
	if kv.k == unit08.CacheF32 && kv.v == unit08.CacheF32 {
		_, err = unit08.Use(m.Model)
	} else {
		_, _, err = unit08.UseCache(m.Model, kv.k, kv.v)
	}
	if err != nil {
		m.Close()
		closePool()
		return nil, err
	}
	e.progress.clear()
	md := &model{loaded: m, file: m.File, net: m.Model, tok: m.Tokenizer, trainCtx: trainCtx}
	if own {
		md.pool = pool
	}
	return md, nil
}

// modelConfig reads a model's hyper-parameters, and its experts' (none
// for a dense model), checking on the way that the file is a model this
// engine loads. MaxSeq is its context_length.
func modelConfig(path string) (unit05.Config, unit06.Config, error) {
	f, err := unit10.Open(path)
	if err != nil {
		return unit05.Config{}, unit06.Config{}, badInput(err)
	}
	defer f.Close()
	c, err := unit10.LoadConfig(f, 0)
	if err != nil {
		return c, unit06.Config{}, badInput(err)
	}
	e, err := unit10.LoadExperts(f, c)
	if err != nil {
		return c, e, badInput(err)
	}
	return c, e, nil
}

func (m *model) Close() {
	m.loaded.Close()
	if m.pool != nil {
		m.pool.Close()
	}
	if m.dev != nil {
		m.dev.Close()
	}
}

// vocab is a tokenizer read from any GGUF file with tokenizer.ggml.*
// metadata: a model, or a vocabulary-only file.
type vocab struct {
	*unit04.Tokenizer
	pieces []string // each token's text as the vocabulary stores it
}

func loadVocab(path string) (*vocab, error) {
	if path == "" {
		return nil, usagef("no model: give -m MODEL.gguf (any GGUF file with a vocabulary)")
	}
	f, err := unit10.Open(path)
	if err != nil {
		return nil, badInput(err)
	}
	defer f.Close()
	v, err := unit10.LoadVocab(f)
	if err != nil {
		return nil, badInput(err)
	}
	tok, err := unit04.New(v)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %w", path, err))
	}
	return &vocab{Tokenizer: tok, pieces: v.Tokens}, nil
}

// modelVocab is the vocab of a loaded model.
func modelVocab(m *model) *vocab {
	pieces, _ := m.file.Strings("tokenizer.ggml.tokens")
	return &vocab{Tokenizer: m.tok, pieces: pieces}
}

// piece is a token's text for display: the bytes it stands for, or for a
// control token (which stands for none) its name, such as "<s>".
func (v *vocab) piece(id int) string {
	if b := v.TokenBytes(id); len(b) > 0 {
		return string(b)
	}
	if id >= 0 && id < len(v.pieces) {
		return v.pieces[id]
	}
	return ""
}

// text is the text the vocabulary stores for token id ("<s>" for a
// SentencePiece BOS), or "" for −1 (none) and ids outside it.
func (v *vocab) text(id int) string {
	if id >= 0 && id < len(v.pieces) {
		return v.pieces[id]
	}
	return ""
}

// quote shows a token's text in double quotes with Go's escapes, so
// spaces, newlines and broken UTF-8 are visible.
func quote(s string) string { return strconv.Quote(s) }

// stopTokens are the tokens that end generation: the vocabulary's EOS and,
// when the file names them, its end-of-turn and end-of-message tokens
// (Llama 3's <|eot_id|> and <|eom_id|>), as llama.cpp stops at any of them.
func stopTokens(m *model) []int {
	var ids []int
	if eos := m.tok.EOS(); eos >= 0 {
		ids = append(ids, eos)
	}
	for _, key := range []string{"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"} {
		if id, err := m.file.Uint(key); err == nil && id < uint64(m.tok.VocabSize()) && !slices.Contains(ids, int(id)) {
			ids = append(ids, int(id))
		}
	}
	return ids
}

// modulePath is the module whose checkout holds the vocabulary files.
const modulePath = "github.com/llmforge/forge"

// findRepoFile returns the path of rel in the Forge repository, found by
// walking up from the executable's directory and from the working
// directory to the go.mod of module github.com/llmforge/forge.
func findRepoFile(rel string) (string, error) {
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if isForgeRoot(dir) {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if _, err := os.Stat(p); err == nil {
					return p, nil
				}
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	return "", fmt.Errorf("cannot find %s of the Forge repository", rel)
}

// isForgeRoot reports whether dir holds the go.mod of the Forge module.
func isForgeRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// checkOutput refuses an output path that cannot be written: a directory,
// or a file in a directory that does not exist.
func checkOutput(path string) error {
	if path == "" {
		return usagef("no output: give -o FILE")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s is a directory", path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usagef("%s: directory %s does not exist", path, filepath.Dir(path))
	}
	return nil
}

// writeAtomically writes a file through a temporary file in the same
// directory, renamed over path only when write succeeded: a failed or
// interrupted write leaves no half-written model behind.
func writeAtomically(temps *tempSet, path string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	temps.add(tmp.Name())
	defer temps.remove(tmp.Name()) // fails harmlessly once renamed
	bw := bufio.NewWriterSize(tmp, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp's 0600 is for secrets; a model is not one
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// formatBytes is a size as llama.cpp prints them: "606.53 MiB".
func formatBytes(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.2f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n < 1<<40:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.2f TiB", float64(n)/(1<<40))
}

// formatCount is a parameter count: "1.10 B", "25.63 M", "4.10 K".
func formatCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f B", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.2f K", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}

// progress shows one line of progress on stderr, rewritten in place, when
// stderr is a terminal; elsewhere (a pipe, a log, a test) it shows nothing.
type progress struct {
	w     io.Writer
	on    bool
	width int // of the line shown, 0 if none
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: ok && isTerminal(f.Fd())}
}

func (p *progress) show(format string, args ...any) {
	if !p.on {
		return
	}
	s := fmt.Sprintf(format, args...)
	n := utf8.RuneCountInString(s)
	fmt.Fprintf(p.w, "\r%s%s", s, strings.Repeat(" ", max(p.width-n, 0)))
	p.width = n
}

// clear removes the line shown, if any.
func (p *progress) clear() {
	if !p.on || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}
