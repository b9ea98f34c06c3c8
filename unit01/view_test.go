package unit01

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// viewCase checks a view: its values against the oracle, and that it shares
// the source's storage without allocating a new one.
func checkView(t *testing.T, what string, src, view Tensor, want []float64, wantShape []int, before int64) {
	t.Helper()
	sameValues(t, what, view, want, wantShape)
	if view.Storage() != src.Storage() {
		t.Errorf("%s: the view has a different Storage than its source; views must share it", what)
	}
	if StorageAllocations() != before {
		t.Errorf("%s: %d new Storage buffers; a view copies nothing", what, StorageAllocations()-before)
	}
}

func TestC1_3_Reshape(t *testing.T) {
	x := iota(t, 2, 3, 4)
	before := StorageAllocations()
	for _, to := range [][]int{{24}, {4, 6}, {2, 12}, {1, 24, 1}, {2, 3, 2, 2}} {
		v, err := x.Reshape(MustShape(to...))
		if err != nil {
			t.Fatalf("Reshape %v: %v", to, err)
		}
		checkView(t, fmt.Sprintf("Reshape([2 3 4] → %v)", to), x, v, oracle.Iota(24), to, before)
	}
	if _, err := x.Reshape(MustShape(5, 5)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Reshape of 24 elements to [5 5]: error = %v, want unit00.ErrInvalid", err)
	}
	tr, _ := x.Transpose(0, 2)
	if _, err := tr.Reshape(MustShape(24)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Reshape of a transposed (non-contiguous) view: error = %v, want unit00.ErrInvalid (its elements are not in row-major order in memory)", err)
	}
	sl, _ := x.Slice(0, 1, 2) // one [3 4] block: contiguous, at an offset
	v, err := sl.Reshape(MustShape(12))
	if err != nil {
		t.Fatalf("Reshape of a contiguous slice: %v", err)
	}
	checkView(t, "Reshape(slice [1:2] of [2 3 4] → [12])", x, v, oracle.Iota(24)[12:], []int{12}, before)
}

func TestC1_3_Permute(t *testing.T) {
	x := iota(t, 2, 3, 4)
	before := StorageAllocations()
	for _, perm := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}} {
		v, err := x.Permute(perm...)
		if err != nil {
			t.Fatalf("Permute%v: %v", perm, err)
		}
		want, shape := oracle.Permute(oracle.Iota(24), []int{2, 3, 4}, perm)
		checkView(t, fmt.Sprintf("Permute%v of [2 3 4]", perm), x, v, want, shape, before)
	}
	for _, bad := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}, {-1, 0, 1}} {
		if _, err := x.Permute(bad...); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Permute%v of a rank-3 tensor: error = %v, want unit00.ErrInvalid", bad, err)
		}
	}
}

func TestC1_3_Transpose(t *testing.T) {
	x := iota(t, 3, 5)
	before := StorageAllocations()
	v, err := x.Transpose(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, shape := oracle.Permute(oracle.Iota(15), []int{3, 5}, []int{1, 0})
	checkView(t, "Transpose(0, 1) of [3 5]", x, v, want, shape, before)
	for i := 0; i < 3; i++ {
		for j := 0; j < 5; j++ {
			if v.At(j, i) != x.At(i, j) {
				t.Fatalf("transposed At(%d, %d) = %v, original At(%d, %d) = %v", j, i, v.At(j, i), i, j, x.At(i, j))
			}
		}
	}
	if v.IsContiguous() {
		t.Errorf("a transposed [3 5] view reports IsContiguous")
	}
	back, _ := v.Transpose(1, 0)
	if !back.IsContiguous() {
		t.Errorf("transposing twice gives the original layout, which is contiguous")
	}
	for _, ab := range [][2]int{{1, 0}, {0, 0}, {1, 1}} { // axis 0 is an axis too
		if _, err := x.Transpose(ab[0], ab[1]); err != nil {
			t.Errorf("Transpose(%d, %d) of a rank-2 tensor: %v; both axes are in range", ab[0], ab[1], err)
		}
	}
	for _, ab := range [][2]int{{0, 2}, {2, 0}, {-1, 0}, {0, -1}, {2, 2}} {
		if _, err := x.Transpose(ab[0], ab[1]); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Transpose(%d, %d) of a rank-2 tensor: error = %v, want unit00.ErrInvalid (check both axes, on both sides)", ab[0], ab[1], err)
		}
	}
}

