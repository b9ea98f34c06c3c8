package unit07

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// The measurements behind the figures of docs/unit07.md. They are not
// graded (the grader runs TestC*, TestBoss* and BenchmarkBoss* only): run
// them on the reference with
//
//	make measure UNIT=07                       # all of them
//	make measure UNIT=07 BENCH=Measure7_Step   # one
//
// which is go test -overlay "$(go run ./cmd/forge overlay --impl ref)"
// -run '^$' -bench Measure ./unit07. Each uses the boss's benchConfig model
// (13.4 million weights, 53.5 MB read per decode step) on one thread unless
// its name says otherwise. Timings depend on the machine and on what else
// it runs; ns/op is the time of one call, and ms/op or tok/s say the same
// in the units the text uses.

// 7.1's "untouched memory is free": a cache of Llama 3.2 1B's shape at a
// 16,384-token context (16 layers, KVDim 512: 1 GiB), the time to make it
// and the resident memory it adds, then the memory that writing 1,024
// positions in every layer adds. It is measured once per process, and
// first (it is the first benchmark of the file): memory the process got
// back from an earlier allocation is already resident, and Go must clear it.
// Linux only (it reads /proc/self/statm).
func BenchmarkMeasure7_CacheMemory(b *testing.B) {
	if _, err := residentBytes(); err != nil {
		b.Skipf("no resident memory figure on this system: %v", err)
	}
	cacheMemory.Do(func() {
		runtime.GC()
		r0, _ := residentBytes()
		start := time.Now()
		c := NewCache(16, 16384, 512)
		cacheMemory.makeMS = time.Since(start).Seconds() * 1e3
		r1, _ := residentBytes()
		for l := range 16 {
			k, v := c.Keys(l), c.Values(l)
			for p := range 1024 {
				fill(k.Row(p), 1)
				fill(v.Row(p), 1)
			}
		}
		r2, _ := residentBytes()
		cacheMemory.afterMake, cacheMemory.afterWrite = float64(r1-r0)/1e6, float64(r2-r1)/1e6
		cacheMemory.gib = float64(c.Bytes()) / (1 << 30)
	})
	for range b.N {
	}
	b.ReportMetric(cacheMemory.gib, "GiB-cache")
	b.ReportMetric(cacheMemory.makeMS, "ms-to-make")
	b.ReportMetric(cacheMemory.afterMake, "MB-resident-after-make")
	b.ReportMetric(cacheMemory.afterWrite, "MB-resident-after-1024-positions")
}

var cacheMemory struct {
	sync.Once
	makeMS, afterMake, afterWrite, gib float64
}

// measureSession returns a session on the boss's model with the first 513
// positions of tokens prefilled, and the tokens.
func measureSession(b *testing.B, threads int) (*Session, []int) {
	c := benchConfig
	var p *unit03.Pool
	if threads > 1 {
		p = unit03.NewPool(threads)
		b.Cleanup(p.Close)
	}
	s := NewSession(newModel(b, c, 7, p))
	tokens := testTokens(8, c.MaxSeq, c.Vocab)
	if _, err := s.Prefill(tokens[:513]); err != nil {
		b.Fatal(err)
	}
	return s, tokens
}

// moveTo sets the cache's length to pos: the prefill wrote every position
// up to 512, so any length up to 513 holds real keys and values.
func moveTo(s *Session, pos int) {
	if s.Len() > pos {
		_ = s.Truncate(pos)
	} else {
		_ = s.Cache.Advance(pos - s.Len())
	}
}

// reportTime reports the time per call in milliseconds and tokens per
// second for n tokens a call.
func reportTime(b *testing.B, start time.Time, n int) {
	per := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(per*1e3, "ms/op")
	b.ReportMetric(float64(n)/per, "tok/s")
}

// The table "Measured" of 7.2 (Step rows) and the introduction's 2.6 ms;
// threads=2 is the paragraph on two threads.
func BenchmarkMeasure7_Step(b *testing.B) {
	for _, threads := range []int{1, 2} {
		for _, pos := range []int{0, 256, 512} {
			b.Run(fmt.Sprintf("threads=%d/pos=%d", threads, pos), func(b *testing.B) {
				s, tokens := measureSession(b, threads)
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					moveTo(s, pos)
					_, _ = s.Step(tokens[pos])
				}
				reportTime(b, start, 1)
			})
		}
	}
}

