package unit14

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit01"
)

// lengths cover one element, a few, one below, at and above a block of 32
// (and of the 8 or 16 lanes a SIMD version takes), and long rows.
var lengths = []int{1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 2048, 4097}

// normTol: a sum of n squares carries about √n·ε of rounding for random
// data, then a few roundings per element; 64 ulp covers rows of 4097.
var normTol = oracle.Tol{Atol: 1e-30, Rtol: 64 * eps32}

func TestC14_2_AddNormRow(t *testing.T) {
	g := oracle.NewRand(141)
	for _, n := range lengths {
		for _, scale := range []float64{1e-3, 1, 1e4, 1e15} {
			x0, y := g.Normal(n, 0, scale), g.Normal(n, 0, scale)
			w := g.Uniform(n, 0.5, 1.5)
			x := append([]float32(nil), x0...)
			out := make([]float32, n)
			AddNormRow(out, x, y, w, 1e-6)
			sum := make([]float32, n)
			for i := range sum {
				sum[i] = x0[i] + y[i] // float32 addition: exactly what x must now hold
			}
			what := fmt.Sprintf("AddNormRow (n=%d, |x|≈%g)", n, scale)
			oracle.AssertClose(t, what+": x after x += y", x, oracle.Float64s(sum), oracle.Tol{})
			oracle.AssertClose(t, what+": n = RMSNorm(x+y)·w", out, oracle.RMSNorm(oracle.Float64s(sum), oracle.Float64s(w), 1e-6), normTol)
		}
	}
	// eps goes inside the square root: a residual that cancels to zero
	// stays zero, and a tiny one is scaled by about 1/√eps.
	for _, tc := range []struct{ x, y []float32 }{
		{[]float32{1, -2, 3, 0.5}, []float32{-1, 2, -3, -0.5}},
		{[]float32{1e-4, -2e-4, 3e-4, 0}, []float32{0, 0, 0, 1e-4}},
	} {
		w := []float32{1, 2, 0.5, 1}
		x := append([]float32(nil), tc.x...)
		out := make([]float32, 4)
		AddNormRow(out, x, tc.y, w, 1e-5)
		want := make([]float64, 4)
		for i := range want {
			want[i] = float64(tc.x[i] + tc.y[i])
		}
		oracle.AssertClose(t, fmt.Sprintf("AddNormRow(x=%v, y=%v, eps 1e-5)", tc.x, tc.y), out, oracle.RMSNorm(want, oracle.Float64s(w), 1e-5), normTol)
	}
	four := make([]float32, 4)
	for name, f := range map[string]func(){
		"AddNormRow with an empty row":   func() { AddNormRow(nil, nil, nil, nil, 1e-5) },
		"AddNormRow with a short y":      func() { AddNormRow(four, four, four[:3], four, 1e-5) },
		"AddNormRow with a short n":      func() { AddNormRow(four[:3], four, four, four, 1e-5) },
		"AddNormRow with a short weight": func() { AddNormRow(four, four, four, four[:3], 1e-5) },
		"AddNormRow with a longer y":     func() { AddNormRow(four[:3], four[:3], four, four[:3], 1e-5) },
	} {
		mustPanic(t, name, f)
	}
	x, y, w, out := g.Normal(4096, 0, 1), g.Normal(4096, 0, 1e-3), g.Uniform(4096, 0.5, 1.5), make([]float32, 4096)
	if n := oracle.AllocsPerRun(20, func() { AddNormRow(out, x, y, w, 1e-5) }); n != 0 {
		t.Errorf("AddNormRow allocates %v times per call, want 0: it runs twice per layer per token", n)
	}
}

// swiglu is SiLU(g)·u in float64.
func swiglu(g, u []float32) []float64 {
	h := make([]float64, len(g))
	for i := range h {
		h[i] = oracle.SiLU(float64(g[i])) * float64(u[i])
	}
	return h
}

