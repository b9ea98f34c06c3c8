package unit09

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
)

func TestC9_3_VecDotType(t *testing.T) {
	want := map[unit01.DType]unit01.DType{
		unit01.Q4_0: unit01.Q8_0, unit01.Q4_1: unit01.Q8_0, unit01.Q5_0: unit01.Q8_0, unit01.Q8_0: unit01.Q8_0,
		unit01.Q4_K: unit01.Q8_K, unit01.Q5_K: unit01.Q8_K, unit01.Q6_K: unit01.Q8_K,
		unit01.F32: unit01.F32, unit01.F16: unit01.F16, unit01.BF16: unit01.BF16,
	}
	for dt, w := range want {
		if got := VecDotType(dt); got != w {
			t.Errorf("VecDotType(%v) = %v, want %v", dt, got, w)
		}
	}
}

// activations returns x as the bytes Dot takes for weights of type dt:
// quantized to VecDotType(dt), or float32 bits, and their dequantized
// values.
func activations(t *testing.T, dt unit01.DType, x []float32) ([]byte, []float64) {
	t.Helper()
	adt := VecDotType(dt)
	a := make([]byte, rowBytes(adt, len(x)))
	if err := QuantizeRow(adt, a, x); err != nil {
		t.Fatal(err)
	}
	return a, oracle.DequantRow(int(adt), a)
}

// checkDot compares Dot of the weight row w with the activations x,
// quantized to VecDotType, against the float64 sum of the dequantized
// weights times the dequantized activations, within (4·blocks + 64)·ε·Σ|w·a|.
func checkDot(t *testing.T, what string, dt unit01.DType, w []byte, x []float32) {
	t.Helper()
	n := len(x)
	a, ad := activations(t, dt, x)
	wd := oracle.DequantRow(int(dt), w)
	want, abs := 0.0, 0.0
	for i := range wd {
		want += wd[i] * ad[i]
		abs += math.Abs(wd[i] * ad[i])
	}
	got := Dot(dt, w, a, n)
	bound := (4*float64(n/max(1, dt.BlockSize())) + 64) * eps32 * abs
	if math.Abs(float64(got)-want) > bound || math.IsNaN(float64(got)) {
		t.Errorf("%s = %v, want %v ± %.3g (the float64 sum of the dequantized weights times the dequantized activations)", what, got, want, bound)
	}
}

// TestC9_3_Dot checks every weight type's dot product, on random weight
// blocks and activations, against the float64 sum of the dequantized
// weights times the dequantized activations: the quantized arithmetic is
// exact in integers, so only the float32 accumulation of per-block terms
// may differ, by at most n·ε·Σ|w·a|.
func TestC9_3_Dot(t *testing.T) {
	g := oracle.NewRand(93)
	for _, dt := range weightTypes {
		for _, n := range []int{256, 512, 1280, 4096} {
			w := randomBlocks(g, dt, n)
			x := g.Normal(n, 0, 1)
			for i := 0; i < n; i += 97 {
				x[i] *= 30 // outliers, so blocks get different scales
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements)", dt, n), dt, w, x)
		}
	}
}

// TestC9_3_DisjointDot: weights that are 0 wherever the activations are
// not, and the reverse, in every block. Their dot product has no term to
// round, so wherever the zeros stay exactly 0 through quantization (every
// type whose grid holds 0) it must be exactly 0: an integer sum that
// starts anywhere but 0, or a block's term dropped or doubled, shows
// here, where a random row hides it in the rounding bound. (It found the
// first SIMD Q6_K kernels converting lane sums in which Σ q·a and 32·Σ a
// had not yet cancelled: −1.2e-4 where 0 is exact.)
func TestC9_3_DisjointDot(t *testing.T) {
	for _, dt := range weightTypes {
		for _, n := range []int{256, 1280} {
			xw, xa := make([]float32, n), make([]float32, n)
			for i := range n {
				if i%2 == 0 {
					xw[i] = float32(1 + i%7)
				} else {
					xa[i] = float32(1 + i%5)
				}
			}
			w := make([]byte, rowBytes(dt, n))
			if err := QuantizeRow(dt, w, xw); err != nil {
				t.Fatal(err)
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements) of weights zero at the odd elements and activations zero at the even ones", dt, n), dt, w, xa)
		}
	}
}

// TestC9_3_ZeroScales: K-quant super-blocks whose sub-block scales and
// mins are all 0, under nonzero d and dmin and random quants. Every weight
// is 0, so the dot product must be exactly 0: a sum of scaled quants or of
// mins that starts anywhere but 0 adds d·d_a or dmin·d_a per super-block,
// which a random row hides in the rounding bound.
func TestC9_3_ZeroScales(t *testing.T) {
	g := oracle.NewRand(931)
	for _, dt := range []unit01.DType{unit01.Q4_K, unit01.Q5_K, unit01.Q6_K} {
		for _, n := range []int{256, 1280} {
			w := randomBlocks(g, dt, n)
			bb := rowBytes(dt, 256)
			for o := 0; o < len(w); o += bb {
				if dt == unit01.Q6_K {
					clear(w[o+192 : o+208]) // int8 scales
				} else {
					clear(w[o+4 : o+16]) // 6-bit scales and mins
				}
			}
			checkDot(t, fmt.Sprintf("Dot(%v, %d elements) of super-blocks whose sub-block scales and mins are all 0", dt, n), dt, w, g.Normal(n, 0, 1))
		}
	}
}

