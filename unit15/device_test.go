package unit15

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// emuDriver is a Driver over Go memory that checks every call the host
// code makes: each launch's grid, blocks, shared memory and arguments
// against the kernel's launch (written out below from the Go twins'), and
// every buffer's size. Its kernels compute their results in float64 here,
// so 15.5's tests do not depend on the kernels of 15.2 to 15.4. With
// failAt n, its n-th call fails with errInjected.
type emuDriver struct {
	mem      map[Ptr][]float32
	next     Ptr
	calls    int
	failAt   int
	launched []string // the kernels launched, in order
	copiedIn map[Ptr]bool
}

var errInjected = errors.New("the emulated device's injected failure")

func newEmu() *emuDriver { return &emuDriver{mem: map[Ptr][]float32{}, copiedIn: map[Ptr]bool{}} }

func (e *emuDriver) call(what string) error {
	e.calls++
	if e.calls == e.failAt {
		return fmt.Errorf("%s: %w", what, errInjected)
	}
	return nil
}

func (e *emuDriver) Alloc(words int) (Ptr, error) {
	if err := e.call("Alloc"); err != nil {
		return 0, err
	}
	if words < 1 {
		return 0, fmt.Errorf("Alloc(%d): want at least one word", words)
	}
	e.next++
	e.mem[e.next] = make([]float32, words)
	for i := range e.mem[e.next] {
		e.mem[e.next][i] = float32(nan()) // device memory is not zeroed
	}
	return e.next, nil
}

func (e *emuDriver) Free(p Ptr) error {
	if _, ok := e.mem[p]; !ok {
		return fmt.Errorf("Free(%d): not allocated, or freed twice", p)
	}
	delete(e.mem, p) // freed even when the call then reports a failure
	return e.call("Free")
}

func (e *emuDriver) CopyIn(dst Ptr, src []float32) error {
	if err := e.call("CopyIn"); err != nil {
		return err
	}
	b, ok := e.mem[dst]
	if !ok || len(src) != len(b) {
		return fmt.Errorf("CopyIn of %d words to buffer %d of %d words (allocated %v): copy whole inputs to buffers of their size", len(src), dst, len(b), ok)
	}
	copy(b, src)
	e.copiedIn[dst] = true
	return nil
}

func (e *emuDriver) CopyOut(dst []float32, src Ptr) error {
	if err := e.call("CopyOut"); err != nil {
		return err
	}
	b, ok := e.mem[src]
	if !ok || len(dst) != len(b) {
		return fmt.Errorf("CopyOut of %d words from buffer %d of %d words (allocated %v)", len(dst), src, len(b), ok)
	}
	copy(dst, b)
	return nil
}

// launchSpec is how a kernel must be launched for the sizes it is given:
// its grid, block and shared words, the number of buffers and sizes it
// takes, and what it computes.
type launchSpec struct {
	bufs, sizes int
	launch      func(s []int) (grid, block Dim3, shared int)
	words       func(s []int) []int // each buffer's words, output first
	run         func(b [][]float32, s []int)
}

func ceil(a, b int) int { return (a + b - 1) / b }

func gemmSpec(side, shared int) launchSpec {
	return launchSpec{bufs: 3, sizes: 3,
		launch: func(s []int) (Dim3, Dim3, int) {
			return Dim3{ceil(s[1], side), ceil(s[0], side), 1}, Dim3{16, 16, 1}, shared
		},
		words: func(s []int) []int { return []int{s[0] * s[1], s[0] * s[2], s[2] * s[1]} },
		run: func(b [][]float32, s []int) {
			for i, v := range oracle.MatMul(b[1], s[2], b[2], s[1], s[0], s[1], s[2], false) {
				b[0][i] = float32(v)
			}
		}}
}

