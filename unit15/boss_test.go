package unit15

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
)

// The boss "bytes, not flops": on a GPU a GEMM is as fast as its memory
// traffic lets it be, and tiles are how it cuts that traffic.
//
// Its condition (TestBoss15_Bytes): GemmTiled and GemmRegister agree with
// the float64 product on a 192 × 160 × 96 problem (160 is no multiple of
// GemmRegister's 64), without a race and without a bank conflict; and
// FlashAttention agrees with the float64 attention over 64 and over 1024
// keys, never holding more than one tile of scores (its shared memory
// does not grow with the keys), without a bank conflict.
//
// Its figures (BenchmarkBoss15_Bytes), at 512³ (256³ with -short; the
// ratios are the same): the global bytes GemmNaive loads over those
// GemmRegister loads (at least 16) and over those GemmTiled loads
// (reported), GemmNaive's load requests over GemmTiled's (the tile's side,
// reported), and GemmRegister's bank conflicts (none).

func TestBoss15_Bytes(t *testing.T) {
	const m, n, k = 192, 160, 96
	for _, g := range gemms[1:] {
		a, b, c, want, bound := gemmCase(15, m, n, k)
		st, err := g.f(c, a, b, m, n, k)
		require.NoError(t, err, g.name)
		oracle.AssertBound(t, fmt.Sprintf("%s(m=%d, n=%d, k=%d)", g.name, m, n, k), c.Data, want, bound, []int{m, n})
		require.Zero(t, st.BankConflicts, "%s: bank conflicts", g.name)
	}
	// Flash attention holds one tile of scores, however many keys there
	// are: its shared memory is the same for 64 keys as for 1024.
	const d = 64
	tiles := (QueryTile+2*KeyTile)*(d+1) + QueryTile*KeyTile
	for _, nk := range []int{64, 1024} {
		what := fmt.Sprintf("FlashAttention(nq=32, nk=%d, d=%d, causal)", nk, d)
		o, q, k, v, want := attentionCase(uint64(nk), 32, nk, d, true, 1)
		st, err := FlashAttention(o, q, k, v, 32, nk, d, true)
		require.NoError(t, err, what)
		oracle.AssertCloseShape(t, what, o.Data, want, []int{32, d}, attentionTol)
		require.LessOrEqual(t, st.Shared, tiles, "%s: words of shared memory a block: at most a tile each of queries, keys, values and scores", what)
		require.Zero(t, st.BankConflicts, "%s: bank conflicts", what)
	}
}

func BenchmarkBoss15_Bytes(b *testing.B) {
	size := 512
	if testing.Short() {
		size = 256
	}
	loads, requests := map[string]float64{}, map[string]float64{}
	var conflicts int
	for _, g := range gemms {
		a, bm, c, _, _ := gemmCase(16, size, size, size)
		st, err := g.f(c, a, bm, size, size, size)
		require.NoError(b, err, g.name)
		loads[g.name], requests[g.name] = float64(st.LoadBytes()), float64(st.LoadRequests)
		if g.name == "GemmRegister" {
			conflicts = st.BankConflicts
		}
		b.Logf("%s at %d³: %d load requests, %.1f MB loaded, %.1f MB stored, %d shared requests, %d bank conflicts",
			g.name, size, st.LoadRequests, float64(st.LoadBytes())/1e6, float64(st.StoreBytes())/1e6, st.SharedRequests, st.BankConflicts)
	}
	b.ReportMetric(loads["GemmNaive"]/loads["GemmRegister"], "naive-x-register")
	b.ReportMetric(loads["GemmNaive"]/loads["GemmTiled"], "naive-x-tiled")
	b.ReportMetric(requests["GemmNaive"]/requests["GemmTiled"], "naive-x-tiled-requests")
	b.ReportMetric(float64(conflicts), "bank-conflicts")
	// On a GPU: gemm_f16 against cuBLAS (boss_gpu_test.go).
	if f, ok, why := f16AgainstCublas(b); ok {
		b.ReportMetric(f.ratio, "f16-x-cublas")
		b.ReportMetric(f.mine, "f16-TFLOP/s")
		b.ReportMetric(f.cublas, "cublas-TFLOP/s")
	} else {
		b.Log(why)
	}
	if r, ok, why := decodeAgainstCPU(b); ok {
		b.ReportMetric(r, "decode-x-cpu")
	} else {
		b.Log(why)
	}
}