// TestC9_3_AgainstFloats is the contract a model relies on: a dot product
// of quantized weights with float activations, through VecDotType, is
// within the activation quantization's error of the exact float64 dot
// product of the dequantized weights with the float activations. For each
// activation block the error of an element is at most half its step, so
// the bound is Σ_blocks (Σ|w|)·step/2.
func TestC9_3_AgainstFloats(t *testing.T) {
	g := oracle.NewRand(94)
	for _, dt := range weightTypes {
		n := 2048
		w := randomBlocks(g, dt, n)
		wd := oracle.DequantRow(int(dt), w)
		for name, x := range testRows(g, n) {
			a, _ := activations(t, dt, x)
			adt := VecDotType(dt)
			want, bound := 0.0, 0.0
			bs := adt.BlockSize()
			for o := 0; o < n; o += bs {
				amax, wabs := 0.0, 0.0
				for i := o; i < o+bs; i++ {
					want += wd[i] * float64(x[i])
					amax = math.Max(amax, math.Abs(float64(x[i])))
					wabs += math.Abs(wd[i])
					switch adt { // activations rounded one by one
					case unit01.F16:
						bound += math.Abs(wd[i]) * h(math.Abs(float64(x[i])))
					case unit01.BF16:
						bound += math.Abs(wd[i]*float64(x[i])) / 256
					}
				}
				if adt == unit01.Q8_0 || adt == unit01.Q8_K { // half a step, and the step's f16 rounding 127 times
					d := amax / 127
					bound += wabs * (d/2 + 127*h(d))
				}
			}
			bound += 1e-5 * (1 + math.Abs(want))
			got := Dot(dt, w, a, n)
			if math.Abs(float64(got)-want) > bound || math.IsNaN(float64(got)) {
				t.Errorf("%v weights · a %s row quantized to %v: %v, want %v ± %.3g", dt, name, adt, got, want, bound)
			}
		}
	}
}

func TestC9_3_Panics(t *testing.T) {
	w, a := make([]byte, 18), make([]byte, 34)
	for _, f := range []func(){
		func() { Dot(unit01.Q4_0, w, a, 64) },                                  // w holds 32 elements
		func() { Dot(unit01.Q4_0, w, a[:33], 32) },                             // a is short
		func() { Dot(unit01.Q8_K, make([]byte, 292), make([]byte, 292), 256) }, // not a weight type
	} {
		if _, panicked := oracle.Panics(f); !panicked {
			t.Errorf("Dot with mismatched lengths or a non-weight type did not panic")
		}
	}
}

// TestC9_3_PanicsEveryType gives Dot, for every weight type, a w or an a
// one block too long or too short, an n that is not whole blocks (with w
// and a both empty, so only n is wrong), and a type it does not multiply:
// each must panic (unit00.Check), not read past a row or return a number.
func TestC9_3_PanicsEveryType(t *testing.T) {
	for _, dt := range weightTypes {
		n := 2 * dt.BlockSize()
		wb, ab := rowBytes(dt, n), rowBytes(VecDotType(dt), n)
		w, a := make([]byte, wb+dt.BlockBytes()), make([]byte, ab+VecDotType(dt).BlockBytes())
		cases := map[string]func(){
			"w one block long":  func() { Dot(dt, w, a[:ab], n) },
			"w one block short": func() { Dot(dt, w[:wb-dt.BlockBytes()], a[:ab], n) },
			"a one block long":  func() { Dot(dt, w[:wb], a, n) },
			"a one block short": func() { Dot(dt, w[:wb], a[:ab-VecDotType(dt).BlockBytes()], n) },
		}
		if dt.BlockSize() > 1 {
			cases["n not whole blocks, w and a empty"] = func() { Dot(dt, nil, nil, 1) }
		}
		for what, f := range cases {
			if _, panicked := oracle.Panics(f); !panicked {
				t.Errorf("Dot(%v, n = %d) with %s did not panic", dt, n, what)
			}
		}
	}
	for _, dt := range []unit01.DType{unit01.Q2_K, unit01.Q5_1, unit01.Q8_K} {
		if _, panicked := oracle.Panics(func() { Dot(dt, make([]byte, rowBytes(dt, 256)), make([]byte, 1024), 256) }); !panicked {
			t.Errorf("Dot(%v) did not panic: it is not a weight type this unit multiplies (Supported, and not Q8_K)", dt)
		}
	}
	if got := Dot(unit01.Q4_0, nil, nil, 0); got != 0 {
		t.Errorf("Dot(Q4_0) of an empty row = %v, want 0", got)
	}
}

// TestC9_3_Lengths takes dot products of every weight type over many
// block counts: 1 to 9, and odd counts past any kernel's group (pairs and
// quads of blocks; 1 to 9 super-blocks), so that an assembly kernel's leftover
// blocks, its first group and its loop all meet the oracle. The bound is
// TestC9_3_Dot's.
func TestC9_3_Lengths(t *testing.T) {
	g := oracle.NewRand(931)
	for _, dt := range weightTypes {
		counts := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 31, 67}
		switch dt.BlockSize() {
		case 1:
			counts = []int{1, 2, 3, 7, 15, 16, 17, 31, 33, 63, 65, 100}
		case 256:
			counts = []int{1, 2, 3, 4, 5, 9}
		}
		for _, blocks := range counts {
			n := blocks * dt.BlockSize()
			w := randomBlocks(g, dt, n)
			x := g.Normal(n, 0, 1)
			for i := 0; i < n; i += 41 {
				x[i] *= 20
			}
			checkDot(t, fmt.Sprintf("Dot(%v) of %d blocks (%d elements; if only some counts fail, the blocks after the last whole group of a fast path, or the first group, are summed wrong)", dt, blocks, n), dt, w, x)
		}
	}
}