func transposeSpec(shared int) launchSpec {
	return launchSpec{bufs: 2, sizes: 2,
		launch: func(s []int) (Dim3, Dim3, int) {
			return Dim3{ceil(s[1], 32), ceil(s[0], 32), 1}, Dim3{32, 8, 1}, shared
		},
		words: func(s []int) []int { return []int{s[0] * s[1], s[0] * s[1]} },
		run: func(b [][]float32, s []int) {
			for r := range s[0] {
				for c := range s[1] {
					b[0][c*s[0]+r] = b[1][r*s[1]+c]
				}
			}
		}}
}

var specs = map[string]launchSpec{
	"gemm_naive": gemmSpec(16, 0), "gemm_tiled": gemmSpec(16, 2*16*16), "gemm_register": gemmSpec(64, 2*64*16),
	"transpose_naive": transposeSpec(0), "transpose_shared": transposeSpec(32 * 32), "transpose_padded": transposeSpec(32 * 33),
	"flash_attention": {bufs: 4, sizes: 4,
		launch: func(s []int) (Dim3, Dim3, int) {
			return Dim3{ceil(s[0], 16), 1, 1}, Dim3{32, 16, 1}, (16+2*32)*(ceil(s[2], 32)*32+1) + 16*32
		},
		words: func(s []int) []int { return []int{s[0] * s[2], s[0] * s[2], s[1] * s[2], s[1] * s[2]} },
		run: func(b [][]float32, s []int) {
			nq, nk, d := s[0], s[1], s[2]
			want := oracle.Attention(oracle.Float64s(b[1]), oracle.Float64s(b[2]), oracle.Float64s(b[3]), nq, nk-nq, 1, 1, d)
			if s[3] == 0 {
				want = fullAttention(b[1], b[2], b[3], nq, nk, d)
			}
			for i, v := range want {
				b[0][i] = float32(v)
			}
		}},
}

func (e *emuDriver) Launch(name string, grid, block Dim3, shared int, args ...any) error {
	if err := e.call("Launch"); err != nil {
		return err
	}
	spec, ok := specs[name]
	if !ok {
		return fmt.Errorf("Launch: no kernel %q in unit15.cu", name)
	}
	if len(args) != spec.bufs+spec.sizes {
		return fmt.Errorf("Launch %s with %d arguments, want %d buffers then %d int32 sizes", name, len(args), spec.bufs, spec.sizes)
	}
	bufs, sizes := make([][]float32, spec.bufs), make([]int, spec.sizes)
	for i, a := range args {
		if i < spec.bufs {
			p, ok := a.(Ptr)
			if bufs[i] = e.mem[p]; !ok || bufs[i] == nil {
				return fmt.Errorf("Launch %s: argument %d is %T %v, want an allocated Ptr (the buffers come first, the output first of them)", name, i, a, a)
			}
			if i > 0 && !e.copiedIn[p] {
				return fmt.Errorf("Launch %s: input buffer %d (argument %d) was never copied in", name, p, i)
			}
			continue
		}
		s, ok := a.(int32)
		if !ok {
			return fmt.Errorf("Launch %s: argument %d is %T, want an int32 size", name, i, a)
		}
		if name == "flash_attention" && i == len(args)-1 && s != 0 && s != 1 {
			return fmt.Errorf("Launch %s: causal is %d, want the int32 0 or 1", name, s)
		}
		sizes[i-spec.bufs] = int(s)
	}
	for i, w := range spec.words(sizes) {
		if len(bufs[i]) != w {
			return fmt.Errorf("Launch %s with sizes %v: buffer argument %d holds %d words, want %d (arguments in the kernel's order?)", name, sizes, i, len(bufs[i]), w)
		}
	}
	if g, b, sh := spec.launch(sizes); g != grid || b != block || sh != shared {
		return fmt.Errorf("Launch %s with sizes %v: grid %v, block %v, %d shared words; its Go twin launches grid %v, block %v, %d shared words", name, sizes, grid, block, shared, g, b, sh)
	}
	spec.run(bufs, sizes)
	e.launched = append(e.launched, name)
	return nil
}

