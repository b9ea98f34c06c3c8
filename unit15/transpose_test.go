package unit15

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// transposes are the three kernels of 15.3, by name.
var transposes = []struct {
	name string
	f    func(out, in *Global, rows, cols int) (Stats, error)
}{
	{"TransposeNaive", TransposeNaive}, {"TransposeShared", TransposeShared}, {"TransposePadded", TransposePadded},
}

// transposeCase returns a random rows × cols matrix, an out of NaNs (every
// word must be written) and, computed here, its transpose.
func transposeCase(seed uint64, rows, cols int) (in, out *Global, want []float32) {
	in = &Global{Data: oracle.NewRand(seed).Normal(rows*cols, 0, 1)}
	out = &Global{Data: make([]float32, rows*cols)}
	want = make([]float32, rows*cols)
	for i := range out.Data {
		out.Data[i] = float32(nan())
	}
	for r := range rows {
		for c := range cols {
			want[c*rows+r] = in.Data[r*cols+c]
		}
	}
	return in, out, want
}

func TestC15_3_Transpose(t *testing.T) {
	for _, s := range []struct{ rows, cols int }{
		{1, 1}, {32, 32}, {64, 64}, {33, 65}, {7, 100}, {100, 7}, {31, 33}, {1, 70}, {70, 1}, {40, 96},
	} {
		for _, tr := range transposes {
			what := fmt.Sprintf("%s(rows=%d, cols=%d)", tr.name, s.rows, s.cols)
			in, out, want := transposeCase(uint64(s.rows*1000+s.cols), s.rows, s.cols)
			st, err := tr.f(out, in, s.rows, s.cols)
			require.NoError(t, err, what)
			for i, v := range out.Data {
				if v != want[i] {
					t.Fatalf("%s: out[%d] (row %d, column %d of out) = %v, want %v, in's row %d, column %d (a guard at the edge of a square, or rows and cols swapped in an index)",
						what, i, i/s.rows, i%s.rows, v, want[i], i%s.rows, i/s.rows)
				}
			}
			if tr.name == "TransposePadded" && st.BankConflicts != 0 {
				t.Errorf("%s: %d bank conflicts, want none: rows Side+1 words apart put a column of the square in 32 banks", what, st.BankConflicts)
			}
		}
	}
	for _, tr := range transposes {
		for _, s := range []struct{ rows, cols, lin, lout int }{
			{0, 3, 0, 0}, {3, 0, 0, 0}, {-2, -3, 6, 6}, {2, 3, 5, 6}, {2, 3, 6, 7}, {2, 3, 6, 5}, {2, 3, 7, 6},
		} {
			mk := func(n int) *Global { return &Global{Data: make([]float32, n)} }
			_, err := tr.f(mk(s.lout), mk(s.lin), s.rows, s.cols)
			require.ErrorIs(t, err, unit00.ErrInvalid, "%s(rows=%d, cols=%d) with in of %d and out of %d words", tr.name, s.rows, s.cols, s.lin, s.lout)
			require.Contains(t, err.Error(), "transpose", "%s: the transpose checks its arguments before it launches", tr.name)
		}
	}
}

// The traffic of each transpose of a 64 × 64 matrix (and of a 32 × 96 one,
// whose out is three times as tall as it is wide), worked out by hand.
// Four blocks of 32 × 8 threads (three for 32 × 96), eight warps each, a
// warp a row of 32 threads; every thread moves four words, so each warp
// makes four load requests and four store requests. A row of 32 words
// that starts on a sector is four sectors.
//
//   - TransposeNaive: loads a row of in (4 sectors); stores down a
//     column of out, 32 words each in its own sector (32 sectors).
//   - TransposeShared, TransposePadded: loads and stores rows (4 sectors
//     each); 4 shared stores and 4 shared loads a warp. Reading the
//     square's column: 32 words Side apart are in one bank, 31 passes too
//     many a request; Side+1 apart, in 32 banks. One barrier a block.
func TestC15_3_Traffic(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rows, cols int
		want       Stats
	}{
		{"TransposeNaive", 64, 64, Stats{Blocks: 4, Threads: 1024, LoadRequests: 128, LoadSectors: 512, StoreRequests: 128, StoreSectors: 128 * 32}},
		{"TransposeShared", 64, 64, Stats{Blocks: 4, Threads: 1024, Shared: 32 * 32, LoadRequests: 128, LoadSectors: 512, StoreRequests: 128, StoreSectors: 512,
			SharedRequests: 32 * 8, BankConflicts: 128 * 31, Barriers: 4}},
		{"TransposePadded", 64, 64, Stats{Blocks: 4, Threads: 1024, Shared: 32 * 33, LoadRequests: 128, LoadSectors: 512, StoreRequests: 128, StoreSectors: 512,
			SharedRequests: 32 * 8, Barriers: 4}},
		{"TransposeNaive", 32, 96, Stats{Blocks: 3, Threads: 768, LoadRequests: 96, LoadSectors: 384, StoreRequests: 96, StoreSectors: 96 * 32}},
		{"TransposePadded", 32, 96, Stats{Blocks: 3, Threads: 768, Shared: 32 * 33, LoadRequests: 96, LoadSectors: 384, StoreRequests: 96, StoreSectors: 384,
			SharedRequests: 24 * 8, Barriers: 3}},
	} {
		var f func(out, in *Global, rows, cols int) (Stats, error)
		for _, tr := range transposes {
			if tr.name == tc.name {
				f = tr.f
			}
		}
		in, out, _ := transposeCase(3, tc.rows, tc.cols)
		got, err := f(out, in, tc.rows, tc.cols)
		require.NoError(t, err)
		if got != tc.want {
			t.Errorf("%s of %d × %d: Stats\n got %+v\nwant %+v\n(see the comment above this test for the count; a warp whose threads run down a column of in, or a square copied by columns, moves more sectors)", tc.name, tc.rows, tc.cols, got, tc.want)
		}
	}
}