func TestC1_3_Slice(t *testing.T) {
	x := iota(t, 4, 5, 6)
	before := StorageAllocations()
	for _, tc := range []struct{ axis, start, end int }{{0, 1, 3}, {1, 2, 5}, {2, 0, 1}, {2, 3, 6}, {1, 2, 2}, {0, 0, 4}} {
		v, err := x.Slice(tc.axis, tc.start, tc.end)
		if err != nil {
			t.Fatalf("Slice(%d, %d, %d): %v", tc.axis, tc.start, tc.end, err)
		}
		want, shape := oracle.SliceAxis(oracle.Iota(120), []int{4, 5, 6}, tc.axis, tc.start, tc.end)
		checkView(t, fmt.Sprintf("Slice(axis %d, [%d, %d)) of [4 5 6]", tc.axis, tc.start, tc.end), x, v, want, shape, before)
	}
	// {3, 0, 0} and {-1, 0, 0} name no axis, though their empty range would
	// fit any extent.
	for _, bad := range []struct{ axis, start, end int }{{3, 0, 1}, {3, 0, 0}, {-1, 0, 0}, {0, 2, 1}, {1, 0, 6}, {2, -1, 2}} {
		if _, err := x.Slice(bad.axis, bad.start, bad.end); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Slice(%d, %d, %d) of [4 5 6]: error = %v, want unit00.ErrInvalid", bad.axis, bad.start, bad.end, err)
		}
	}
}

// TestC1_3_Chains applies views to views: offsets and strides must compose.
func TestC1_3_Chains(t *testing.T) {
	x := iota(t, 4, 5, 6)
	before := StorageAllocations()
	data, shape := oracle.Iota(120), []int{4, 5, 6}

	v, _ := x.Slice(0, 1, 4)
	data, shape = oracle.SliceAxis(data, shape, 0, 1, 4)
	v, _ = v.Slice(2, 2, 5)
	data, shape = oracle.SliceAxis(data, shape, 2, 2, 5)
	v, _ = v.Transpose(0, 2)
	data, shape = oracle.Permute(data, shape, []int{2, 1, 0})
	v, _ = v.Slice(1, 1, 4)
	data, shape = oracle.SliceAxis(data, shape, 1, 1, 4)
	checkView(t, "Slice, Slice, Transpose, Slice of [4 5 6]", x, v, data, shape, before)

	// A slice at an offset, then a slice of that slice: the second offset is
	// relative to the first view, not to the storage.
	a, _ := x.Slice(0, 2, 4)
	b, _ := a.Slice(0, 1, 2)
	want, wshape := oracle.SliceAxis(oracle.Iota(120), []int{4, 5, 6}, 0, 3, 4)
	checkView(t, "Slice [1:2] of Slice [2:4] of [4 5 6]", x, b, want, wshape, before)
	if b.Offset() != 90 {
		t.Errorf("Slice [1:2] of Slice [2:4] along an axis of stride 30 has offset %d, want 90", b.Offset())
	}
}

func TestC1_3_Expand(t *testing.T) {
	x := iota(t, 3, 1)
	row := iota(t, 4)
	before := StorageAllocations()
	for _, to := range [][]int{{3, 4}, {2, 3, 4}, {3, 1}, {5, 3, 1}, {1, 1, 1, 1, 1, 2, 3, 4}} { // up to MaxRank
		v, err := x.Expand(MustShape(to...))
		if err != nil {
			t.Fatalf("Expand [3 1] → %v: %v", to, err)
		}
		checkView(t, fmt.Sprintf("Expand([3 1] → %v)", to), x, v, oracle.BroadcastTo(oracle.Iota(3), []int{3, 1}, to), to, before)
	}
	v, _ := x.Expand(MustShape(3, 4))
	if st := v.Strides(); st[1] != 0 {
		t.Errorf("Expand [3 1] → [3 4]: stride of the broadcast axis = %d, want 0", st[1])
	}
	r, err := row.Expand(MustShape(2, 4))
	if err != nil {
		t.Fatal(err)
	}
	checkView(t, "Expand([4] → [2 4])", row, r, oracle.BroadcastTo(oracle.Iota(4), []int{4}, []int{2, 4}), []int{2, 4}, before)
	for _, bad := range [][]int{{3, 2, 2}, {4, 4}, {1}} {
		if _, err := x.Expand(MustShape(bad...)); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Expand [3 1] → %v: error = %v, want unit00.ErrInvalid", bad, err)
		}
	}
}