// deviceRun is one call of a host function on a device, with its inputs
// and what its output must be (computed here, in float64).
type deviceRun struct {
	what   string
	kernel string
	run    func(d Driver) error
	out    []float32
	want   []float64
	bound  []float64 // a GEMM's error bound on a real device (sums in another order); nil: attentionTol
	calls  int       // a successful run's driver calls: Alloc, CopyIn, Launch, CopyOut and Free
}

func deviceRuns() []deviceRun {
	var runs []deviceRun
	for _, s := range []struct{ m, n, k int }{{17, 33, 5}, {64, 64, 64}, {65, 70, 31}, {1, 1, 1}} {
		for _, name := range []string{"gemm_naive", "gemm_tiled", "gemm_register"} {
			a, b, c, want, bound := gemmCase(uint64(s.m+s.n+s.k), s.m, s.n, s.k)
			runs = append(runs, deviceRun{fmt.Sprintf("DeviceGemm(%s, m=%d, n=%d, k=%d)", name, s.m, s.n, s.k), name,
				func(d Driver) error { return DeviceGemm(d, name, c.Data, a.Data, b.Data, s.m, s.n, s.k) }, c.Data, want, bound, 3 + 2 + 1 + 1 + 3})
		}
	}
	for _, s := range []struct{ rows, cols int }{{33, 65}, {64, 32}, {1, 1}} {
		for _, name := range []string{"transpose_naive", "transpose_shared", "transpose_padded"} {
			in, out, want := transposeCase(uint64(s.rows+s.cols), s.rows, s.cols)
			runs = append(runs, deviceRun{fmt.Sprintf("DeviceTranspose(%s, rows=%d, cols=%d)", name, s.rows, s.cols), name,
				func(d Driver) error { return DeviceTranspose(d, name, out.Data, in.Data, s.rows, s.cols) }, out.Data, oracle.Float64s(want), nil, 2 + 1 + 1 + 1 + 2})
		}
	}
	for _, s := range []struct {
		nq, nk, d int
		causal    bool
	}{{17, 40, 64, true}, {3, 70, 13, false}, {1, 1, 128, true}, {20, 20, 33, false}, {16, 40, 64, true}, {15, 15, 8, false}} {
		o, q, k, v, want := attentionCase(uint64(s.nq+s.nk), s.nq, s.nk, s.d, s.causal, 1)
		runs = append(runs, deviceRun{fmt.Sprintf("DeviceFlashAttention(nq=%d, nk=%d, d=%d, causal=%v)", s.nq, s.nk, s.d, s.causal), "flash_attention",
			func(d Driver) error {
				return DeviceFlashAttention(d, o.Data, q.Data, k.Data, v.Data, s.nq, s.nk, s.d, s.causal)
			}, o.Data, want, nil, 4 + 3 + 1 + 1 + 4})
	}
	return runs
}

func TestC15_5_Host(t *testing.T) {
	for _, r := range deviceRuns() {
		e := newEmu()
		require.NoError(t, r.run(e), r.what)
		require.Equal(t, []string{r.kernel}, e.launched, "%s: the kernels launched", r.what)
		oracle.AssertClose(t, r.what+": the output copied back", r.out, r.want, oracle.Tol{Atol: 1e-6, Rtol: 1e-6})
		if len(e.mem) != 0 {
			t.Errorf("%s: %d device buffers left allocated: free every buffer", r.what, len(e.mem))
		}
		if e.calls != r.calls {
			t.Errorf("%s: %d driver calls, want %d: an Alloc per buffer, a CopyIn per input, one Launch, one CopyOut, a Free per buffer", r.what, e.calls, r.calls)
		}
	}
}

// TestC15_5_HostFailures fails each driver call of each run in turn: the
// host function returns that failure, wrapped, and frees every buffer it
// had allocated, whichever step failed.
func TestC15_5_HostFailures(t *testing.T) {
	for _, r := range deviceRuns() {
		for n := 1; n <= r.calls; n++ {
			e := newEmu()
			e.failAt = n
			err := r.run(e)
			require.ErrorIs(t, err, errInjected, "%s with driver call %d failing: the failure is returned, wrapped", r.what, n)
			require.Contains(t, err.Error(), r.kernel, "%s: the error names the kernel", r.what)
			if len(e.mem) != 0 {
				t.Fatalf("%s with driver call %d failing: %d device buffers left allocated: free what was allocated, also on a failure", r.what, n, len(e.mem))
			}
		}
	}
}

