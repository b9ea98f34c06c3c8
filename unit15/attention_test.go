package unit15

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// attentionTol is unit08's: float32 scores, exponentials and sums in
// another order than the float64 oracle's, over at most a few hundred
// keys.
var attentionTol = oracle.Tol{Atol: 1e-5, Rtol: 1e-4}

// attentionCase returns q (nq × d), k and v (nk × d) with entries of
// standard deviation sd, an o of NaNs (every word must be written), and
// the float64 attention: causal through oracle.Attention (one head, the
// queries at the last nq positions), otherwise every key for every query
// (fullAttention).
func attentionCase(seed uint64, nq, nk, d int, causal bool, sd float64) (o, q, k, v *Global, want []float64) {
	g := oracle.NewRand(seed)
	q, k, v = &Global{Data: g.Normal(nq*d, 0, sd)}, &Global{Data: g.Normal(nk*d, 0, sd)}, &Global{Data: g.Normal(nk*d, 0, 1)}
	o = &Global{Data: make([]float32, nq*d)}
	for i := range o.Data {
		o.Data[i] = float32(nan())
	}
	q64, k64, v64 := oracle.Float64s(q.Data), oracle.Float64s(k.Data), oracle.Float64s(v.Data)
	if causal {
		return o, q, k, v, oracle.Attention(q64, k64, v64, nq, nk-nq, 1, 1, d)
	}
	want = fullAttention(q.Data, k.Data, v.Data, nq, nk, d)
	return o, q, k, v, want
}

func TestC15_4_FlashAttention(t *testing.T) {
	for _, s := range []struct {
		nq, nk, d int
		causal    bool
		sd        float64
	}{
		{1, 1, 1, false, 1}, {1, 1, 1, true, 1}, {16, 32, 64, false, 1}, {16, 32, 64, true, 1},
		{1, 100, 64, true, 1},  // a decode step: one query, the last of 100 positions
		{17, 33, 8, true, 1},   // a second block of one row; a second tile of one key
		{33, 70, 13, false, 1}, // an odd head: rows 13 words apart
		{5, 200, 128, true, 1}, // the widest head
		{40, 40, 32, true, 1}, {3, 65, 127, false, 1}, {64, 64, 1, true, 1}, {20, 3, 16, false, 1},
		{16, 96, 64, true, 6}, // scores in the hundreds: e^s overflows float32 unless the running maximum is taken off
		{8, 160, 32, false, 3},
	} {
		what := fmt.Sprintf("FlashAttention(nq=%d, nk=%d, d=%d, causal=%v) with entries of sd %g", s.nq, s.nk, s.d, s.causal, s.sd)
		o, q, k, v, want := attentionCase(uint64(s.nq*100000+s.nk*100+s.d), s.nq, s.nk, s.d, s.causal, s.sd)
		st, err := FlashAttention(o, q, k, v, s.nq, s.nk, s.d, s.causal)
		require.NoError(t, err, what)
		if !oracle.AssertCloseShape(t, what, o.Data, want, []int{s.nq, s.d}, attentionTol) {
			return
		}
		if st.BankConflicts != 0 {
			t.Errorf("%s: %d bank conflicts, want none: a warp's threads take the same path, and a tile's rows an odd number of words apart put its 32 keys in 32 banks", what, st.BankConflicts)
		}
		if bound := (QueryTile+2*KeyTile)*((s.d+31)/32*32+1) + QueryTile*KeyTile; st.Shared > bound {
			t.Errorf("%s: %d words of shared memory a block, more than the %d of a tile of queries, of keys, of values and of scores", what, st.Shared, bound)
		}
	}
	for _, s := range []struct {
		nq, nk, d      int
		causal         bool
		lo, lq, lk, lv int
	}{
		{0, 4, 2, false, 0, 0, 8, 8}, {2, 0, 2, false, 4, 4, 0, 0}, {2, 4, 0, false, 0, 0, 0, 0},
		{-1, 4, 2, false, 2, 2, 8, 8}, {2, 4, MaxHeadDim + 1, false, 2 * 129, 2 * 129, 4 * 129, 4 * 129},
		{5, 4, 2, true, 10, 10, 8, 8}, // causal: more queries than positions
		{2, 4, 2, false, 3, 4, 8, 8}, {2, 4, 2, false, 4, 5, 8, 8}, {2, 4, 2, false, 4, 4, 7, 8}, {2, 4, 2, false, 4, 4, 8, 9},
	} {
		mk := func(n int) *Global { return &Global{Data: make([]float32, max(n, 0))} }
		_, err := FlashAttention(mk(s.lo), mk(s.lq), mk(s.lk), mk(s.lv), s.nq, s.nk, s.d, s.causal)
		require.ErrorIs(t, err, unit00.ErrInvalid, "FlashAttention(nq=%d, nk=%d, d=%d, causal=%v) with o of %d, q of %d, k of %d and v of %d words",
			s.nq, s.nk, s.d, s.causal, s.lo, s.lq, s.lk, s.lv)
		require.Contains(t, err.Error(), "attention", "FlashAttention checks its arguments before it launches")
	}
	// Rows of very different scale: every other query is near zero, the
	// rest 100 times larger (scores of standard deviation 100). Each row
	// must take its own running maximum: another row's, or a shifted one,
	// leaves e^(s−m) to overflow or vanish. A float32 score of a few
	// hundred carries a rounding error of about √64·2⁻²⁴·512 ≈ 2.5e-4
	// (64 products of magnitude 512/8 summed), which the output inherits:
	// hence the wider tolerance here.
	for _, causal := range []bool{false, true} {
		what := fmt.Sprintf("FlashAttention(nq=16, nk=64, d=64, causal=%v) with rows of scale 0.01 and 100 in turn", causal)
		o, q, k, v, _ := attentionCase(31, 16, 64, 64, causal, 1)
		for i := range q.Data {
			if (i/64)%2 == 0 {
				q.Data[i] *= 0.01
			} else {
				q.Data[i] *= 100
			}
		}
		want := fullAttention(q.Data, k.Data, v.Data, 16, 64, 64)
		if causal {
			want = oracle.Attention(oracle.Float64s(q.Data), oracle.Float64s(k.Data), oracle.Float64s(v.Data), 16, 48, 1, 1, 64)
		}
		_, err := FlashAttention(o, q, k, v, 16, 64, 64, causal)
		require.NoError(t, err, what)
		oracle.AssertCloseShape(t, what, o.Data, want, []int{16, 64}, oracle.Tol{Atol: 1e-3, Rtol: 1e-3})
	}
	// Causal with as many queries as keys is allowed: a whole prompt.
	o, q, k, v, want := attentionCase(9, 5, 5, 4, true, 1)
	_, err := FlashAttention(o, q, k, v, 5, 5, 4, true)
	require.NoError(t, err, "causal with nq = nk")
	oracle.AssertCloseShape(t, "FlashAttention(nq=5, nk=5, d=4, causal)", o.Data, want, []int{5, 4}, attentionTol)
}

