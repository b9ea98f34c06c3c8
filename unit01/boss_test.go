package unit01

import (
	"testing"
	"time"

	"github.com/llmforge/forge/oracle"
)

// The boss "zero-copy discipline": a long pipeline of views allocates no
// storage and no heap memory, keeps pointing at the one buffer, and shows the
// right elements at the end.

// viewOps are the view operations the boss times and counts, each applied to
// a [4 6 8] tensor.
var viewOps = []struct {
	name string
	op   func(x Tensor) (Tensor, error)
}{
	{"Reshape", func(x Tensor) (Tensor, error) { return x.Reshape(MustShape(24, 8)) }},
	{"Permute", func(x Tensor) (Tensor, error) { return x.Permute(2, 0, 1) }},
	{"Transpose", func(x Tensor) (Tensor, error) { return x.Transpose(0, 2) }},
	{"Slice", func(x Tensor) (Tensor, error) { return x.Slice(1, 2, 5) }},
	{"Expand", func(x Tensor) (Tensor, error) {
		col, err := x.Slice(2, 0, 1)
		if err != nil {
			return col, err
		}
		return col.Expand(MustShape(3, 4, 6, 8))
	}},
}

// views applies n views to x: a slice that drops the first of its 4 planes
// (so every later view carries an offset), then transpose, transpose back,
// permute, full slice, … in turn. It returns the last view.
func views(x Tensor, n int) (Tensor, error) {
	v, err := x.Slice(0, 1, 4)
	for i := 1; i < n && err == nil; i++ {
		switch i % 4 {
		case 0, 1:
			v, err = v.Transpose(0, 2)
		case 2:
			v, err = v.Permute(1, 2, 0)
		case 3:
			v, err = v.Slice(1, 0, v.Shape().Dim(1))
		}
	}
	return v, err
}

// viewsWant is what views(iota [4 6 8], n) must show, from the oracle.
func viewsWant(n int) ([]float64, []int) {
	data, shape := oracle.SliceAxis(oracle.Iota(192), []int{4, 6, 8}, 0, 1, 4)
	for i := 1; i < n; i++ {
		switch i % 4 {
		case 0, 1:
			data, shape = oracle.Permute(data, shape, []int{2, 1, 0})
		case 2:
			data, shape = oracle.Permute(data, shape, []int{1, 2, 0})
		case 3:
			data, shape = oracle.SliceAxis(data, shape, 1, 0, shape[1])
		}
	}
	return data, shape
}

func TestBoss1_ZeroCopy(t *testing.T) {
	x := iota(t, 4, 6, 8)
	before := StorageAllocations()
	v, err := views(x, 1000)
	if err != nil {
		t.Fatalf("a pipeline of 1000 views: %v", err)
	}
	if n := StorageAllocations() - before; n != 0 {
		t.Errorf("1000 successive views created %d Storage buffers; views must copy nothing", n)
	}
	if v.Storage() != x.Storage() {
		t.Errorf("after 1000 views the tensor points at a different Storage")
	}
	want, shape := viewsWant(1000)
	sameValues(t, "the view after a 1000-step pipeline", v, want, shape)

	tr, _ := x.Transpose(0, 2)
	for i := 0; i < 4; i++ {
		for j := 0; j < 6; j++ {
			for k := 0; k < 8; k++ {
				if tr.At(k, j, i) != x.At(i, j, k) {
					t.Fatalf("transposed At(%d,%d,%d) = %v, original At(%d,%d,%d) = %v", k, j, i, tr.At(k, j, i), i, j, k, x.At(i, j, k))
				}
			}
		}
	}
	for _, vo := range viewOps {
		allocs := testing.AllocsPerRun(1000, func() {
			if _, err := vo.op(x); err != nil {
				t.Fatalf("%s: %v", vo.name, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s made %v heap allocations per call; a view is a small value and needs none (does an error path format a slice that escapes?)", vo.name, allocs)
		}
	}
	if n := StorageAllocations() - before; n != 0 {
		t.Errorf("the view operations created %d Storage buffers", n)
	}
}

func BenchmarkBoss1_ZeroCopy(b *testing.B) {
	x, err := FromSlice(make([]float32, 192), MustShape(4, 6, 8))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		worst := 0.0
		for _, vo := range viewOps {
			worst = max(worst, testing.AllocsPerRun(1000, func() { vo.op(x) }))
		}
		before := StorageAllocations()
		start := time.Now()
		if _, err := views(x, 1000); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		b.ReportMetric(worst, "allocs/view")
		b.ReportMetric(float64(StorageAllocations()-before), "storage-allocs")
		b.ReportMetric(float64(elapsed.Nanoseconds())/1000, "ns/view")
	}
}