func TestC1_3_Contiguous(t *testing.T) {
	x := iota(t, 3, 4)
	if c := x.Contiguous(); c.Storage() != x.Storage() {
		t.Errorf("Contiguous of a contiguous tensor copied it; it must return the tensor itself")
	}
	views := []struct {
		name  string
		make  func() (Tensor, error)
		want  []float64
		shape []int
	}{
		{"transpose", func() (Tensor, error) { return x.Transpose(0, 1) },
			first(oracle.Permute(oracle.Iota(12), []int{3, 4}, []int{1, 0})), []int{4, 3}},
		{"column slice", func() (Tensor, error) { return x.Slice(1, 1, 3) },
			first(oracle.SliceAxis(oracle.Iota(12), []int{3, 4}, 1, 1, 3)), []int{3, 2}},
		{"broadcast", func() (Tensor, error) {
			r, _ := x.Slice(0, 2, 3)
			return r.Expand(MustShape(2, 1, 4))
		}, []float64{8, 9, 10, 11, 8, 9, 10, 11}, []int{2, 1, 4}},
		// Every axis a tensor can have: the odometer runs over all of them.
		{"rank-8 permutation", func() (Tensor, error) {
			return iota(t, 2, 1, 2, 1, 2, 1, 2, 3).Permute(7, 6, 5, 4, 3, 2, 1, 0)
		}, first(oracle.Permute(oracle.Iota(48), []int{2, 1, 2, 1, 2, 1, 2, 3}, []int{7, 6, 5, 4, 3, 2, 1, 0})), []int{3, 2, 1, 2, 1, 2, 1, 2}},
	}
	for _, tc := range views {
		v, err := tc.make()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		before := StorageAllocations()
		c := v.Contiguous()
		if StorageAllocations()-before != 1 {
			t.Errorf("Contiguous of a %s view made %d Storages, want 1 (the copy)", tc.name, StorageAllocations()-before)
		}
		if !c.IsContiguous() || c.Offset() != 0 {
			t.Errorf("Contiguous of a %s view: IsContiguous %v, offset %d; want true, 0", tc.name, c.IsContiguous(), c.Offset())
		}
		sameValues(t, "Contiguous of a "+tc.name+" view", c, tc.want, tc.shape)
		if fmt.Sprint(c.F32()) != fmt.Sprint(float32s(tc.want)) {
			t.Errorf("Contiguous of a %s view: memory holds %v, want %v in row-major order", tc.name, c.F32(), tc.want)
		}
	}
	// A 2-byte type: element [0 2] of a [2 3] F16 tensor holds the bits 0x3e00
	// (1.5); after a transpose and Contiguous it is element [2 0] of [3 2],
	// bytes 8 and 9 of the copy. (Raw bits, so 1.4's conversions are not needed.)
	h, _ := Zeros(F16, MustShape(2, 3))
	h.Storage().Bytes()[4], h.Storage().Bytes()[5] = 0x00, 0x3e
	ht, _ := h.Transpose(0, 1)
	hc := ht.Contiguous()
	if b := hc.Storage().Bytes(); hc.DType() != F16 || len(b) != 12 || b[8] != 0x00 || b[9] != 0x3e {
		t.Errorf("Contiguous of a transposed F16 view: dtype %v, bytes % x; want F16 with 00 3e at bytes 8..9 (copy whole 2-byte elements)", hc.DType(), b)
	}
}

func first(data []float64, _ []int) []float64 { return data }

func TestC1_3_QuantizedViews(t *testing.T) {
	q, _ := Empty(Q4_0, MustShape(4, 64))
	for i := range q.Storage().Bytes() {
		q.Storage().Bytes()[i] = byte(i)
	}
	rows, err := q.Slice(0, 1, 3)
	if err != nil {
		t.Fatalf("Slice of rows of a Q4_0 tensor: %v", err)
	}
	if rows.ByteOffset() != 36 {
		t.Errorf("rows [1:3] of a Q4_0 [4 64] tensor start at byte %d, want 36", rows.ByteOffset())
	}
	if d := rows.Data(); len(d) != 72 || d[0] != 36 {
		t.Errorf("Data() of rows [1:3]: %d bytes starting with %d, want 72 starting with 36", len(d), d[0])
	}
	if r, err := q.Reshape(MustShape(2, 2, 64)); err != nil || !r.IsContiguous() {
		t.Errorf("Reshape of Q4_0 [4 64] to [2 2 64] keeps whole rows: err %v", err)
	}
	for name, f := range map[string]func() (Tensor, error){
		"Transpose":     func() (Tensor, error) { return q.Transpose(0, 1) },
		"Slice columns": func() (Tensor, error) { return q.Slice(1, 0, 32) },
		"Reshape":       func() (Tensor, error) { return q.Reshape(MustShape(8, 32)) },
	} {
		if _, err := f(); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("%s of a Q4_0 tensor that splits its blocks: error = %v, want unit00.ErrInvalid", name, err)
		}
	}
	// Views of rank 1 keep the blocks too: the last axis is the only one.
	row, err := q.Slice(0, 2, 3)
	if err != nil {
		t.Fatalf("Slice of one row of a Q4_0 tensor: %v", err)
	}
	if flat, err := row.Reshape(MustShape(64)); err != nil || flat.Shape().Rank() != 1 {
		t.Errorf("Reshape of one Q4_0 row [1 64] to [64]: rank %d, error %v; want a rank-1 view (whole blocks, unit stride)", flat.Shape().Rank(), err)
	} else if p, err := flat.Permute(0); err != nil {
		t.Errorf("Permute(0) of a rank-1 Q4_0 view: %v; the identity keeps every block", err)
	} else if p.Shape().Rank() != 1 {
		t.Errorf("Permute(0) of a rank-1 Q4_0 view has rank %d", p.Shape().Rank())
	}
	c := rows.Contiguous()
	if c.Storage() != q.Storage() {
		t.Errorf("Contiguous of a row slice (already contiguous) copied it")
	}
	// A square tensor: transposing it keeps the last extent (32) but not
	// its unit stride, which splits every block just the same.
	sq, _ := Empty(Q4_0, MustShape(32, 32))
	if _, err := sq.Transpose(0, 1); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Transpose of a square Q4_0 [32 32] tensor: error = %v, want unit00.ErrInvalid (the last axis keeps its extent, but its stride is no longer 1)", err)
	}
}

