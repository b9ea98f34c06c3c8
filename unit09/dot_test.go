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
			a, ad := activations(t, dt, x)
			wd := oracle.DequantRow(int(dt), w)
			want, abs := 0.0, 0.0
			for i := range wd {
				want += wd[i] * ad[i]
				abs += math.Abs(wd[i] * ad[i])
			}
			got := Dot(dt, w, a, n)
			blocks := float64(n / max(1, dt.BlockSize()))
			bound := (4*blocks + 64) * eps32 * abs
			if math.Abs(float64(got)-want) > bound || math.IsNaN(float64(got)) {
				t.Errorf("Dot(%v, %d elements) = %v, want %v ± %.3g (the float64 sum of the dequantized weights times the dequantized activations)", dt, n, got, want, bound)
			}
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
	_ = fmt.Sprint
}
