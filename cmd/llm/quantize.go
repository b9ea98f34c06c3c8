package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit09"
	"github.com/llmforge/forge/unit10"
)

var quantizeCommand = &command{
	name:     "quantize",
	synopsis: "[-t N] IN.gguf OUT.gguf TYPE",
	summary:  "rewrite a GGUF model with its weights in another type",
	setup:    setupQuantize,
	help: `
TYPE is f32, f16, q8_0, q4_0 or q4_k_m. Every weight matrix (a tensor of
2 or more dimensions) is dequantized to float32 and quantized again to
the type the rule below gives it; 1-D tensors (norms, biases) stay F32,
and a mixture of experts' routers (ffn_gate_inp) keep their type.
Metadata is copied, with general.file_type set to llama.cpp's id of TYPE.
OUT is written through a temporary file, so OUT may be IN.

` + typeRuleHelp + `

The quantizer is unit09's: Q8_0, Q4_0 and Q5_0 as ggml rounds them, the
K-quants with a simpler scale search than llama-quantize (valid blocks,
slightly larger error). Example:
  llm quantize tinyllama-f16.gguf tinyllama-q4_k_m.gguf q4_k_m`,
}

// typeRuleHelp documents fileType.plan, for quantize's and gen's help.
const typeRuleHelp = `Which type each tensor gets (llama.cpp's rule for these types):
  f32, f16, q8_0  every matrix in that type
  q4_0            Q4_0; output.weight Q6_K
  q4_k_m          Q4_K; output.weight Q6_K; attn_v and ffn_down Q6_K in the
                  layers llama.cpp gives more bits (the first and last
                  eighth, and every third layer between), Q4_K elsewhere
With tied embeddings (no output.weight), token_embd.weight is the output
and follows its rule. A type needs rows (ne[0]) that are a whole number of
its blocks: 256 for the K-quants, 32 for Q8_0, Q4_0, Q5_0. Where a row is
not, the tensor falls back as llama.cpp's does: Q4_K → Q5_0, Q6_K → Q8_0,
and a 32-block type → F16 (Qwen2.5 0.5B's rows of 896 are such a case).`

// A fileType is a target of quantize and gen.
type fileType struct {
	name     string
	id       uint32 // general.file_type: llama.cpp's llama_ftype
	matrix   unit01.DType
	embed    unit01.DType // token_embd.weight, when there is an output.weight
	output   unit01.DType // output.weight (or a tied token_embd.weight)
	moreBits bool         // attn_v and ffn_down in Q6_K where llama.cpp's use_more_bits says (Q4_K_M)
}

var fileTypes = []fileType{
	{name: "f32", id: 0, matrix: unit01.F32, embed: unit01.F32, output: unit01.F32},
	{name: "f16", id: 1, matrix: unit01.F16, embed: unit01.F16, output: unit01.F16},
	{name: "q8_0", id: 7, matrix: unit01.Q8_0, embed: unit01.Q8_0, output: unit01.Q8_0},
	{name: "q4_0", id: 2, matrix: unit01.Q4_0, embed: unit01.Q4_0, output: unit01.Q6_K},
	{name: "q4_k_m", id: 15, matrix: unit01.Q4_K, embed: unit01.Q4_K, output: unit01.Q6_K, moreBits: true},
}

func fileTypeNames() []string {
	var names []string
	for _, t := range fileTypes {
		names = append(names, t.name)
	}
	return names
}

func lookupFileType(name string) (fileType, bool) {
	for _, t := range fileTypes {
		if strings.EqualFold(name, t.name) {
			return t, true
		}
	}
	return fileType{}, false
}

// ftypeNames are llama.cpp's names of general.file_type values.
var ftypeNames = map[uint64]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
	11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
	17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
}

// useMoreBits is llama.cpp's choice of the layers whose attn_v and
// ffn_down get more bits in the _M mixes: the first and last eighth, and
// every third layer in between.
func useMoreBits(layer, layers int) bool {
	return layer < layers/8 || layer >= 7*layers/8 || (layer-layers/8)%3 == 2
}