// The introduction's "about 110 ms without" the cache: the token after a
// 256-token context, recomputed with a Forward over all 257.
func BenchmarkMeasure7_Recompute(b *testing.B) {
	c := benchConfig
	m := newModel(b, c, 7, nil)
	tokens := testTokens(8, 257, c.Vocab)
	logits := unit03.NewMat(len(tokens), c.Vocab)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		_ = m.Forward(logits, tokens)
	}
	reportTime(b, start, 1)
}

// The table "Measured" of 7.2, Prefill rows: a prompt of T tokens into an
// empty cache.
func BenchmarkMeasure7_Prefill(b *testing.B) {
	for _, T := range []int{2, 8, 32, 128, 512} {
		b.Run(fmt.Sprintf("T=%d", T), func(b *testing.B) {
			s, tokens := measureSession(b, 1)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				s.Reset()
				_, _ = s.Prefill(tokens[:T])
			}
			reportTime(b, start, T)
		})
	}
}

// "Decode is flat, apart from attention": unit05's Attention alone, one
// query row over the cache at pos, all 4 layers.
func BenchmarkMeasure7_Attention(b *testing.B) {
	c := benchConfig
	s, _ := measureSession(b, 1)
	q, out := unit03.NewMat(1, c.QDim()), unit03.NewMat(1, c.QDim())
	scores := make([]float32, c.MaxSeq)
	for _, pos := range []int{32, 128, 256, 512} {
		b.Run(fmt.Sprintf("pos=%d", pos), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				for l := range c.Layers {
					k, v := s.Cache.Keys(l), s.Cache.Values(l)
					unit05.Attention(out, q, k.Block(0, pos+1, 0, k.Cols), v.Block(0, pos+1, 0, v.Cols), c.Heads, c.KVHeads, pos, scores)
				}
			}
			per := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(per*1e3, "ms/op")
			b.ReportMetric(per*1e6/float64(pos+1), "µs/position")
		})
	}
}

// The chunk table of 7.3: a 512-token prompt with PrefillChunked.
func BenchmarkMeasure7_Chunked(b *testing.B) {
	for _, chunk := range []int{512, 128, 64, 16, 1} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			s, tokens := measureSession(b, 1)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				s.Reset()
				_, _ = s.PrefillChunked(tokens[:512], chunk)
			}
			reportTime(b, start, 512)
		})
	}
}

// 7.3's rounding figures: the logits after a 100-token prompt fed in one
// Prefill, in chunks whose last piece is one token (99 + 1), and in chunks
// of 1, against Forward's last row: how many of the 4,096 differ at all,
// and by how much at most.
func BenchmarkMeasure7_Rounding(b *testing.B) {
	c := benchConfig
	m := newModel(b, c, 7, nil)
	tokens := testTokens(8, 100, c.Vocab)
	logits := unit03.NewMat(len(tokens), c.Vocab)
	if err := m.Forward(logits, tokens); err != nil {
		b.Fatal(err)
	}
	want := logits.Row(len(tokens) - 1)
	for _, chunk := range []int{100, 99, 1} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			s := NewSession(m)
			var differ, worst float64
			for range b.N {
				s.Reset()
				got, err := s.PrefillChunked(tokens, chunk)
				if err != nil {
					b.Fatal(err)
				}
				differ, worst = 0, 0
				for i, g := range got {
					if d := math.Abs(float64(g) - float64(want[i])); d > 0 {
						differ++
						worst = max(worst, d)
					}
				}
			}
			b.ReportMetric(differ, "logits-differing")
			b.ReportMetric(worst, "max-diff")
		})
	}
}

// residentBytes returns the process's resident memory from
// /proc/self/statm (its second field, in pages).
func residentBytes() (int64, error) {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/self/statm: %q", data)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize()), err
}

func fill(x []float32, v float32) {
	for i := range x {
		x[i] = v
	}
}