// TestC1_3_QuantizedContiguous: a strided view of a quantized tensor (whole
// rows of blocks, in another order) is copied row by row, each row's blocks
// as they are.
func TestC1_3_QuantizedContiguous(t *testing.T) {
	q, _ := Empty(Q4_0, MustShape(2, 3, 64)) // 6 rows of 36 bytes
	b := q.Storage().Bytes()
	for i := range b {
		b[i] = byte(i % 251)
	}
	p, err := q.Permute(1, 0, 2) // [3 2 64]: row (i, j) is source row (j, i)
	if err != nil {
		t.Fatalf("Permute(1, 0, 2) of Q4_0 [2 3 64]: %v", err)
	}
	c := p.Contiguous()
	got := c.Storage().Bytes()
	if len(got) != 6*36 || c.Storage() == q.Storage() {
		t.Fatalf("Contiguous of a permuted Q4_0 view: %d bytes (same storage: %v); want a new storage of 216", len(got), c.Storage() == q.Storage())
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			src := (j*3 + i) * 36
			dst := (i*2 + j) * 36
			if diff := cmp.Diff(b[src:src+36], got[dst:dst+36]); diff != "" {
				t.Fatalf("Contiguous of Permute(1, 0, 2) of Q4_0 [2 3 64]: row [%d %d] (bytes %d..%d) must be source row [%d %d] (bytes %d..%d) unchanged: copy whole rows of blocks, not elements (-want +got):\n%s",
					i, j, dst, dst+35, j, i, src, src+35, diff)
			}
		}
	}
}

// TestC1_3_StridedContiguous: rank-1 and rank-3 strided views, random
// shapes and strides, copied by Contiguous and read back against the
// oracle's element-by-element gather.
func TestC1_3_StridedContiguous(t *testing.T) {
	g := oracle.NewRand(13)
	data := float32s(oracle.Iota(4096))
	base, err := FromSlice(data, MustShape(4096))
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 60 {
		rank := 1 + trial%3
		dims, strides := make([]int, rank), make([]int, rank)
		var st Strides
		span := 0
		for i := range dims {
			dims[i] = 1 + g.Intn(7)
			strides[i] = g.Intn(9) // 0 repeats, others skip
			st[i] = strides[i]
			span += (dims[i] - 1) * strides[i]
		}
		off := g.Intn(4096 - span)
		v := Tensor{storage: base.Storage(), offset: off, shape: MustShape(dims...), strides: st, dtype: F32}
		want := make([]float64, 0, oracle.Numel(dims))
		idx := make([]int, rank)
		for n := 0; n < oracle.Numel(dims); n++ {
			pos := off
			for i := range idx {
				pos += idx[i] * strides[i]
			}
			want = append(want, float64(data[pos]))
			for a := rank - 1; a >= 0; a-- {
				if idx[a]++; idx[a] < dims[a] {
					break
				}
				idx[a] = 0
			}
		}
		c := v.Contiguous()
		what := fmt.Sprintf("Contiguous of a view with shape %v, strides %v, offset %d", dims, strides, off)
		if !c.IsContiguous() {
			t.Fatalf("%s is not contiguous", what)
		}
		if diff := cmp.Diff(float32s(want), c.F32()); diff != "" {
			t.Fatalf("%s: memory differs from the elements in row-major order (-want +got):\n%s", what, diff)
		}
	}
}