// isDown reports whether a tensor is a down projection: the dense one, a
// mixture's stacked experts' or its shared expert's (llama.cpp's rule
// matches "ffn_down" anywhere in the name).
func isDown(name string) bool {
	for _, s := range []string{".ffn_down.weight", ".ffn_down_exps.weight", ".ffn_down_shexp.weight"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// layerOf returns N of a "blk.N." tensor name, or −1.
func layerOf(name string) int {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return -1
	}
	n, _, ok := strings.Cut(rest, ".")
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(n)
	if err != nil {
		return -1
	}
	return i
}

// layout is what the type rule needs to know about a model's tensors.
type layout struct {
	layers int  // blk.N.* count
	tied   bool // no output.weight: token_embd is the output
}

func layoutOf(infos []unit10.TensorInfo) layout {
	l := layout{tied: true}
	for _, t := range infos {
		l.layers = max(l.layers, layerOf(t.Name)+1)
		if t.Name == "output.weight" {
			l.tied = false
		}
	}
	return l
}

// plan returns the type tensor t gets in a file of type ft, and the type
// the rule wanted before a fallback for rows that do not fit its blocks.
func (ft fileType) plan(t unit10.TensorInfo, l layout) (got, wanted unit01.DType) {
	if len(t.Dims) < 2 {
		return unit01.F32, unit01.F32
	}
	name := t.Name
	switch {
	case strings.HasSuffix(name, ".ffn_gate_inp.weight"):
		// An expert router stays as it is, as llama.cpp's quantizer
		// leaves it: small, and its rounding would move the choice of
		// experts.
		return t.Type, t.Type
	case name == "output.weight" || (l.tied && name == "token_embd.weight"):
		wanted = ft.output
	case name == "token_embd.weight":
		wanted = ft.embed
	case ft.moreBits && (strings.HasSuffix(name, ".attn_v.weight") || isDown(name)) && useMoreBits(layerOf(name), l.layers):
		wanted = unit01.Q6_K
	default:
		wanted = ft.matrix
	}
	got = wanted
	for t.Dims[0]%uint64(got.BlockSize()) != 0 {
		switch got {
		case unit01.Q4_K:
			got = unit01.Q5_0
		case unit01.Q5_K, unit01.Q6_K:
			got = unit01.Q8_0
		default:
			got = unit01.F16
		}
	}
	return got, wanted
}

// fallbackNote says which tensors fell back to another type, or "".
func fallbackNote(infos []unit10.TensorInfo, ft fileType, l layout) string {
	counts := map[string]int{}
	for _, t := range infos {
		if got, wanted := ft.plan(t, l); got != wanted {
			counts[fmt.Sprintf("%v → %v (rows of %d)", wanted, got, t.Dims[0])]++
		}
	}
	if len(counts) == 0 {
		return ""
	}
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf("%d × %s", n, k))
	}
	sort.Strings(parts)
	return "rows not a whole number of blocks, tensors fall back as llama.cpp's do: " + strings.Join(parts, ", ")
}

// convert returns f's tensors in the given types: a view of the file's
// bytes where the type stays, else dequantized and quantized again, the
// rows of each tensor spread over threads goroutines.
func convert(e *env, f *unit10.File, types []unit01.DType, threads int) ([]unit10.Tensor, error) {
	tensors := unit10.Tensors(f)
	for i, t := range tensors {
		if types[i] != t.Type && !unit09.Supported(t.Type) {
			return nil, usagef("tensor %s is %v, a type this engine cannot read (it reads F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q4_K, Q5_K, Q6_K)", t.Name, t.Type)
		}
	}
	for i := range tensors {
		t := &tensors[i]
		if types[i] == t.Type {
			continue
		}
		e.progress.show("quantizing %d/%d %s %v → %v", i+1, len(tensors), t.Name, t.Type, types[i])
		data, err := requantize(t, types[i], threads)
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %w", t.Name, err)
		}
		t.Data, t.Type = data, types[i]
	}
	e.progress.clear()
	return tensors, nil
}