func TestC15_5_HostArguments(t *testing.T) {
	e := newEmu()
	buf := func(n int) []float32 { return make([]float32, n) }
	for _, tc := range []struct {
		what string
		err  error
	}{
		{"DeviceGemm(gemm_fast)", DeviceGemm(e, "gemm_fast", buf(4), buf(4), buf(4), 2, 2, 2)},
		{"DeviceGemm(transpose_naive)", DeviceGemm(e, "transpose_naive", buf(4), buf(4), buf(4), 2, 2, 2)},
		{"DeviceGemm(m=0)", DeviceGemm(e, "gemm_naive", buf(0), buf(0), buf(4), 0, 2, 2)},
		{"DeviceGemm(A too short)", DeviceGemm(e, "gemm_tiled", buf(4), buf(3), buf(4), 2, 2, 2)},
		{"DeviceTranspose(transpose)", DeviceTranspose(e, "transpose", buf(4), buf(4), 2, 2)},
		{"DeviceTranspose(gemm_naive)", DeviceTranspose(e, "gemm_naive", buf(4), buf(4), 2, 2)},
		{"DeviceTranspose(out too long)", DeviceTranspose(e, "transpose_naive", buf(5), buf(4), 2, 2)},
		{"DeviceTranspose(cols=0)", DeviceTranspose(e, "transpose_padded", buf(0), buf(0), 2, 0)},
		{"DeviceFlashAttention(d=129)", DeviceFlashAttention(e, buf(129), buf(129), buf(129), buf(129), 1, 1, 129, false)},
		{"DeviceFlashAttention(causal, nq > nk)", DeviceFlashAttention(e, buf(4), buf(4), buf(2), buf(2), 2, 1, 2, true)},
	} {
		require.ErrorIs(t, tc.err, unit00.ErrInvalid, tc.what)
	}
	require.Zero(t, e.calls, "bad arguments are refused before any call to the device")
}

// TestC15_6_Device runs every kernel of unit15.cu through the host
// functions of 15.5 on this machine's GPU, and compares what comes back
// with the float64 results: GEMMs within their error bound (sums in
// another order, fused multiply-adds), transposes and attention within
// attentionTol. Without a GPU it is skipped, never passed. It first runs
// the host code on the emulated device, so that host code that is not
// written or not right stops here, the same on every machine.
func TestC15_6_Device(t *testing.T) {
	hostFirst(t)
	d, err := OpenCUDA()
	if errors.Is(err, cuda.ErrNoDriver) {
		t.Skipf("not measured: no GPU (%v)", err)
	}
	require.NoError(t, err, "OpenCUDA")
	defer d.Close()
	t.Logf("device: %s", d.Name)
	for _, r := range deviceRuns() {
		for i := range r.out {
			r.out[i] = float32(nan())
		}
		require.NoError(t, r.run(d), r.what)
		if r.bound != nil {
			oracle.AssertBound(t, r.what+" on "+d.Name, r.out, r.want, r.bound, nil)
		} else {
			oracle.AssertClose(t, r.what+" on "+d.Name, r.out, r.want, attentionTol)
		}
		require.Empty(t, d.bufs, "%s: buffers left on the device", r.what)
	}
}

// hostFirst runs a GEMM through the host code of 15.5 on the emulated
// device: the tests of 15.6 need it, so where it is not written or not
// right they stop here, on every machine, before they look for a GPU.
func hostFirst(t *testing.T) {
	t.Helper()
	r := deviceRuns()[0]
	require.NoError(t, r.run(newEmu()), "%s on the emulated device (15.5)", r.what)
}
