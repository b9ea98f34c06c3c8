package main

import (
	"fmt"
	"runtime"

	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
)

// The context a model is loaded for costs memory in proportion to its
// length, allocated at load: llm checks that it fits before loading,
// because an allocation the system refuses kills a Go program (a "fatal
// error: out of memory" and a goroutine dump), it is not an error.

// maxThreads is the most threads llm takes (-t): llama.cpp's cap too
// (GGML_MAX_N_THREADS). Past the CPUs, threads only add scheduling.
const maxThreads = 512

// defaultThreads is -t's default: the CPUs, up to the cap.
func defaultThreads() int { return min(runtime.NumCPU(), maxThreads) }

// threadCount is the check of a -t value.
func threadCount(n int) string {
	if n < 1 || n > maxThreads {
		return fmt.Sprintf("want an integer in [1, %d] (llama.cpp's cap too)", maxThreads)
	}
	return ""
}

// maxCtx is the longest test bench takes (-p, -n): llama.cpp's n_ctx is a
// 32-bit count too. Memory runs out long before. -c has no such cap: the
// memory check refuses a context that does not fit with the figures.
const maxCtx = 1<<31 - 1

// contextSize is the check of a -c value.
func contextSize(n int) string {
	if n < 0 {
		return "want 0 (the model's context) or a count of tokens ≥ 1"
	}
	return ""
}

// tokenCount is the check of bench's -p and -n values.
func tokenCount(n int) string {
	if n < 0 || n > maxCtx {
		return fmt.Sprintf("want an integer in [0, %d]", maxCtx)
	}
	return ""
}

// footprint is the memory a context of n positions takes, by part, in
// bytes (float64: an absurd n must not overflow the sum).
type footprint struct {
	kv, scratch, rope float64
}

func (f footprint) total() float64 { return f.kv + f.scratch + f.rope }

// contextFootprint estimates what loading a model of config c for n
// positions with threads threads allocates besides the weights, mirroring
// the units' allocations: the KV cache (keys and values per layer, in the
// types of kv: unit07's rows for float32, unit08's Store otherwise) and a
// session's hidden states; unit05's RoPE tables (a cosine and
// a sine per position and pair) and its scratch arena (the hidden states,
// keys and values of a pass over n tokens, one block of 64 rows, and the
// attention scores of up to 64 threads' rows against n positions); and, for
// a mixture of experts, each layer's unit06 scratch for a block of rows
// (the router's logits, each row's k expert rows of input, gate, up and
// output, and the shared expert's rows).
func contextFootprint(c unit05.Config, e unit06.Config, n, threads int, kv cacheTypes) footprint {
	const rows = 64 // unit05's blockRows
	N, b := float64(n), float64(min(n, rows))
	parts := float64(min(threads, rows))
	kvDim, dim := float64(c.KVDim()), float64(c.Dim)
	arena := 4 * (N*(dim+2*kvDim) + b*(2*dim+2*float64(c.QDim())+2*float64(c.FFN)) + max(parts*b*N, 2*b*kvDim))
	if e.Experts > 0 {
		k := float64(e.Used)
		perLayer := b*float64(e.Experts) + b*k*(2*dim+2*float64(e.FFN)) + b*(2*float64(e.SharedFFN)+dim)
		arena += 4 * float64(c.Layers) * perLayer
	}
	return footprint{
		kv:      float64(c.Layers) * N * float64(kv.k.RowBytes(c.KVDim())+kv.v.RowBytes(c.KVDim())),
		scratch: arena + 4*N*dim + 4*float64(c.Vocab),
		rope:    4 * N * float64(c.HeadDim),
	}
}

// checkMemory refuses a context whose footprint is more than the memory
// available. what names the context for the message ("-c 4000000000"),
// flag the flag that lowers it.
func checkMemory(c unit05.Config, e unit06.Config, n, threads int, kv cacheTypes, what, flag string) error {
	need := contextFootprint(c, e, n, threads, kv)
	avail, source := availableMemory()
	if need.total() <= float64(avail) {
		return nil
	}
	return usagef("%s: a context of %d tokens needs %s (KV cache %s, scratch %s, RoPE tables %s), more than the %s available (%s): lower %s",
		what, n, formatBytesF(need.total()), formatBytesF(need.kv), formatBytesF(need.scratch), formatBytesF(need.rope),
		formatBytes(avail), source, flag)
}

// formatBytesF is formatBytes for a float64 count, which may exceed int64.
func formatBytesF(x float64) string {
	if x < 1<<62 {
		return formatBytes(int64(x))
	}
	return fmt.Sprintf("%.3g bytes", x)
}

// fallbackMemory is the memory llm assumes where it cannot read what is
// available: a context needing more is refused, a conservative rule (a
// machine with more memory is told so, and can use a shorter -c).
const (
	fallbackMemory = 64 << 30
	fallbackSource = "llm's limit where it cannot read the free memory"
)
