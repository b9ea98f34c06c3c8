//go:build linux

package cuda

import (
	_ "embed"
	"errors"
	"testing"
)

//go:embed testdata/add.ptx
var addPTX string

// device returns a context on the first device, or skips the test with
// one line saying why there is none.
func device(t *testing.T) *Context {
	t.Helper()
	c, err := NewContext(0)
	if errors.Is(err, ErrNoDriver) {
		t.Skipf("not measured: no GPU (%v)", err)
	}
	if err != nil {
		t.Fatalf("NewContext(0): %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	t.Logf("device 0: %s, %d multiprocessors", c.Name, c.SMs)
	return c
}

// TestAdd runs a hand-written PTX kernel over a length that is not a
// multiple of the block, so the last block's guard matters, and compares
// every element with the sum computed here.
func TestAdd(t *testing.T) {
	c := device(t)
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(2*i)+0.5
	}
	bufs := make([]Buffer, 3)
	for i := range bufs {
		var err error
		if bufs[i], err = c.Alloc(4 * n); err != nil {
			t.Fatalf("Alloc: %v", err)
		}
		defer c.Free(bufs[i])
	}
	if err := c.CopyIn(bufs[0], a); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyIn(bufs[1], b); err != nil {
		t.Fatal(err)
	}
	// Fill c with a value the kernel never writes, to see every element
	// it misses.
	sentinel := make([]float32, n+24) // 1024: four whole blocks
	for i := range sentinel {
		sentinel[i] = -1
	}
	if err := c.CopyIn(bufs[2], sentinel[:n]); err != nil {
		t.Fatal(err)
	}
	m, err := c.Load(addPTX)
	if err != nil {
		t.Fatalf("Load(add.ptx): %v", err)
	}
	defer m.Unload()
	k, err := m.Kernel("add")
	if err != nil {
		t.Fatalf("Kernel(add): %v", err)
	}
	if err := k.Launch(Dim3{4, 1, 1}, Dim3{256, 1, 1}, 0, bufs[0], bufs[1], bufs[2], uint32(n)); err != nil {
		t.Fatalf("Launch: %v", err)
	}
	got := make([]float32, n)
	if err := c.CopyOut(got, bufs[2]); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if want := a[i] + b[i]; got[i] != want {
			t.Fatalf("c[%d] = %v, want %v (a kernel launched on 4 blocks of 256 threads over %d elements)", i, got[i], want, n)
		}
	}
}

// TestErrors: a kernel that does not exist, PTX that does not compile and
// an argument of a type Launch does not pass are errors that name what
// failed, not crashes.
func TestErrors(t *testing.T) {
	c := device(t)
	if _, err := c.Load("this is not PTX"); err == nil {
		t.Errorf("Load of text that is not PTX: no error")
	} else {
		t.Logf("Load of text that is not PTX: %v", err)
	}
	m, err := c.Load(addPTX)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	if _, err := m.Kernel("absent"); err == nil {
		t.Errorf("Kernel(absent): no error")
	}
	k, err := m.Kernel("add")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Launch(Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, "a string"); err == nil {
		t.Errorf("Launch with a string argument: no error")
	}
}
