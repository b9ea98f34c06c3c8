//go:build linux

package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/internal/gpu"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit09"
)

// The TestGPU tests compare the device with the CPU, on the reference
// units (they run in this package, whose tests CI runs with the reference
// overlay). Without a driver or a device each skips with one line.

// gpuDevice opens the device, or skips the test saying why there is none.
func gpuDevice(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.Open()
	if errors.Is(err, cuda.ErrNoDriver) {
		t.Skipf("not measured: no GPU (%v)", err)
	}
	if err != nil {
		t.Fatalf("gpu.Open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func randomMat(rng *rand.Rand, rows, cols int) unit03.Mat {
	m := unit03.NewMat(rows, cols)
	for i := range m.Data {
		m.Data[i] = 2*rng.Float32() - 1
	}
	return m
}

// mulBound bounds |device − CPU| for one output, the dot product of a
// weight row w (as the CPU's matrix holds it, dequantised) with x:
//
//   - both sum the same n products in different orders (the CPU in SIMD
//     lanes, the device in 32 lanes and a butterfly), each with or without
//     fused multiply-adds: each sum is within n·u·Σ|wᵢxᵢ| of the exact one
//     (u = 2⁻²⁴), so the two are within 2·n·u·Σ|wᵢxᵢ|;
//   - F16: both round x to halves first, and a product of two halves is
//     exact in float32: nothing more;
//   - Q8_0 and Q4_0: the CPU rounds x to Q8_0 blocks before its integer
//     dot products (llama.cpp's CPU road), the device multiplies x as it
//     is: each xᵢ moves by at most half a step, amax/254, plus the rounding
//     of the block's scale to a half (2⁻¹¹ of amax), and the product by at
//     most that times |wᵢ|.
//
// The 1% on top covers the terms of second order (Σ|wᵢx̃ᵢ| for Σ|wᵢxᵢ|).
func mulBound(dt unit01.DType, w, x []float32) float64 {
	var abs float64
	for i := range x {
		abs += math.Abs(float64(w[i]) * float64(x[i]))
	}
	b := 2 * float64(len(x)) * 0x1p-24 * abs
	if dt == unit01.Q8_0 || dt == unit01.Q4_0 {
		for b0 := 0; b0 < len(x); b0 += 32 {
			var amax, wsum float64
			for i := b0; i < b0+32; i++ {
				amax = max(amax, math.Abs(float64(x[i])))
				wsum += math.Abs(float64(w[i]))
			}
			b += amax * (1.0/254 + 0x1p-11) * wsum
		}
	}
	return 1.01*b + 1e-30
}

// TestGPUMulT: the device's y = x·Wᵀ against the CPU's, for each weight
// type the device takes, for 1 to 65 rows of x (a decode step, a verify
// pass, prompt pieces), out not a multiple of the kernel's four rows per
// block, and x and y views whose rows have gaps (which must stay as they
// were).
func TestGPUMulT(t *testing.T) {
	d := gpuDevice(t)
	tinyModel(t) // skips where the units are not written
	pool := unit03.NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	const out, in = 97, 256
	w := randomMat(rng, out, in)
	for _, dt := range []unit01.DType{unit01.F32, unit01.F16, unit01.Q8_0, unit01.Q4_0} {
		var cpu unit05.Matrix = unit05.NewDense(w)
		if dt != unit01.F32 {
			q, err := unit09.QuantizeMatrix(dt, w)
			if err != nil {
				t.Fatal(err)
			}
			cpu = q
		}
		dm, err := d.Upload(cpu)
		if err != nil {
			t.Fatalf("%v: Upload: %v", dt, err)
		}
		wd := unit03.NewMat(out, in) // the weights as the CPU multiplies them
		for j := range out {
			cpu.Row(wd.Row(j), j)
		}
		for _, T := range []int{1, 2, 3, 4, 5, 64, 65} {
			x := randomMat(rng, T, in+7).Block(0, T, 0, in)
			want := unit03.NewMat(T, out)
			cpu.MulT(pool, want, x)
			wide := unit03.NewMat(T, out+3)
			got := wide.Block(0, T, 0, out)
			dm.MulT(nil, got, x)
			worst := 0.0
			for r := range T {
				for j := range out {
					diff := math.Abs(float64(got.At(r, j) - want.At(r, j)))
					bound := mulBound(dt, wd.Row(j), x.Row(r))
					if diff > bound || math.IsNaN(diff) {
						t.Errorf("%v, %d rows: y[%d][%d] = %g on the device, %g on the CPU: |Δ| %.3g > bound %.3g", dt, T, r, j, got.At(r, j), want.At(r, j), diff, bound)
					}
					worst = max(worst, diff/bound)
				}
				for j := out; j < out+3; j++ {
					if v := wide.At(r, j); v != 0 {
						t.Errorf("%v, %d rows: the gap after row %d of y holds %g: MulT wrote past the view", dt, T, r, v)
					}
				}
			}
			t.Logf("%v, %d rows: worst |Δ| = %.2f of its bound", dt, T, worst)
		}
	}
}

// TestGPUStore: the device's keys, values and attention against unit08's
// store of the same type, layer by layer, for a prompt piece, decode steps
// and a second piece, with grouped-query heads and a head width that is a
// multiple of 32 and one that is not.
//
// Tolerance 2e-4 on outputs that are convex combinations of values in
// [−1, 1]: the scores are the same products summed in other orders
// (2·D·u·Σ|qᵢkᵢ|/√D, under 1e-5 here for uniform q and k), exp differs by
// an ulp or two between CUDA's expf and Go's, and the weights' sums by
// the order again; each relative error of a weight moves the output by
// at most twice that times max|v|. Stored halves are the same halves: both
// round to nearest, ties to even.
func TestGPUStore(t *testing.T) {
	d := gpuDevice(t)
	tinyModel(t)
	pool := unit03.NewPool(2)
	defer pool.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	const layers, maxSeq = 2, 32
	for _, shape := range []struct{ heads, kvHeads, headDim int }{{8, 2, 40}, {4, 4, 128}, {6, 1, 64}} {
		for _, half := range []bool{false, true} {
			ct := unit08.CacheF32
			if half {
				ct = unit08.CacheF16
			}
			name := fmt.Sprintf("%d heads, %d kv heads of %d, %v", shape.heads, shape.kvHeads, shape.headDim, ct)
			kvDim, qDim := shape.kvHeads*shape.headDim, shape.heads*shape.headDim
			dev, err := d.NewStore(nil, 0, layers, maxSeq, kvDim, half)
			if err != nil {
				t.Fatal(err)
			}
			f, err := unit08.New(shape.heads, shape.kvHeads, shape.headDim, pool.Threads())
			if err != nil {
				t.Fatal(err)
			}
			cpu, err := unit08.NewStore(f, layers, maxSeq, ct, ct)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for _, step := range [][2]int{{0, 7}, {7, 1}, {8, 1}, {9, 5}, {14, 18}} {
				pos0, T := step[0], step[1]
				for l := range layers {
					k, v, q := randomMat(rng, T, kvDim), randomMat(rng, T, kvDim), randomMat(rng, T, qDim)
					got := unit03.NewMat(T, qDim)
					dev.Put(l, pos0, k, v)
					dev.Attend(nil, got, q, l, shape.heads, shape.kvHeads, pos0)
					cpu.Put(l, pos0, k, v)
					want := unit03.NewMat(T, qDim)
					cpu.Attend(pool, want, q, l, shape.heads, shape.kvHeads, pos0)
					for i := range want.Data {
						diff := math.Abs(float64(got.Data[i] - want.Data[i]))
						if diff > 2e-4 || math.IsNaN(diff) {
							t.Fatalf("%s: layer %d, %d rows at %d: out[%d] = %g on the device, %g on the CPU", name, l, T, pos0, i, got.Data[i], want.Data[i])
						}
						worst = max(worst, diff)
					}
				}
			}
			t.Logf("%s: worst |Δ| %.2g", name, worst)
		}
	}
}

// TestGPUGreedy: llm run --temp 0 on the device gives the CPU's tokens on
// a tiny F16 model (the products are the same products, summed in another
// order), with every layer offloaded, with some (the CPU's store keeps the
// others), with a float32 cache; and on a Q4_K_M model, whose K-quant
// matrices stay on the CPU and say so, with attention on the device. The
// bench runs on the device and says what it offloaded.
func TestGPUGreedy(t *testing.T) {
	gpuDevice(t)
	tinyModel(t)
	gen := func(typ string) string {
		path := filepath.Join(t.TempDir(), typ+".gguf")
		ok(t, "gen", "--shape", "tiny", "--type", typ, "--vocab", "gpt2", "--seed", "1", "-o", path)
		return path
	}
	f16, q4km := gen("f16"), gen("q4_k_m")
	tokens := func(args ...string) (string, string) {
		r := llm(append([]string{"run", "-p", "The quick brown fox", "--temp", "0", "--json", "-n", "16", "--ignore-eos", "-t", "2"}, args...)...)
		if r.status != 0 {
			t.Fatalf("llm run %q: status %d, stderr %q", args, r.status, r.stderr)
		}
		return fmt.Sprint(decodeJSON[runJSON](t, r.stdout).Tokens), r.stderr
	}
	for _, tc := range []struct {
		model       string
		cpu, device []string
		stderr      string
	}{
		{f16, nil, []string{"--device", "cuda"}, "4 of 4 layers offloaded (28 matrices"},
		{f16, nil, []string{"-ngl", "2"}, "2 of 4 layers offloaded (14 matrices"},
		{f16, nil, []string{"--device", "cuda", "-ngl", "99"}, "4 of 4 layers offloaded"},
		{f16, []string{"-ctk", "f32", "-ctv", "f32"}, []string{"-ctk", "f32", "-ctv", "f32", "--device", "cuda", "-ngl", "3"}, "attention over an f32 cache"},
		{q4km, nil, []string{"--device", "cuda"}, "Q4_K weights"},
	} {
		want, _ := tokens(append([]string{"-m", tc.model}, tc.cpu...)...)
		got, stderr := tokens(append([]string{"-m", tc.model}, tc.device...)...)
		if got != want {
			t.Errorf("%s %q: tokens\n %s\nthe CPU's\n %s", filepath.Base(tc.model), tc.device, got, want)
		}
		if !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s %q: stderr %q does not say %q", filepath.Base(tc.model), tc.device, stderr, tc.stderr)
		}
		t.Logf("%s %q: %s", filepath.Base(tc.model), tc.device, strings.TrimSpace(strings.SplitN(stderr, "\n", 2)[0]))
	}
	r := llm("bench", "-m", f16, "-p", "16", "-n", "4", "-r", "1", "--device", "cuda", "-ngl", "3")
	if r.status != 0 || !strings.Contains(r.stderr, "3 of 4 layers offloaded") || !strings.Contains(r.stdout, "tg4") {
		t.Errorf("llm bench --device cuda -ngl 3: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
}