// requantize converts one tensor's rows to type to.
func requantize(t *unit10.Tensor, to unit01.DType, threads int) ([]byte, error) {
	cols := int(t.Dims[0])
	srb, drb := rowBytes(t.Type, cols), rowBytes(to, cols)
	if srb <= 0 || drb <= 0 {
		return nil, fmt.Errorf("rows of %d elements do not fit %v or %v", cols, t.Type, to)
	}
	rows := len(t.Data) / srb
	dst := make([]byte, rows*drb)
	workers := max(1, min(threads, rows))
	errs := make([]error, workers)
	panics := make([]any, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic (a unit still a stub) is raised again on the
			// caller's goroutine, where llm turns a TODO into one line.
			defer func() { panics[w] = recover() }()
			buf := make([]float32, cols)
			for r := w * rows / workers; r < (w+1)*rows/workers; r++ {
				if err := unit09.DequantizeRow(t.Type, buf, t.Data[r*srb:(r+1)*srb]); err != nil {
					errs[w] = err
					return
				}
				if err := unit09.QuantizeRow(to, dst[r*drb:(r+1)*drb], buf); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// rowBytes is the size of a row, or −1 if the type cannot hold it.
func rowBytes(t unit01.DType, cols int) int {
	n, err := t.RowBytes(cols)
	if err != nil {
		return -1
	}
	return n
}

// withFileType returns kvs with general.file_type (and, for quantized
// types, general.quantization_version 2, as llama-quantize writes) set.
func withFileType(kvs []unit10.KV, ft fileType) []unit10.KV {
	out := make([]unit10.KV, 0, len(kvs)+2)
	set := func(key string, v uint32) {
		kv := unit10.KV{Key: key, Type: unit10.TypeUint32, Value: v}
		for i := range out {
			if out[i].Key == key {
				out[i] = kv
				return
			}
		}
		out = append(out, kv)
	}
	out = append(out, kvs...)
	set("general.file_type", ft.id)
	if ft.matrix.Quantized() {
		set("general.quantization_version", 2)
	}
	return out
}

// convertFile writes the GGUF file in to out with its tensors in the types
// of ft, and returns the tensors written.
func convertFile(e *env, in, out string, ft fileType, threads int) ([]unit10.Tensor, error) {
	f, err := unit10.Open(in)
	if err != nil {
		return nil, badInput(err)
	}
	defer f.Close()
	l := layoutOf(f.Tensors)
	types := make([]unit01.DType, len(f.Tensors))
	for i, t := range f.Tensors {
		types[i], _ = ft.plan(t, l)
	}
	if note := fallbackNote(f.Tensors, ft, l); note != "" {
		e.progress.clear()
		fmt.Fprintf(e.stderr, "note: %s\n", note)
	}
	tensors, err := convert(e, f, types, threads)
	if err != nil {
		return nil, err
	}
	e.progress.show("writing %s...", out)
	err = writeAtomically(e.temps, out, func(w io.Writer) error { return unit10.Write(w, withFileType(f.KV, ft), tensors) })
	e.progress.clear()
	return tensors, err
}

type quantizeOptions struct {
	threads int
}

func setupQuantize(fs *flagSet) func(*env) error {
	o := &quantizeOptions{threads: defaultThreads()}
	fs.integer(&o.threads, "t,threads", "N", fmt.Sprintf("threads (default %d, the CPUs; at most %d)", defaultThreads(), maxThreads), threadCount)
	return func(e *env) error { return doQuantize(e, o) }
}

func doQuantize(e *env, o *quantizeOptions) error {
	if len(e.args) != 3 {
		return usagef("want IN.gguf OUT.gguf TYPE, got %d arguments", len(e.args))
	}
	in, out, typ := e.args[0], e.args[1], e.args[2]
	ft, ok := lookupFileType(typ)
	if !ok {
		return usagef("type %q: want one of %s", typ, strings.Join(fileTypeNames(), ", "))
	}
	if err := checkOutput(out); err != nil {
		return err
	}
	inSize := int64(-1)
	if st, err := os.Stat(in); err == nil {
		inSize = st.Size()
	}
	defer removeOnInterrupt(e)()
	start := time.Now()
	tensors, err := convertFile(e, in, out, ft, o.threads)
	if err != nil {
		return err
	}
	outSize := int64(-1)
	if st, err := os.Stat(out); err == nil {
		outSize = st.Size()
	}
	fmt.Fprintf(e.stderr, "llm quantize: wrote %s (%s, %d tensors): %s → %s in %.1f s\n",
		out, ft.name, len(tensors), formatBytes(inSize), formatBytes(outSize), time.Since(start).Seconds())
	return nil
}

// removeOnInterrupt makes Ctrl-C during a long write remove the temporary
// files of writeAtomically (named ".NAME.tmp-*") and exit with status 130,
// rather than leave them behind. The returned function undoes it.
func removeOnInterrupt(e *env) func() {
	c := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(c, os.Interrupt)
	go func() {
		select {
		case <-c:
			e.temps.removeAll()
			fmt.Fprintln(os.Stderr, "\ninterrupted")
			os.Exit(130)
		case <-done:
		}
	}()
	return func() { signal.Stop(c); close(done) }
}

// tempSet holds the temporary files being written.
type tempSet struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (s *tempSet) add(p string)    { s.mu.Lock(); s.paths[p] = true; s.mu.Unlock() }
func (s *tempSet) remove(p string) { s.mu.Lock(); delete(s.paths, p); s.mu.Unlock(); os.Remove(p) }
func (s *tempSet) removeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.paths {
		os.Remove(p)
	}
}
