package unit14

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

func TestC14_1_Cost(t *testing.T) {
	a, b := Cost{Ops: 10, Bytes: 4}, Cost{Ops: 6, Bytes: 12}
	if diff := cmp.Diff(Cost{Ops: 16, Bytes: 16}, a.Add(b)); diff != "" {
		t.Errorf("Cost{10, 4}.Add(Cost{6, 12}) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(a, a.Add(Cost{})); diff != "" {
		t.Errorf("adding the zero Cost changed it (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		c    Cost
		want float64
	}{
		{Cost{Ops: 10, Bytes: 4}, 2.5},
		{Cost{Ops: 1, Bytes: 1e9}, 1e-9},
		{Cost{Ops: 3, Bytes: 0}, math.Inf(1)}, // no bytes: pure arithmetic
		{Cost{}, 0},                           // nothing at all
		{Cost{Ops: 0, Bytes: 8}, 0},
	} {
		if got := tc.c.Intensity(); got != tc.want {
			t.Errorf("%+v.Intensity() = %v, want %v (operations per byte; +Inf with no bytes, 0 with nothing)", tc.c, got, tc.want)
		}
	}
}

func TestC14_1_Roof(t *testing.T) {
	// A core of 200 G operations/s reading 20 GB/s: the ridge is at 10
	// operations per byte.
	r := Roof{Ops: 200e9, Bytes: 20e9}
	if got := r.Ridge(); got != 10 {
		t.Errorf("Ridge() = %v, want 10 (peak / bandwidth)", got)
	}
	for _, tc := range []struct {
		name string
		c    Cost
		want float64
	}{
		{"a matrix-vector product, memory-bound", Cost{Ops: 2e9, Bytes: 1e9}, 0.05},
		{"a GEMM, compute-bound", Cost{Ops: 400e9, Bytes: 2e9}, 2},
		{"exactly on the ridge", Cost{Ops: 200e9, Bytes: 20e9}, 1},
		{"nothing", Cost{}, 0},
	} {
		if got := r.Seconds(tc.c); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("%s: Seconds(%+v) = %v, want %v: the slower of Ops/peak and Bytes/bandwidth", tc.name, tc.c, got, tc.want)
		}
	}
	for _, tc := range []struct{ intensity, want float64 }{
		{0.5, 10e9}, {1, 20e9}, {9.5, 190e9}, {10, 200e9}, {10.5, 200e9}, {1000, 200e9}, {0, 0},
	} {
		if got := r.Attainable(tc.intensity); got != tc.want {
			t.Errorf("Attainable(%v) = %v, want %v: intensity × bandwidth below the ridge (10), the peak above", tc.intensity, got, tc.want)
		}
	}
}

func TestC14_1_MatMulCost(t *testing.T) {
	for _, tc := range []struct {
		name           string
		dt             unit01.DType
		rows, cols, T  int
		wantOps, wantB float64
	}{
		// 4096 rows of 128 Q4_0 blocks (18 bytes), one activation row:
		// 2·4096·4096 operations; 4096·2304 bytes of weights, 4·4096 in, 4·4096 out.
		{"Q4_0 decode", unit01.Q4_0, 4096, 4096, 1, 33554432, 9437184 + 16384 + 16384},
		{"Q4_0 prompt of 512", unit01.Q4_0, 4096, 4096, 512, 17179869184, 9437184 + 8388608 + 8388608},
		{"F32 2×3, 5 rows", unit01.F32, 2, 3, 5, 60, 24 + 60 + 40},
		{"Q6_K one super-block", unit01.Q6_K, 3, 256, 2, 3072, 630 + 2048 + 24},
		{"Q8_0 one row", unit01.Q8_0, 1, 64, 1, 128, 68 + 256 + 4},
		{"F16", unit01.F16, 7, 5, 3, 210, 70 + 60 + 84},
		{"F32, one element", unit01.F32, 1, 1, 1, 2, 4 + 4 + 4},
		{"no rows to multiply", unit01.Q4_0, 4096, 4096, 0, 0, 0},
	} {
		got, err := MatMulCost(tc.dt, tc.rows, tc.cols, tc.T)
		require.NoError(t, err, tc.name)
		if diff := cmp.Diff(Cost{Ops: tc.wantOps, Bytes: tc.wantB}, got); diff != "" {
			t.Errorf("%s: MatMulCost(%v, %d, %d, %d) (-want +got):\n%s\n(ops 2·rows·cols·T; bytes: the weights once, 4 per activation read and per result written)", tc.name, tc.dt, tc.rows, tc.cols, tc.T, diff)
		}
	}
	for _, tc := range []struct {
		name          string
		dt            unit01.DType
		rows, cols, T int
	}{
		{"no rows", unit01.F32, 0, 8, 1},
		{"negative rows", unit01.F32, -1, 8, 1},
		{"no columns", unit01.F32, 8, 0, 1},
		{"negative columns", unit01.Q4_0, 8, -32, 1},
		{"negative T", unit01.F32, 8, 8, -1},
		{"a row that is not whole Q4_0 blocks", unit01.Q4_0, 8, 33, 1},
		{"a row that is not whole Q4_K super-blocks", unit01.Q4_K, 8, 128, 0},
		{"an unknown type", unit01.DType(99), 8, 32, 1},
	} {
		_, err := MatMulCost(tc.dt, tc.rows, tc.cols, tc.T)
		require.ErrorIs(t, err, unit00.ErrInvalid, "%s: MatMulCost(%v, %d, %d, %d)", tc.name, tc.dt, tc.rows, tc.cols, tc.T)
	}
}

// passModel is a two-layer model of mixed weight types: Wq in Q8_0, Wk and
// Down in Q4_0, the rest float32, its output matrix in Q6_K.
func passModel(t *testing.T) (unit05.Config, *unit05.Weights) {
	t.Helper()
	c := unit05.Config{Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 64, FFN: 512, Vocab: 10, MaxSeq: 100,
		RopeBase: 10000, RMSEps: 1e-5}
	q := func(dt unit01.DType, rows, cols int) unit05.Matrix {
		rb, err := dt.RowBytes(cols)
		require.NoError(t, err)
		m, err := unit09.NewQMatrix(dt, rows, cols, make([]byte, rows*rb))
		require.NoError(t, err)
		return m
	}
	d := func(rows, cols int) unit05.Matrix {
		return unit05.NewDense(unit03.MatOf(rows, cols, make([]float32, rows*cols)))
	}
	w := &unit05.Weights{Embed: d(c.Vocab, c.Dim), OutNorm: make([]float32, c.Dim), Output: q(unit01.Q6_K, c.Vocab, c.Dim)}
	for range c.Layers {
		w.Layers = append(w.Layers, unit05.Layer{
			Wq: q(unit01.Q8_0, c.QDim(), c.Dim), Wk: q(unit01.Q4_0, c.KVDim(), c.Dim), Wv: d(c.KVDim(), c.Dim),
			Wo: d(c.Dim, c.QDim()), Gate: d(c.FFN, c.Dim), Up: d(c.FFN, c.Dim), Down: q(unit01.Q4_0, c.Dim, c.FFN)})
	}
	return c, w
}

func TestC14_1_PassCost(t *testing.T) {
	c, w := passModel(t)
	// One layer's products, worked out by hand for T rows: ops 2·rows·cols·T
	// each, bytes the weights plus 4·T·(rows+cols).
	layer := func(T float64) Cost {
		mm := func(rows, cols, rowBytes float64) Cost {
			return Cost{Ops: 2 * rows * cols * T, Bytes: rows*rowBytes + 4*T*(rows+cols)}
		}
		sum := Cost{}
		for _, m := range []Cost{
			mm(256, 256, 8*34),  // Wq, Q8_0
			mm(128, 256, 8*18),  // Wk, Q4_0
			mm(128, 256, 4*256), // Wv
			mm(256, 256, 4*256), // Wo
			mm(512, 256, 4*256), // Gate
			mm(512, 256, 4*256), // Up
			mm(256, 512, 16*18), // Down, Q4_0
		} {
			sum = Cost{Ops: sum.Ops + m.Ops, Bytes: sum.Bytes + m.Bytes}
		}
		return sum
	}
	output := Cost{Ops: 2 * 10 * 256, Bytes: 10*210 + 4*256 + 4*10} // one row, Q6_K
	for _, tc := range []struct {
		T, depth int
		kv       float64
		seen     float64 // positions the T rows attend to, all together
	}{
		{1, 0, 2, 1},           // the first token sees itself
		{1, 37, 2, 38},         // a decode step at depth 37
		{5, 0, 2, 15},          // a prompt: 1+2+3+4+5
		{4, 10, 34.0 / 32, 50}, // 11+12+13+14, a Q8_0 cache
		{100, 0, 4, 5050},      // exactly MaxSeq
		{1, 99, 2, 100},        // the last position
		{3, 2, 18.0 / 32, 12},  // 3+4+5 positions, half a byte per element (a 4-bit cache)
	} {
		got, err := PassCost(c, w, tc.T, tc.depth, tc.kv)
		require.NoError(t, err, "PassCost(T=%d, depth=%d)", tc.T, tc.depth)
		l := layer(float64(tc.T))
		att := Cost{Ops: 4 * 4 * 64 * tc.seen, Bytes: 2 * 128 * float64(tc.depth+tc.T) * tc.kv}
		want := Cost{Ops: 2*(l.Ops+att.Ops) + output.Ops, Bytes: 2*(l.Bytes+att.Bytes) + output.Bytes}
		if math.Abs(got.Ops-want.Ops) > 1e-9*want.Ops || math.Abs(got.Bytes-want.Bytes) > 1e-9*want.Bytes {
			t.Errorf("PassCost(T=%d, depth=%d, %v bytes per cached element) = %+v, want %+v\n"+
				"(each layer: seven products for T rows; attention 4·Heads·HeadDim per query head and position seen, %v positions; the cache's 2·KVDim·(depth+T) elements; the output product for one row)",
				tc.T, tc.depth, tc.kv, got, want, tc.seen)
		}
	}
}

// otherMatrix is a Matrix that is neither Dense nor a QMatrix.
type otherMatrix struct{ unit05.Matrix }

// someFFN stands for a mixture of experts.
type someFFN struct{}

func (someFFN) Width() int                                    { return 256 }
func (someFFN) FeedForward(p *unit03.Pool, out, x unit03.Mat) {}

func TestC14_1_PassCostErrors(t *testing.T) {
	c, w := passModel(t)
	for _, tc := range []struct {
		T, depth int
		kv       float64
	}{
		{0, 0, 2}, {-1, 5, 2}, {1, -1, 2}, {1, 100, 2}, {101, 0, 2}, {50, 51, 2}, {1, 0, 0}, {1, 0, -2}, {1, 0, math.NaN()},
	} {
		_, err := PassCost(c, w, tc.T, tc.depth, tc.kv)
		require.ErrorIs(t, err, unit00.ErrInvalid, "PassCost(T=%d, depth=%d, kv=%v) with MaxSeq 100", tc.T, tc.depth, tc.kv)
	}
	for name, spoil := range map[string]func(w *unit05.Weights){
		"a layer's Wv of another Matrix type": func(w *unit05.Weights) { w.Layers[1].Wv = otherMatrix{w.Layers[1].Wv} },
		"a layer's Down of another type":      func(w *unit05.Weights) { w.Layers[0].Down = otherMatrix{w.Layers[0].Down} },
		"the output of another type":          func(w *unit05.Weights) { w.Output = otherMatrix{w.Output} },
		"a mixture of experts":                func(w *unit05.Weights) { w.Layers[1].MoE = someFFN{} },
	} {
		c, w := passModel(t)
		spoil(w)
		_, err := PassCost(c, w, 1, 0, 2)
		require.ErrorIs(t, err, unit00.ErrUnsupported, "PassCost with %s", name)
		require.Contains(t, err.Error(), map[bool]string{true: "output", false: "layer"}[name == "the output of another type"], "the error names where: %v", err)
	}
}