// checkQ8 checks one row of Q8_0 activation blocks dst against the float64
// values h it quantizes: per block, d = max|h|/127 rounded to F16, and
// every quant within half a step (plus rounding) of h·127/max|h|, the
// largest exactly ±127.
func checkQ8(t *testing.T, what string, dst []byte, h []float64) {
	t.Helper()
	for b := 0; b < len(h); b += 32 {
		blk := dst[b/32*34 : b/32*34+34]
		amax, at := 0.0, 0
		for j, v := range h[b : b+32] {
			if math.Abs(v) > amax {
				amax, at = math.Abs(v), j
			}
		}
		d := float64(unit01.F16ToF32(binary.LittleEndian.Uint16(blk)))
		wantD := amax / 127
		if math.Abs(d-wantD) > wantD/2048+0x1p-25 { // half an F16 step, normal or subnormal
			t.Fatalf("%s: block %d's scale d = %v, want max|h|/127 = %v (block max |h| = %v) rounded to an F16", what, b/32, d, wantD, amax)
		}
		for j, v := range h[b : b+32] {
			q := float64(int8(blk[2+j]))
			if amax == 0 {
				if q != 0 {
					t.Fatalf("%s: block %d is all zeros but element %d has quant %v, want 0", what, b/32, b+j, q)
				}
				continue
			}
			exact := v * 127 / amax
			if math.Abs(q-exact) > 0.5+1e-3 {
				t.Fatalf("%s: element %d (block %d): quant %v, want the nearest integer to h·127/max|h| = %v (h = %v, block max |h| = %v)", what, b+j, b/32, q, exact, v, amax)
			}
			if j == at && math.Abs(q) != 127 {
				t.Fatalf("%s: element %d holds its block's max |h| = %v, its quant must be ±127, got %v", what, b+j, amax, q)
			}
		}
	}
}

func TestC14_2_SwiGLUQ8_0(t *testing.T) {
	g := oracle.NewRand(142)
	for _, n := range []int{32, 64, 96, 32 * 130} {
		for _, scale := range []float64{0.05, 1, 30} {
			gate, up := g.Normal(n, 0, scale), g.Normal(n, 0, scale)
			dst := make([]byte, n/32*34)
			SwiGLUQ8_0(dst, gate, up)
			checkQ8(t, fmt.Sprintf("SwiGLUQ8_0 (n=%d, |x|≈%g)", n, scale), dst, swiglu(gate, up))
		}
	}
	// Each block has its own scale: a block of zeros (d = 0, quants 0) sits
	// between a block of small values and one of large values, and the
	// largest |h| is negative in one block.
	gate, up := make([]float32, 128), make([]float32, 128)
	for i := range 32 {
		gate[i], up[i] = 1, float32(i-16)*1e-3
		gate[64+i], up[64+i] = 2, float32(i+1)*100
		gate[96+i], up[96+i] = 3, -float32(i)
	}
	gate[40], up[40] = -30, 5 // SiLU(−30)·5 ≈ −1.4e−11 is not zero: block 1 is tiny, not empty
	for i := range 32 {
		up[64+i] = float32(i+1) / 4096 // block 2 below 1, but for one element:
	}
	gate[70], up[70] = 64, 1.0/64 // SiLU(64)·(1/64) is exactly 1 in float32: a block whose max|h| is 1
	dst := make([]byte, 4*34)
	for i := range dst {
		dst[i] = 0xAA // stale bytes must all be overwritten
	}
	SwiGLUQ8_0(dst, gate, up)
	h := swiglu(gate, up)
	checkQ8(t, "SwiGLUQ8_0 of blocks of different sizes", dst, h)
	gate[40] = 0
	SwiGLUQ8_0(dst, gate, up)
	h = swiglu(gate, up)
	checkQ8(t, "SwiGLUQ8_0 with a block of zeros", dst, h)
	if d := binary.LittleEndian.Uint16(dst[34:]); d != 0 {
		t.Errorf("SwiGLUQ8_0: a block of zeros must have d = 0, got the F16 bits %#04x", d)
	}
	for name, f := range map[string]func(){
		"SwiGLUQ8_0 of 31 elements":   func() { SwiGLUQ8_0(make([]byte, 34), make([]float32, 31), make([]float32, 31)) },
		"SwiGLUQ8_0 with a short up":  func() { SwiGLUQ8_0(make([]byte, 68), make([]float32, 64), make([]float32, 32)) },
		"SwiGLUQ8_0 with a short dst": func() { SwiGLUQ8_0(make([]byte, 67), make([]float32, 64), make([]float32, 64)) },
		"SwiGLUQ8_0 with a long dst":  func() { SwiGLUQ8_0(make([]byte, 69), make([]float32, 64), make([]float32, 64)) },
		"SwiGLUQ8_0 of 48 elements":   func() { SwiGLUQ8_0(make([]byte, 51), make([]float32, 48), make([]float32, 48)) },
	} {
		mustPanic(t, name, f)
	}
	big := make([]byte, 5632/32*34)
	gate, up = g.Normal(5632, 0, 1), g.Normal(5632, 0, 1)
	if n := oracle.AllocsPerRun(20, func() { SwiGLUQ8_0(big, gate, up) }); n != 0 {
		t.Errorf("SwiGLUQ8_0 allocates %v times per call, want 0", n)
	}
}
