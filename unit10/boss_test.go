package unit10

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// The boss "zero-copy load": a model file is mapped, not read. Opening a
// TinyLlama-shaped Q4_0 file (1.1B weights, 22 layers, width 2048, GQA
// 32/4, vocabulary 32000) and making it ready for its first token takes
// under 10% of the time it takes to read the file once, and it leaves the
// weights where they are: its anonymous memory (heap and private copies)
// grows by far less than the file.

// TestBoss10_ZeroCopyLoad checks the condition the figures depend on: every
// quantized weight of a loaded model is a view of the mapped file.
func TestBoss10_ZeroCopyLoad(t *testing.T) {
	m, err := Load(writeModel(t, tinySpec("llama", unit01.Q4_0, false)), 32, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := m.Model.Weights
	all := []unit05.Matrix{w.Embed, w.Output}
	for _, l := range w.Layers {
		all = append(all, l.Wq, l.Wk, l.Wv, l.Wo, l.Gate, l.Up, l.Down)
	}
	for i, mat := range all {
		q, ok := mat.(*unit09.QMatrix)
		if !ok {
			t.Fatalf("matrix %d of a Q4_0 model is a %T, want a *unit09.QMatrix over the file's bytes", i, mat)
		}
		if !inside(m.File.Data, q.Data) {
			t.Fatalf("matrix %d (%v) holds a copy of its weights, not a view of the mapped file", i, q.Type)
		}
	}
}

// tinyLlamaSpec is TinyLlama 1.1B's shape in Q4_0 (output in Q6_K, as real
// Q4_0 files have it), with random blocks for weights.
func tinyLlamaSpec(tb testing.TB) ModelSpec {
	v, err := vocabFile(filepath.Join("..", "unit04", "testdata", "ggml-vocab-phi-3.gguf"))
	if err != nil {
		tb.Fatal(err)
	}
	// Phi-3's first 32000 tokens are Llama 2's vocabulary, TinyLlama's.
	v.Tokens, v.Scores, v.Types = v.Tokens[:32000], v.Scores[:32000], v.Types[:32000]
	v.BOS, v.EOS, v.UNK = 1, 2, 0 // <s>, </s>, <unk>, as in Llama 2
	c := unit05.Config{Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4, HeadDim: 64, FFN: 5632, MaxSeq: 2048,
		RopeBase: 10000, RMSEps: 1e-5}
	return ModelSpec{Name: "tinyllama-1.1b-shaped", Arch: "llama", Config: c, Vocab: v,
		Matrix: unit01.Q4_0, Embed: unit01.Q4_0, Output: unit01.Q6_K, Seed: 11, RandomBlocks: true}
}

// bossFile writes the boss's model once into the temporary folder and
// reuses it while its size is right (several runs measure it). The name
// carries a version: change it when the spec changes.
func bossFile(b *testing.B) string {
	path := filepath.Join(os.TempDir(), "forge-boss10-tinyllama-q4_0-v1.gguf")
	if fi, err := os.Stat(path); err == nil && fi.Size() > 600<<20 {
		return path
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := Generate(w, tinyLlamaSpec(b)); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	return path
}

// anonBytes is the process's resident anonymous memory (RssAnon in
// /proc/self/status): the heap and every other private copy. A copy of the
// weights shows here; the file's own pages do not, as they are the page
// cache's and shared. (Total RSS would count them once touched, and a
// recent kernel maps a whole large folio of the page cache, up to 2 MiB,
// on the first touch of a small norm: 90 MB of "growth" for TinyLlama's
// 44 norm vectors, none of it a copy.)
func anonBytes(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("resident memory is measured on Linux only")
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("/proc/self/status: %q: %v", line, err)
			}
			return kb << 10
		}
	}
	b.Skip("this kernel does not report RssAnon")
	return 0
}

func BenchmarkBoss10_ZeroCopyLoad(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the boss measures resident memory through /proc")
	}
	path := bossFile(b)
	fi, _ := os.Stat(path)
	buf := make([]byte, 1<<20)
	read := func() { // the whole file, once, into a reused buffer
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	load := func() {
		m, err := Load(path, 512, nil)
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
	// fresh returns the heap's free memory to the operating system, as in a
	// process that loads a model once: the scratch a model allocates then
	// comes from new zero pages, not from recycled ones the runtime must
	// clear (which a benchmark loading over and over would otherwise time).
	fresh := func() {
		runtime.GC()
		debug.FreeOSMemory()
	}
	read() // the file in the page cache, as after any first use
	var growth float64
	var loadTime time.Duration
	var ratios []float64
	for b.Loop() {
		ratios = ratios[:0]
		for range 5 { // read and load back to back, the median of their ratios
			fresh()
			tr := bosses.Seconds(read)
			fresh()
			tl := bosses.Seconds(load)
			ratios = append(ratios, tl/tr)
		}
		fresh()
		before := anonBytes(b)
		start := time.Now()
		m, err := Load(path, 512, nil)
		loadTime = time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		growth = float64(anonBytes(b) - before)
		m.Close()
	}
	ratio := bosses.Median(ratios)
	b.ReportMetric(100*ratio, "load-%")
	b.ReportMetric(100*growth/float64(fi.Size()), "anon-%")
	b.ReportMetric(float64(loadTime.Microseconds())/1000, "load-ms")
	b.ReportMetric(float64(fi.Size())/1e9, "file-GB")

}
