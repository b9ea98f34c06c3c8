//go:build linux

package unit15

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/internal/cuda/kernels"
	"github.com/llmforge/forge/oracle"
)

// The CUDA twins of this unit's kernels (internal/cuda/kernels/unit15.cu)
// on a real GPU: each launched on the grid, blocks and shared memory its
// Go kernel launches with (4 bytes a shared word) and checked as the Go
// kernel's tests check it, with its time logged. They need no code of
// yours: they check the kernels the docs set beside yours. Without a
// CUDA driver and a GPU each skips with one line.

// gpu is a context on the first GPU with the unit's module loaded.
type gpu struct {
	c *cuda.Context
	m *cuda.Module
}

// openGPU opens the first GPU and loads the unit's PTX, or skips with one
// line saying why there is none.
func openGPU(tb testing.TB) *gpu {
	tb.Helper()
	g, err := newGPU(tb)
	if errors.Is(err, cuda.ErrNoDriver) {
		tb.Skipf("not measured: no GPU (%v)", err)
	}
	if err != nil {
		tb.Fatalf("cuda.NewContext(0): %v", err)
	}
	return g
}

// newGPU is openGPU without the skip: an error wrapping cuda.ErrNoDriver
// when there is no GPU. A module that does not load fails tb.
func newGPU(tb testing.TB) (*gpu, error) {
	tb.Helper()
	c, err := cuda.NewContext(0)
	if err != nil {
		return nil, err
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	m, err := c.Load(kernels.PTX("unit15"))
	if err != nil {
		tb.Fatalf("loading the PTX of unit15.cu: %v", err)
	}
	tb.Logf("device 0: %s, %d multiprocessors", c.Name, c.SMs)
	return &gpu{c: c, m: m}, nil
}

// buffer allocates bytes of device memory, freed when the test ends.
func (g *gpu) buffer(tb testing.TB, bytes int) cuda.Buffer {
	tb.Helper()
	b, err := g.c.Alloc(bytes)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.c.Free(b) })
	return b
}

// upload copies x (float32s or IEEE halves) into a new buffer.
func upload[E float32 | uint16](tb testing.TB, g *gpu, x []E) cuda.Buffer {
	tb.Helper()
	raw, err := binary.Append(nil, binary.LittleEndian, x)
	if err != nil {
		tb.Fatal(err)
	}
	b := g.buffer(tb, len(raw))
	if err := g.c.CopyInBytes(b, raw); err != nil {
		tb.Fatal(err)
	}
	return b
}

// download copies n float32s out of b.
func (g *gpu) download(tb testing.TB, b cuda.Buffer, n int) []float32 {
	tb.Helper()
	x := make([]float32, n)
	if err := g.c.CopyOut(x, b); err != nil {
		tb.Fatal(err)
	}
	return x
}

// launch is one launch of a kernel of the module: what its Go twin passes
// to Launch, with shared memory in words.
type launch struct {
	name          string
	grid, block   Dim3
	sharedWords   int
	args          []any
	flops, bytes  float64 // the work, for the rates logged
	describeShape string
}

func dim(d Dim3) cuda.Dim3 { return cuda.Dim3{X: d.X, Y: d.Y, Z: d.Z} }

func (g *gpu) kernel(tb testing.TB, name string) *cuda.Kernel {
	tb.Helper()
	k, err := g.m.Kernel(name)
	if err != nil {
		tb.Fatalf("kernel %s: %v", name, err)
	}
	return k
}

// run launches l and waits for it.
func (g *gpu) run(tb testing.TB, l launch) {
	tb.Helper()
	if err := g.kernel(tb, l.name).Launch(dim(l.grid), dim(l.block), 4*l.sharedWords, l.args...); err != nil {
		tb.Fatalf("%s on grid %v of blocks %v, %d shared words: %v", l.name, l.grid, l.block, l.sharedWords, err)
	}
}