// The traffic of FlashAttention with a head of 64, worked out by hand.
// Blocks of 32 × 16 threads, a warp a query row; per tile each thread
// copies rows ty and ty+16 of the keys and of the values, two words of
// each row (columns x and x+32): 8 loads, each a warp's 32 neighbouring
// words, 4 sectors. The queries: 2 loads a thread, once. The output: 2
// stores a thread. Three barriers a tile. Shared memory: 16 + 32 + 32
// rows of 65 words and 16 × 32 scores. Shared requests a thread: 2 for
// its queries, then per tile 8 stores, 2·64 loads for its score, 1 store,
// 32 loads for the row's maximum and 32 × (1 + 2) for the exponentials
// and the output: 265.
//
//   - 32 queries over 64 keys: 2 blocks, each 2 tiles.
//   - causal, 64 over 64: 4 blocks; the first two see 16 and 32 keys, a
//     tile; the last two 48 and 64, two tiles. 6 tiles, not 8.
func TestC15_4_Traffic(t *testing.T) {
	const d = 64
	tile := Stats{LoadRequests: 16 * 8, LoadSectors: 16 * 8 * 4, SharedRequests: 16 * 265, Barriers: 3}
	block := Stats{Blocks: 1, Threads: 512, LoadRequests: 16 * 2, LoadSectors: 16 * 2 * 4, StoreRequests: 16 * 2, StoreSectors: 16 * 2 * 4, SharedRequests: 16 * 2}
	times := func(n int, s Stats) Stats {
		return Stats{Blocks: n * s.Blocks, Threads: n * s.Threads, LoadRequests: n * s.LoadRequests, LoadSectors: n * s.LoadSectors,
			StoreRequests: n * s.StoreRequests, StoreSectors: n * s.StoreSectors, SharedRequests: n * s.SharedRequests, Barriers: n * s.Barriers}
	}
	sum := func(a, b Stats) Stats {
		return Stats{Blocks: a.Blocks + b.Blocks, Threads: a.Threads + b.Threads, LoadRequests: a.LoadRequests + b.LoadRequests,
			LoadSectors: a.LoadSectors + b.LoadSectors, StoreRequests: a.StoreRequests + b.StoreRequests, StoreSectors: a.StoreSectors + b.StoreSectors,
			SharedRequests: a.SharedRequests + b.SharedRequests, Barriers: a.Barriers + b.Barriers}
	}
	shared := (16+32+32)*65 + 16*32
	for _, tc := range []struct {
		nq, nk int
		causal bool
		want   Stats
	}{
		{32, 64, false, sum(times(2, block), times(4, tile))},
		{64, 64, true, sum(times(4, block), times(6, tile))},
	} {
		tc.want.Shared = shared
		o, q, k, v, _ := attentionCase(5, tc.nq, tc.nk, d, tc.causal, 1)
		got, err := FlashAttention(o, q, k, v, tc.nq, tc.nk, d, tc.causal)
		require.NoError(t, err)
		if got != tc.want {
			t.Errorf("FlashAttention(nq=%d, nk=%d, d=%d, causal=%v): Stats\n got %+v\nwant %+v\n(see the comment above this test for the count; more loads mean a tile of keys copied more than once, or tiles past the block's last visible key read)",
				tc.nq, tc.nk, d, tc.causal, got, tc.want)
		}
	}
}

// fullAttention is attention in float64 with every key for every query.
func fullAttention(q, k, v []float32, nq, nk, d int) []float64 {
	out := make([]float64, nq*d)
	for i := range nq {
		scores := make([]float64, nk)
		for j := range nk {
			for c := range d {
				scores[j] += float64(q[i*d+c]) * float64(k[j*d+c])
			}
			scores[j] /= math.Sqrt(float64(d))
		}
		for j, p := range oracle.Softmax(scores, 1, nil) {
			for c := range d {
				out[i*d+c] += p * float64(v[j*d+c])
			}
		}
	}
	return out
}
