//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// TestKernelsOnCPU checks the CUDA C of internal/cuda/kernels/engine.cu
// without a GPU: the host's C++ compiler builds it, unchanged, against a
// stand-in for CUDA's execution model (internal/gpu/testdata/host: a
// thread per CUDA thread, barriers for __syncthreads and for each warp's
// shuffles), with AddressSanitizer and UBSan, so that an index past a
// buffer fails; the products and attention it computes are compared with
// float64 sums of the same values, the weights dequantised by unit09 (the
// CPU's own reading of the blocks).
//
// Tolerances, for a float32 result against the exact sum of n terms: at
// most n·u·Σ|terms| apart (u = 2⁻²⁴: each product and each addition rounds
// once), plus 1%. Attention: the scores are such sums, and exp and the
// normalisation add a few ulps more; 2e-5 on outputs that are convex
// combinations of values in [−1, 1] is a wide margin over all of them
// (the worst seen is a hundredth of it).
func TestKernelsOnCPU(t *testing.T) {
	tinyModel(t) // skips where the units are not written
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skipf("not measured: no g++ to build the kernels for the CPU (%v)", err)
	}
	host, _ := filepath.Abs("../../internal/gpu/testdata/host")
	kernels, _ := filepath.Abs("../../internal/cuda/kernels")
	dir := t.TempDir()
	flags := []string{"-std=c++20", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-pthread"}
	bin := filepath.Join(dir, "engine_host")
	args := append(flags, "-Wall", "-Wno-unknown-pragmas", "-I", host, "-I", kernels, "-o", bin, filepath.Join(host, "engine_host.cpp"))
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		// A compiler that cannot build C++20 with the sanitizers at all is
		// not a failure of the kernels: try an empty program.
		probe := filepath.Join(dir, "probe.cpp")
		os.WriteFile(probe, []byte("#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n"), 0o644)
		if pout, perr := exec.Command(gxx, append(flags, "-o", filepath.Join(dir, "probe"), probe)...).CombinedOutput(); perr != nil {
			t.Skipf("not measured: g++ cannot build C++20 with AddressSanitizer here (%v: %s)", perr, firstLine(string(pout)))
		}
		t.Fatalf("g++ engine.cu for the CPU: %v\n%s", err, out)
	}

	var cases bytes.Buffer
	put := func(vs ...any) {
		for _, v := range vs {
			binary.Write(&cases, binary.LittleEndian, v)
		}
	}
	type check struct {
		name  string
		want  []float64 // exact
		bound []float64 // per element
	}
	var checks []check
	rng := rand.New(rand.NewPCG(7, 8))

	// Products: every kind, rows not a multiple of a block's four warps, T
	// not a multiple of a warp's four rows.
	const out, in = 37, 96
	w := randomMat(rng, out, in)
	for kind, dt := range []unit01.DType{unit01.F32, unit01.F16, unit01.Q8_0, unit01.Q4_0} {
		var m unit05.Matrix = unit05.NewDense(w)
		var raw []byte
		if dt == unit01.F32 {
			raw = make([]byte, 4*out*in)
			for i, v := range w.Data {
				binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
			}
		} else {
			q, err := unit09.QuantizeMatrix(dt, w)
			if err != nil {
				t.Fatal(err)
			}
			m, raw = q, q.Data
		}
		wd := unit03.NewMat(out, in) // unit09's dequantisation
		for j := range out {
			m.Row(wd.Row(j), j)
		}
		for _, T := range []int{1, 5} {
			x := randomMat(rng, T, in)
			put(int32(1), int32(kind), int32(T), int32(out), int32(in), int32(len(raw)), raw, x.Data)
			c := check{name: dt.String() + " product"}
			for r := range T {
				for j := range out {
					var s, abs float64
					for i := range in {
						xi := x.At(r, i)
						if dt == unit01.F16 { // the kernel rounds x to halves, as the CPU does
							xi = unit01.F16ToF32(unit01.F32ToF16(xi))
						}
						p := float64(wd.At(j, i)) * float64(xi)
						s, abs = s+p, abs+math.Abs(p)
					}
					c.want = append(c.want, s)
					c.bound = append(c.bound, 1.01*float64(in)*0x1p-24*abs+1e-30)
				}
			}
			checks = append(checks, c)
		}
	}

	// Attention: grouped heads, a head width that is not a multiple of 32,
	// a prompt piece, a decode step and a second piece at a depth, over
	// float32 and half keys and values.
	for _, sh := range []struct{ heads, kvHeads, headDim int }{{8, 2, 40}, {3, 1, 8}} {
		for _, half := range []int32{0, 1} {
			for _, step := range [][2]int{{0, 5}, {5, 1}, {6, 3}} {
				pos0, T := step[0], step[1]
				kvDim, qDim := sh.kvHeads*sh.headDim, sh.heads*sh.headDim
				q, k, v := randomMat(rng, T, qDim), randomMat(rng, pos0+T, kvDim), randomMat(rng, pos0+T, kvDim)
				put(int32(2), half, int32(T), int32(sh.heads), int32(sh.kvHeads), int32(sh.headDim), int32(pos0), q.Data, k.Data, v.Data)
				if half == 1 {
					for _, m := range []unit03.Mat{k, v} {
						for i, x := range m.Data {
							m.Data[i] = unit01.F16ToF32(unit01.F32ToF16(x))
						}
					}
				}
				c := check{name: "attention"}
				for r := range T {
					for h := range sh.heads {
						g := h / (sh.heads / sh.kvHeads)
						n := pos0 + r + 1
						scores := make([]float64, n)
						top := math.Inf(-1)
						for s := range n {
							var dot float64
							for d := range sh.headDim {
								dot += float64(q.At(r, h*sh.headDim+d)) * float64(k.At(s, g*sh.headDim+d))
							}
							scores[s] = dot / math.Sqrt(float64(sh.headDim))
							top = max(top, scores[s])
						}
						var sum float64
						for s := range n {
							scores[s] = math.Exp(scores[s] - top)
							sum += scores[s]
						}
						for d := range sh.headDim {
							var o float64
							for s := range n {
								o += scores[s] * float64(v.At(s, g*sh.headDim+d))
							}
							c.want = append(c.want, o/sum)
							c.bound = append(c.bound, 2e-5)
						}
					}
				}
				checks = append(checks, c)
			}
		}
	}

	casesFile, outFile := filepath.Join(dir, "cases"), filepath.Join(dir, "out")
	if err := os.WriteFile(casesFile, cases.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, casesFile, outFile).CombinedOutput(); err != nil {
		t.Fatalf("engine.cu on the CPU: %v\n%s", err, out)
	}
	got, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for ci, c := range checks {
		worst := 0.0
		for i, want := range c.want {
			if 4*(at+1) > len(got) {
				t.Fatalf("the kernels wrote %d floats, fewer than the cases want", len(got)/4)
			}
			g := float64(math.Float32frombits(binary.LittleEndian.Uint32(got[4*at:])))
			at++
			diff := math.Abs(g - want)
			if !(diff <= c.bound[i]) { // NaN: an element no thread wrote
				t.Errorf("case %d (%s): element %d = %g, want %g within %.3g", ci, c.name, i, g, want, c.bound[i])
			}
			worst = max(worst, diff/c.bound[i])
		}
		t.Logf("case %d (%s): worst |Δ| %.3f of its bound", ci, c.name, worst)
	}
	if 4*at != len(got) {
		t.Errorf("the kernels wrote %d floats, the cases want %d", len(got)/4, at)
	}
}

func firstLine(s string) string {
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