// timeIt returns the device's time for one run of l, the best of three
// timings of runs launches back to back.
func (g *gpu) timeIt(tb testing.TB, l launch, runs int) time.Duration {
	tb.Helper()
	k := g.kernel(tb, l.name)
	best := time.Duration(math.MaxInt64)
	for range 3 {
		d, err := g.c.Time(func() error {
			for range runs {
				if err := k.Enqueue(dim(l.grid), dim(l.block), 4*l.sharedWords, l.args...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("timing %s: %v", l.name, err)
		}
		best = min(best, d/time.Duration(runs))
	}
	return best
}

// logRate logs l's time and what it does a second.
func (g *gpu) logRate(tb testing.TB, l launch) {
	tb.Helper()
	d := g.timeIt(tb, l, 10)
	rate := ""
	if l.flops > 0 {
		rate = fmt.Sprintf("%.0f GFLOP/s", l.flops/d.Seconds()/1e9)
	} else {
		rate = fmt.Sprintf("%.0f GB/s", l.bytes/d.Seconds()/1e9)
	}
	tb.Logf("%s %s: %v a launch, %s", l.name, l.describeShape, d, rate)
}

// gemmLaunch is the launch GemmNaive, GemmTiled or GemmRegister makes for
// C = A·B (m×k by k×n), as the twin of name.
func gemmLaunch(name string, c, a, b cuda.Buffer, m, n, k int) launch {
	l := launch{name: name, block: Dim3{Tile, Tile, 1}, args: []any{c, a, b, int32(m), int32(n), int32(k)},
		flops: 2 * float64(m) * float64(n) * float64(k), describeShape: fmt.Sprintf("at m=%d, n=%d, k=%d", m, n, k)}
	switch name {
	case "gemm_naive":
		l.grid = Dim3{(n + Tile - 1) / Tile, (m + Tile - 1) / Tile, 1}
	case "gemm_tiled":
		l.grid, l.sharedWords = Dim3{(n + Tile - 1) / Tile, (m + Tile - 1) / Tile, 1}, 2*Tile*Tile
	case "gemm_register":
		const side = Tile * Reg
		l.grid, l.sharedWords = Dim3{(n + side - 1) / side, (m + side - 1) / side, 1}, 2*side*Tile
	}
	return l
}

var gpuGemms = []string{"gemm_naive", "gemm_tiled", "gemm_register"}

// TestC15_6_TwinGemm runs the GEMM twins on the shapes of TestC15_2_Gemm and
// checks them against the float64 product as it does; then times them at
// 2048³.
func TestC15_6_TwinGemm(t *testing.T) {
	hostFirst(t)
	g := openGPU(t)
	for _, s := range []struct{ m, n, k int }{
		{1, 1, 1}, {16, 16, 16}, {64, 64, 64}, {17, 33, 5}, {65, 70, 31}, {3, 100, 40}, {100, 3, 17}, {64, 64, 1}, {1, 130, 16}, {192, 160, 96},
	} {
		for _, name := range gpuGemms {
			a, b, c, want, bound := gemmCase(uint64(s.m*10000+s.n*100+s.k), s.m, s.n, s.k)
			cb := upload(t, g, c.Data)
			g.run(t, gemmLaunch(name, cb, upload(t, g, a.Data), upload(t, g, b.Data), s.m, s.n, s.k))
			what := fmt.Sprintf("%s(m=%d, n=%d, k=%d) on %s", name, s.m, s.n, s.k, g.c.Name)
			if !oracle.AssertBound(t, what, g.download(t, cb, s.m*s.n), want, bound, []int{s.m, s.n}) {
				return
			}
		}
	}
	const size = 2048
	a, b := g.buffer(t, 4*size*size), g.buffer(t, 4*size*size)
	c := g.buffer(t, 4*size*size)
	for _, name := range gpuGemms {
		g.logRate(t, gemmLaunch(name, c, a, b, size, size, size))
	}
}

// transposeLaunch is the launch TransposeNaive, TransposeShared or
// TransposePadded makes, as the twin of name.
func transposeLaunch(name string, out, in cuda.Buffer, rows, cols int) launch {
	l := launch{name: name, grid: Dim3{(cols + Side - 1) / Side, (rows + Side - 1) / Side, 1}, block: Dim3{Side, SideRows, 1},
		args: []any{out, in, int32(rows), int32(cols)}, bytes: 8 * float64(rows) * float64(cols), describeShape: fmt.Sprintf("of %d × %d", rows, cols)}
	switch name {
	case "transpose_shared":
		l.sharedWords = Side * Side
	case "transpose_padded":
		l.sharedWords = Side * (Side + 1)
	}
	return l
}

// TestC15_6_TwinTranspose runs the transpose twins on the shapes of
// TestC15_3_Transpose, every word exact; then times them on 8192 × 8192,
// where the naive one's scattered stores and the shared one's bank
// conflicts show.
func TestC15_6_TwinTranspose(t *testing.T) {
	hostFirst(t)
	g := openGPU(t)
	names := []string{"transpose_naive", "transpose_shared", "transpose_padded"}
	for _, s := range []struct{ rows, cols int }{
		{1, 1}, {32, 32}, {64, 64}, {33, 65}, {7, 100}, {100, 7}, {31, 33}, {1, 70}, {70, 1}, {40, 96},
	} {
		for _, name := range names {
			in, out, want := transposeCase(uint64(s.rows*1000+s.cols), s.rows, s.cols)
			ob := upload(t, g, out.Data)
			g.run(t, transposeLaunch(name, ob, upload(t, g, in.Data), s.rows, s.cols))
			for i, v := range g.download(t, ob, s.rows*s.cols) {
				if v != want[i] {
					t.Fatalf("%s(rows=%d, cols=%d) on %s: out[%d] = %v, want %v", name, s.rows, s.cols, g.c.Name, i, v, want[i])
				}
			}
		}
	}
	const side = 8192
	in, out := g.buffer(t, 4*side*side), g.buffer(t, 4*side*side)
	for _, name := range names {
		g.logRate(t, transposeLaunch(name, out, in, side, side))
	}
}

// attentionLaunch is the launch FlashAttention makes.
func attentionLaunch(o, q, k, v cuda.Buffer, nq, nk, d int, causal bool) launch {
	width := (d + KeyTile - 1) / KeyTile * KeyTile
	stride := width + 1
	c := int32(0)
	if causal {
		c = 1
	}
	return launch{name: "flash_attention", grid: Dim3{(nq + QueryTile - 1) / QueryTile, 1, 1}, block: Dim3{KeyTile, QueryTile, 1},
		sharedWords: (QueryTile+2*KeyTile)*stride + QueryTile*KeyTile, args: []any{o, q, k, v, int32(nq), int32(nk), int32(d), c},
		flops: 4 * float64(nq) * float64(nk) * float64(d), describeShape: fmt.Sprintf("at nq=%d, nk=%d, d=%d, causal=%v", nq, nk, d, causal)}
}

// TestC15_6_TwinFlashAttention runs the attention twin on the cases of
// TestC15_4_FlashAttention, against the float64 attention with the same
// tolerance; then times it on 4096 queries over 4096 keys of a 64-wide
// head, without a mask (its FLOP/s count every score).
func TestC15_6_TwinFlashAttention(t *testing.T) {
	hostFirst(t)
	g := openGPU(t)
	for _, s := range []struct {
		nq, nk, d int
		causal    bool
		sd        float64
	}{
		{1, 1, 1, false, 1}, {1, 1, 1, true, 1}, {16, 32, 64, false, 1}, {16, 32, 64, true, 1},
		{1, 100, 64, true, 1}, {17, 33, 8, true, 1}, {33, 70, 13, false, 1}, {5, 200, 128, true, 1},
		{40, 40, 32, true, 1}, {3, 65, 127, false, 1}, {64, 64, 1, true, 1}, {20, 3, 16, false, 1},
		{16, 96, 64, true, 6}, {8, 160, 32, false, 3}, {5, 5, 4, true, 1},
	} {
		what := fmt.Sprintf("flash_attention(nq=%d, nk=%d, d=%d, causal=%v) with entries of sd %g on %s", s.nq, s.nk, s.d, s.causal, s.sd, g.c.Name)
		o, q, k, v, want := attentionCase(uint64(s.nq*100000+s.nk*100+s.d), s.nq, s.nk, s.d, s.causal, s.sd)
		ob := upload(t, g, o.Data)
		g.run(t, attentionLaunch(ob, upload(t, g, q.Data), upload(t, g, k.Data), upload(t, g, v.Data), s.nq, s.nk, s.d, s.causal))
		if !oracle.AssertCloseShape(t, what, g.download(t, ob, s.nq*s.d), want, []int{s.nq, s.d}, attentionTol) {
			return
		}
	}
	const n, d = 4096, 64
	q, k := g.buffer(t, 4*n*d), g.buffer(t, 4*n*d)
	v, o := g.buffer(t, 4*n*d), g.buffer(t, 4*n*d)
	for _, b := range []cuda.Buffer{q, k, v} {
		if err := g.c.CopyIn(b, make([]float32, n*d)); err != nil {
			t.Fatal(err)
		}
	}
	g.logRate(t, attentionLaunch(o, q, k, v, n, n, d, false))
}

// f16Block is the square of C a block of gemm_f16 computes, and f16Depth
// its step along k: m and n must be multiples of the one, k of the other.
// f16Threads is its block, f16Shared its dynamic shared memory in bytes
// (F16SharedBytes in unit15.cu: three buffers of a 128 × 40 and a 32 × 136
// tile of halves).
const (
	f16Block   = 128
	f16Depth   = 32
	f16Threads = 128
	f16Shared  = 3 * (f16Block*(f16Depth+8) + f16Depth*(f16Block+8)) * 2
)

// f16 returns a function that queues gemm_f16 for C = A·B, m×k by k×n in
// halves, without waiting for it.
func (g *gpu) f16(tb testing.TB, c, a, b cuda.Buffer, m, n, k int) func() error {
	tb.Helper()
	if m%f16Block != 0 || n%f16Block != 0 || k%f16Depth != 0 {
		tb.Fatalf("gemm_f16 takes m and n multiples of %d and k a multiple of %d, not %d, %d, %d", f16Block, f16Depth, m, n, k)
	}
	kern := g.kernel(tb, "gemm_f16")
	if err := kern.SetMaxShared(f16Shared); err != nil {
		tb.Fatalf("gemm_f16: %v", err)
	}
	return func() error {
		return kern.Enqueue(cuda.Dim3{X: n / f16Block, Y: m / f16Block, Z: 1}, cuda.Dim3{X: f16Threads, Y: 1, Z: 1}, f16Shared,
			c, a, b, int32(m), int32(n), int32(k))
	}
}

// f16Case returns random A (m×k) and B (k×n) rounded to halves: their
// bits, and their values as float32s.
func f16Case(seed uint64, m, n, k int) (ah, bh []uint16, a, b []float32) {
	g := oracle.NewRand(seed)
	ah, a = toHalves(g.Normal(m*k, 0, 1))
	bh, b = toHalves(g.Normal(k*n, 0, 1))
	return ah, bh, a, b
}

func toHalves(x []float32) ([]uint16, []float32) {
	h, v := make([]uint16, len(x)), make([]float32, len(x))
	for i, f := range x {
		h[i] = oracle.F16FromFloat32(f)
		v[i] = float32(oracle.F16Value(h[i]))
	}
	return h, v
}

// f16Bound is each element's bound for a product of halves summed in
// float32 on the tensor cores: four times the float32 bound of
// gemmCase, since the tensor cores' inner sums may truncate rather than
// round (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021).
func f16Bound(abs []float64, k int) []float64 {
	for i := range abs {
		abs[i] *= 4 * float64(k+2) / (1 << 23)
	}
	return abs
}

// TestC15_6_TwinGemmF16 checks gemm_f16, the tensor-core GEMM the GPU boss
// measures, against the float64 product of its halves, and cuBLAS's
// product of the same halves where cuBLAS is installed.
func TestC15_6_TwinGemmF16(t *testing.T) {
	hostFirst(t)
	g := openGPU(t)
	var blas *cuda.Blas
	if b, err := g.c.NewBlas(); err == nil {
		blas = b
		defer b.Close()
	} else {
		t.Logf("cuBLAS not checked: %v", err)
	}
	for _, s := range []struct{ m, n, k int }{{128, 128, 32}, {256, 384, 512}, {128, 256, 1024}} {
		ah, bh, a, b := f16Case(uint64(s.m+s.n+s.k), s.m, s.n, s.k)
		want := oracle.MatMul(a, s.k, b, s.n, s.m, s.n, s.k, false)
		bound := f16Bound(oracle.MatMulAbs(a, s.k, b, s.n, s.m, s.n, s.k, false), s.k)
		nans := make([]float32, s.m*s.n)
		for i := range nans {
			nans[i] = float32(nan())
		}
		ab, bb := upload(t, g, ah), upload(t, g, bh)
		cb := upload(t, g, nans)
		if err := g.f16(t, cb, ab, bb, s.m, s.n, s.k)(); err != nil {
			t.Fatal(err)
		}
		if err := g.c.Synchronize(); err != nil {
			t.Fatalf("gemm_f16: %v", err)
		}
		oracle.AssertBound(t, fmt.Sprintf("gemm_f16(m=%d, n=%d, k=%d) on %s", s.m, s.n, s.k, g.c.Name), g.download(t, cb, s.m*s.n), want, bound, []int{s.m, s.n})
		if blas == nil {
			continue
		}
		cb2 := upload(t, g, nans)
		if err := blas.GemmF16(cb2, ab, bb, s.m, s.n, s.k); err != nil {
			t.Fatal(err)
		}
		oracle.AssertBound(t, fmt.Sprintf("cuBLAS GemmEx(m=%d, n=%d, k=%d) on %s", s.m, s.n, s.k, g.c.Name), g.download(t, cb2, s.m*s.n), want, bound, []int{s.m, s.n})
	}
}
