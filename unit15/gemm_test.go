package unit15

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// gemms are the three kernels of 15.2, by name.
var gemms = []struct {
	name string
	f    func(c, a, b *Global, m, n, k int) (Stats, error)
}{
	{"GemmNaive", GemmNaive}, {"GemmTiled", GemmTiled}, {"GemmRegister", GemmRegister},
}

// gemmCase returns random A (m×k) and B (k×n), a C of NaNs (every element
// must be written), and the float64 product with each element's error
// bound: (k+2)·ε times Σ|a·b|, for a float32 sum of k products in any order.
func gemmCase(seed uint64, m, n, k int) (a, b, c *Global, want, bound []float64) {
	g := oracle.NewRand(seed)
	a, b = &Global{Data: g.Normal(m*k, 0, 1)}, &Global{Data: g.Normal(k*n, 0, 1)}
	c = &Global{Data: make([]float32, m*n)}
	for i := range c.Data {
		c.Data[i] = float32(nan())
	}
	want = oracle.MatMul(a.Data, k, b.Data, n, m, n, k, false)
	bound = oracle.MatMulAbs(a.Data, k, b.Data, n, m, n, k, false)
	for i := range bound {
		bound[i] *= float64(k+2) / (1 << 23)
	}
	return a, b, c, want, bound
}

func nan() float64 { var z float64; return z / z }

func TestC15_2_Gemm(t *testing.T) {
	for _, s := range []struct{ m, n, k int }{
		{1, 1, 1}, {16, 16, 16}, {64, 64, 64}, {17, 33, 5}, {65, 70, 31}, {3, 100, 40}, {100, 3, 17}, {64, 64, 1}, {1, 130, 16},
	} {
		for _, g := range gemms {
			a, b, c, want, bound := gemmCase(uint64(s.m*10000+s.n*100+s.k), s.m, s.n, s.k)
			what := fmt.Sprintf("%s(m=%d, n=%d, k=%d)", g.name, s.m, s.n, s.k)
			st, err := g.f(c, a, b, s.m, s.n, s.k)
			require.NoError(t, err, what)
			if !oracle.AssertBound(t, what, c.Data, want, bound, []int{s.m, s.n}) {
				return
			}
			if st.BankConflicts != 0 {
				t.Errorf("%s: %d bank conflicts, want none: read a tile's rows and columns so that a warp's words fall in different banks (or on one word)", what, st.BankConflicts)
			}
			if st.StoreSectors == 0 || st.StoreRequests == 0 {
				t.Errorf("%s: Stats counts no stores: %+v", what, st)
			}
		}
	}
	for _, g := range gemms {
		// Each case breaks one thing: a size, or one buffer's length.
		for _, s := range []struct{ m, n, k, la, lb, lc int }{
			{0, 2, 3, 0, 6, 0}, {2, 0, 3, 6, 0, 0}, {2, 3, 0, 0, 0, 6}, {-2, 3, 3, -6, 9, -6},
			{2, 3, 3, 5, 9, 6}, {2, 3, 3, 6, 8, 6}, {2, 3, 3, 6, 9, 7},
		} {
			mk := func(n int) *Global { return &Global{Data: make([]float32, max(n, 0))} }
			_, err := g.f(mk(s.lc), mk(s.la), mk(s.lb), s.m, s.n, s.k)
			require.ErrorIs(t, err, unit00.ErrInvalid, "%s(m=%d, n=%d, k=%d) with A of %d, B of %d and C of %d words", g.name, s.m, s.n, s.k, s.la, s.lb, s.lc)
			require.Contains(t, err.Error(), "gemm", "%s: the GEMM checks its arguments before it launches", g.name)
		}
	}
}

// The traffic of each kernel at 64³, worked out by hand. A warp is two rows
// of sixteen threads of a 16 × 16 block; every row of A, B and C starts on
// a sector, since 64 words are 8 sectors.
//
//   - GemmNaive: per k, each warp loads a word of A for each of its two
//     rows (2 sectors) and sixteen neighbouring words of B (2 sectors, the
//     same for both rows): 4 sectors, 2 requests; 128 warps, k = 64.
//   - GemmTiled: per step of 16, each warp loads sixteen words of two rows
//     of A and of B: 8 sectors, 2 requests; 128 warps, 4 steps. Shared:
//     2 stores, then 16 × 2 loads per step.
//   - GemmRegister: one block. Per step it loads the 64 × 16 tile of A (4
//     requests a warp, each two rows of sixteen words: 4 sectors) and the
//     16 × 64 tile of B (4 requests of 32 words: 4 sectors); 8 warps, 4
//     steps. Shared: 8 stores and 16 × 8 loads per step.
//
// Every kernel stores C once: 4 sectors a warp-row pair, 512 in all.
func TestC15_2_Traffic(t *testing.T) {
	const m, n, k = 64, 64, 64
	for _, tc := range []struct {
		name string
		want Stats
	}{
		{"GemmNaive", Stats{Blocks: 16, Threads: 4096, LoadRequests: 128 * 64 * 2, LoadSectors: 128 * 64 * 4, StoreRequests: 128, StoreSectors: 512}},
		{"GemmTiled", Stats{Blocks: 16, Threads: 4096, Shared: 2 * 256, LoadRequests: 128 * 4 * 2, LoadSectors: 128 * 4 * 8, StoreRequests: 128, StoreSectors: 512,
			SharedRequests: 128 * 4 * (2 + 32), Barriers: 16 * 8}},
		{"GemmRegister", Stats{Blocks: 1, Threads: 256, Shared: 2 * 64 * 16, LoadRequests: 8 * 4 * 8, LoadSectors: 8 * 4 * 32, StoreRequests: 8 * 16, StoreSectors: 512,
			SharedRequests: 8 * 4 * (8 + 16*8), Barriers: 8}},
	} {
		var f func(c, a, b *Global, m, n, k int) (Stats, error)
		for _, g := range gemms {
			if g.name == tc.name {
				f = g.f
			}
		}
		a, b, c, _, _ := gemmCase(7, m, n, k)
		got, err := f(c, a, b, m, n, k)
		require.NoError(t, err)
		if got != tc.want {
			t.Errorf("%s at 64³: Stats\n got %+v\nwant %+v\n(see the comment above this test for the count; a kernel whose x runs down C's rows, or that loads a tile with the wrong index order, moves more sectors)", tc.name, got, tc.want)
		}
	}
}
