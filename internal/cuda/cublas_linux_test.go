//go:build linux

package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// blas returns a cuBLAS handle in c, or skips the test with one line
// saying why there is none.
func blas(t *testing.T, c *Context) *Blas {
	t.Helper()
	b, err := c.NewBlas()
	if errors.Is(err, ErrNoBlas) {
		t.Skipf("not measured: no cuBLAS (%v)", err)
	}
	if err != nil {
		t.Fatalf("NewBlas: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Blas.Close: %v", err)
		}
	})
	t.Logf("%s, cuBLAS %d", b.Library, b.Version)
	return b
}

// TestLoadBlas binds cuBLAS's calls where the library is installed, which
// needs no GPU: a misspelt symbol fails here, not on the first machine
// with a GPU.
func TestLoadBlas(t *testing.T) {
	err := LoadBlas()
	if errors.Is(err, ErrNoBlas) {
		t.Skipf("not measured: no cuBLAS (%v)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bound %s", blasLib)
}

// TestGemmBuffers: sizes that are not positive and buffers too small for
// them are errors that say so, before cuBLAS is called.
func TestGemmBuffers(t *testing.T) {
	buf := func(n int) Buffer { return Buffer{size: n} }
	if err := checkGemmBuffers("Sgemm", buf(4*6), buf(4*6), buf(4*9), 2, 3, 3, 4, 4); err != nil {
		t.Errorf("2×3×3 in buffers that hold it: %v", err)
	}
	for _, s := range []struct{ m, n, k, la, lb, lc int }{
		{0, 3, 3, 0, 36, 0}, {2, -1, 3, 24, 0, 0}, {2, 3, 0, 0, 0, 24},
		{2, 3, 3, 23, 36, 24}, {2, 3, 3, 24, 35, 24}, {2, 3, 3, 24, 36, 23},
	} {
		err := checkGemmBuffers("Sgemm", buf(s.lc), buf(s.la), buf(s.lb), s.m, s.n, s.k, 4, 4)
		if err == nil {
			t.Errorf("m, n, k = %d, %d, %d with A of %d bytes, B of %d, C of %d: no error", s.m, s.n, s.k, s.la, s.lb, s.lc)
		}
	}
}

// TestSgemm compares cuBLAS's row-major product (through its column-major
// interface, transposed) with the float64 product, on shapes where a
// mix-up of m, n, k or of a leading dimension shows.
func TestSgemm(t *testing.T) {
	c := device(t)
	b := blas(t, c)
	for _, s := range []struct{ m, n, k int }{{1, 1, 1}, {17, 33, 5}, {65, 70, 31}, {3, 100, 40}, {128, 64, 256}} {
		g := oracle.NewRand(uint64(s.m*10000 + s.n*100 + s.k))
		av, bv := g.Normal(s.m*s.k, 0, 1), g.Normal(s.k*s.n, 0, 1)
		got := gemmOnDevice(t, c, av, bv, 4, s.m, s.n, s.k, func(cb, ab, bb Buffer) error { return b.Sgemm(cb, ab, bb, s.m, s.n, s.k) })
		want, bound := product(av, bv, s.m, s.n, s.k, 1)
		oracle.AssertBound(t, fmt.Sprintf("Sgemm(m=%d, n=%d, k=%d)", s.m, s.n, s.k), got, want, bound, []int{s.m, s.n})
	}
}

// TestGemmF16: the same for half-precision A and B. The products of two
// halves are exact in float32; the tensor cores' sums may truncate rather
// than round (Fasi et al., "Numerical behavior of NVIDIA tensor cores",
// 2021), so the bound is four times the float32 one.
func TestGemmF16(t *testing.T) {
	c := device(t)
	b := blas(t, c)
	for _, s := range []struct{ m, n, k int }{{1, 1, 1}, {17, 33, 5}, {65, 70, 31}, {128, 64, 256}} {
		g := oracle.NewRand(uint64(s.m*10000 + s.n*100 + s.k))
		ah, av := halves(g.Normal(s.m*s.k, 0, 1))
		bh, bv := halves(g.Normal(s.k*s.n, 0, 1))
		got := gemmOnDevice(t, c, ah, bh, 2, s.m, s.n, s.k, func(cb, ab, bb Buffer) error { return b.GemmF16(cb, ab, bb, s.m, s.n, s.k) })
		want, bound := product(av, bv, s.m, s.n, s.k, 4)
		oracle.AssertBound(t, fmt.Sprintf("GemmF16(m=%d, n=%d, k=%d)", s.m, s.n, s.k), got, want, bound, []int{s.m, s.n})
	}
}

// TestTime times kernels queued back to back with Enqueue: the device's
// time is positive, and every launch ran.
func TestTime(t *testing.T) {
	c := device(t)
	m, err := c.Load(addPTX)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	k, err := m.Kernel("add")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetMaxShared(64 << 10); err != nil {
		t.Errorf("SetMaxShared(64 KB): %v", err)
	}
	const n, runs = 1 << 20, 20
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(x)
	one, err := c.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(one)
	if err := c.CopyIn(x, make([]float32, n)); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyIn(one, ones); err != nil {
		t.Fatal(err)
	}
	d, err := c.Time(func() error {
		for range runs { // x += 1, runs times
			if err := k.Enqueue(Dim3{n / 256, 1, 1}, Dim3{256, 1, 1}, 0, x, one, x, uint32(n)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := c.CopyOut(got, x); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != runs {
			t.Fatalf("x[%d] = %v after %d kernels that each add 1", i, v, runs)
		}
	}
	if d <= 0 {
		t.Errorf("Time of %d kernels = %v, want a positive time", runs, d)
	}
	t.Logf("%d kernels over %d floats: %v, %.0f GB/s", runs, n, d, float64(runs*3*4*n)/d.Seconds()/1e9)
}

// halves rounds x to IEEE half precision: the bits, and their values as
// float32s (exact).
func halves(x []float32) ([]uint16, []float32) {
	h, v := make([]uint16, len(x)), make([]float32, len(x))
	for i, f := range x {
		h[i] = oracle.F16FromFloat32(f)
		v[i] = float32(oracle.F16Value(h[i]))
	}
	return h, v
}

// gemmOnDevice copies A and B (float32s or halves, of elem bytes) to the
// device, runs gemm on them into a C of NaNs, and returns C.
func gemmOnDevice[E float32 | uint16](t *testing.T, c *Context, a, b []E, elem, m, n, k int, gemm func(cb, ab, bb Buffer) error) []float32 {
	t.Helper()
	bufs := make([]Buffer, 3)
	for i, size := range []int{4 * m * n, elem * m * k, elem * k * n} {
		var err error
		if bufs[i], err = c.Alloc(size); err != nil {
			t.Fatal(err)
		}
		defer c.Free(bufs[i])
	}
	nans := make([]float32, m*n)
	for i := range nans {
		nans[i] = float32(nan())
	}
	if err := c.CopyIn(bufs[0], nans); err != nil {
		t.Fatal(err)
	}
	for i, x := range [][]E{a, b} {
		raw, err := binary.Append(nil, binary.LittleEndian, x)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CopyInBytes(bufs[1+i], raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := gemm(bufs[0], bufs[1], bufs[2]); err != nil {
		t.Fatal(err)
	}
	if err := c.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, m*n)
	if err := c.CopyOut(got, bufs[0]); err != nil {
		t.Fatal(err)
	}
	return got
}

// product is the float64 product A·B and each element's error bound,
// scale·(k+2)·2⁻²³·Σ|a·b|.
func product(a, b []float32, m, n, k int, scale float64) (want, bound []float64) {
	want = oracle.MatMul(a, k, b, n, m, n, k, false)
	bound = oracle.MatMulAbs(a, k, b, n, m, n, k, false)
	for i := range bound {
		bound[i] *= scale * float64(k+2) / (1 << 23)
	}
	return want, bound
}

func nan() float64 { var z float64; return z / z }
