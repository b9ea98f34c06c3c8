package unit01

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/stretchr/testify/require"
)

func TestC1_1_Shape(t *testing.T) {
	tests := []struct {
		dims    []int
		numel   int
		str     string
		strides []int
	}{
		{nil, 1, "[]", nil},
		{[]int{5}, 5, "[5]", []int{1}},
		{[]int{2, 3}, 6, "[2 3]", []int{3, 1}},
		{[]int{2, 3, 4}, 24, "[2 3 4]", []int{12, 4, 1}},
		{[]int{4, 0, 3}, 0, "[4 0 3]", []int{0, 3, 1}},
		{[]int{1, 1, 1, 1, 1, 1, 1, 7}, 7, "[1 1 1 1 1 1 1 7]", []int{7, 7, 7, 7, 7, 7, 7, 1}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.dims), func(t *testing.T) {
			s, err := NewShape(tc.dims...)
			if err != nil {
				t.Fatalf("NewShape(%v): %v", tc.dims, err)
			}
			if s.Rank() != len(tc.dims) {
				t.Errorf("Rank() = %d, want %d", s.Rank(), len(tc.dims))
			}
			for i, d := range tc.dims {
				if s.Dim(i) != d {
					t.Errorf("Dim(%d) = %d, want %d", i, s.Dim(i), d)
				}
			}
			if s.Numel() != tc.numel {
				t.Errorf("Numel() = %d, want %d", s.Numel(), tc.numel)
			}
			if s.String() != tc.str {
				t.Errorf("String() = %q, want %q", s.String(), tc.str)
			}
			st := s.ContiguousStrides()
			if fmt.Sprint(st[:len(tc.dims)]) != fmt.Sprint(tc.strides) && len(tc.dims) > 0 {
				t.Errorf("ContiguousStrides() = %v, want %v (row-major: the last axis has stride 1)", st[:len(tc.dims)], tc.strides)
			}
			if !s.Equal(MustShape(tc.dims...)) {
				t.Errorf("%v.Equal(the same shape) = false", s)
			}
		})
	}
	t.Run("Equal", func(t *testing.T) {
		pairs := [][2]Shape{{MustShape(2, 3), MustShape(3, 2)}, {MustShape(6), MustShape(6, 1)}, {MustShape(), MustShape(1)}}
		for _, p := range pairs {
			if p[0].Equal(p[1]) {
				t.Errorf("%v.Equal(%v) = true, want false", p[0], p[1])
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		bad := [][]int{{1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, -1}, {math.MaxInt / 2, 3}}
		for _, d := range bad {
			if _, err := NewShape(d...); !errors.Is(err, unit00.ErrInvalid) {
				t.Errorf("NewShape(%v) error = %v, want an error wrapping unit00.ErrInvalid", d, err)
			}
		}
		if _, panicked := oracle.Panics(func() { MustShape(-3) }); !panicked {
			t.Errorf("MustShape(-3) did not panic")
		}
		checkPanics(t, "Dim(2) of a rank-2 shape", func() { MustShape(2, 3).Dim(2) })
		checkPanics(t, "Dim(-1) of a rank-2 shape", func() { MustShape(2, 3).Dim(-1) })
	})
	t.Run("largest counts", func(t *testing.T) {
		// math.MaxInt/3 · 3 = math.MaxInt − 1 fits: the overflow test
		// n > MaxInt/d must be strict, or it rejects the largest shapes.
		for _, d := range [][]int{{3, math.MaxInt / 3}, {math.MaxInt / 3, 3}, {1, math.MaxInt}, {math.MaxInt}} {
			s, err := NewShape(d...)
			require.NoError(t, err, "NewShape(%v): its element count fits in an int", d)
			want := 1
			for _, x := range d {
				want *= x
			}
			if s.Numel() != want {
				t.Errorf("NewShape(%v).Numel() = %d, want %d", d, s.Numel(), want)
			}
		}
		// {2^21 2^21 2^22}: no two extents overflow, all three do.
		for _, d := range [][]int{{2, math.MaxInt/2 + 1}, {math.MaxInt/3 + 1, 3}, {1 << 32, 1 << 32}, {1 << 21, 1 << 21, 1 << 22}} {
			_, err := NewShape(d...)
			require.ErrorIs(t, err, unit00.ErrInvalid, "NewShape(%v): the element count overflows int", d)
		}
	})
	t.Run("no heap", func(t *testing.T) {
		var s Shape
		allocs := testing.AllocsPerRun(100, func() { s = MustShape(2, 3, 4) })
		if allocs != 0 || s.Numel() != 24 {
			t.Errorf("MustShape(2, 3, 4) made %v heap allocations; a Shape is a fixed-size value and needs none "+
				"(if an error message formats the dims slice, the slice escapes to the heap on every call: format a copy)", allocs)
		}
	})
}

func TestC1_1_RowBytes(t *testing.T) {
	tests := []struct {
		dt    DType
		n     int
		bytes int
	}{
		{F32, 10, 40}, {F16, 10, 20}, {BF16, 3, 6}, {I8, 7, 7}, {I32, 2, 8},
		{Q4_0, 32, 18}, {Q4_0, 4096, 2304}, {Q8_0, 64, 68}, {Q4_K, 256, 144}, {Q6_K, 512, 420}, {F32, 0, 0},
		{F32, math.MaxInt / 4, math.MaxInt / 4 * 4}, // the largest F32 row whose bytes fit in an int
	}
	for _, tc := range tests {
		got, err := tc.dt.RowBytes(tc.n)
		if err != nil || got != tc.bytes {
			t.Errorf("%v.RowBytes(%d) = %d, %v; want %d, nil", tc.dt, tc.n, got, err, tc.bytes)
		}
	}
	for _, bad := range []struct {
		dt DType
		n  int
	}{{Q4_0, 33}, {Q4_K, 32}, {DType(99), 4}, {F32, -1}, {F32, math.MaxInt / 2}, {I32, math.MaxInt/4 + 1}, {Q8_K, math.MaxInt / 256 * 256}} {
		if n, err := bad.dt.RowBytes(bad.n); !errors.Is(err, unit00.ErrInvalid) || n != 0 {
			t.Errorf("%v.RowBytes(%d) = %d, %v; want 0 and an error wrapping unit00.ErrInvalid (a known type, whole blocks, a byte count that fits in an int): a size beside an error must be 0, so a caller that drops the error allocates nothing", bad.dt, bad.n, n, err)
		}
	}
}

func TestC1_1_Storage(t *testing.T) {
	for _, n := range []int{1, 3, 63, 64, 65, 1000, 4096} {
		before := StorageAllocations()
		s := NewStorage(n)
		if got := StorageAllocations() - before; got != 1 {
			t.Errorf("NewStorage(%d) moved StorageAllocations by %d, want 1", n, got)
		}
		b := s.Bytes()
		if len(b) != n || s.Len() != n {
			t.Fatalf("NewStorage(%d): len(Bytes()) = %d, Len() = %d; want %d", n, len(b), s.Len(), n)
		}
		if a := addr(b); a%Alignment != 0 {
			t.Errorf("NewStorage(%d): buffer starts at %#x, %d bytes past a %d-byte boundary", n, a, a%Alignment, Alignment)
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("NewStorage(%d): byte %d is %d, want a zeroed buffer", n, i, v)
			}
		}
	}
	t.Run("aligned at every small size", func(t *testing.T) {
		// Go's allocator places small blocks at multiples of their size
		// class (80, 96, 112, … bytes), so most of these start off a
		// 64-byte boundary and only the skip computed from the address
		// aligns them.
		for n := 0; n <= 256; n++ {
			if b := NewStorage(n).Bytes(); n > 0 && addr(b)%Alignment != 0 {
				t.Fatalf("NewStorage(%d): buffer starts at %#x, %d bytes past a %d-byte boundary: skip to the next boundary, (−address) mod %d bytes", n, addr(b), addr(b)%Alignment, Alignment, Alignment)
			}
		}
	})
	t.Run("empty and negative", func(t *testing.T) {
		s := NewStorage(0)
		if s.Len() != 0 || len(s.Bytes()) != 0 {
			t.Errorf("NewStorage(0): Len %d, %d bytes; want an empty buffer (a tensor with no elements needs one)", s.Len(), len(s.Bytes()))
		}
		checkPanics(t, "NewStorage(-1)", func() { NewStorage(-1) })
		checkPanics(t, "NewStorage(-100)", func() { NewStorage(-100) })
	})
	t.Run("Float32s lengths", func(t *testing.T) {
		for _, n := range []int{0, 3, 4, 7, 8, 9} {
			var f []float32
			if v, panicked := oracle.Panics(func() { f = NewStorage(n).Float32s() }); panicked {
				t.Errorf("Float32s() of a %d-byte storage panicked: %v", n, v)
				continue
			}
			if len(f) != n/4 {
				t.Errorf("Float32s() of a %d-byte storage has %d elements, want Len()/4 = %d", n, len(f), n/4)
			}
		}
		raw := make([]byte, 20)
		odd := raw[1:] // 19 bytes starting one past an aligned address
		if addr(odd)%4 == 0 {
			odd = raw[2:]
		}
		checkPanics(t, "Float32s() of a WrapStorage buffer that is not 4-byte aligned", func() { WrapStorage(odd).Float32s() })
		// Fewer than 4 bytes hold no float32, whatever their alignment.
		for n := 0; n < 4; n++ {
			var f []float32
			if v, panicked := oracle.Panics(func() { f = WrapStorage(odd[:n]).Float32s() }); panicked || len(f) != 0 {
				t.Errorf("Float32s() of a %d-byte WrapStorage buffer that is not 4-byte aligned: %d elements, panic %v; want none and no panic (there is no float32 to misalign)", n, len(f), v)
			}
		}
	})
	t.Run("Float32s shares memory", func(t *testing.T) {
		s := NewStorage(16)
		f := s.Float32s()
		if len(f) != 4 {
			t.Fatalf("Float32s() of 16 bytes has %d elements, want 4", len(f))
		}
		f[1] = 1 // 0x3f800000, little-endian in bytes 4..7
		if b := s.Bytes(); b[7] != 0x3f || b[6] != 0x80 {
			t.Errorf("writing Float32s()[1] = 1 left bytes 4..7 = % x; Float32s must view the same memory", b[4:8])
		}
	})
	t.Run("WrapStorage", func(t *testing.T) {
		raw := make([]byte, 8)
		before := StorageAllocations()
		s := WrapStorage(raw)
		if StorageAllocations() != before {
			t.Errorf("WrapStorage moved StorageAllocations: it wraps memory, it allocates none")
		}
		s.Bytes()[3] = 9
		if raw[3] != 9 {
			t.Errorf("WrapStorage copied its input; it must use the slice itself")
		}
	})
}

func TestC1_1_Tensor(t *testing.T) {
	t.Run("constructors", func(t *testing.T) {
		for _, dt := range []DType{F32, F16, BF16, I8, I32} {
			z, err := Zeros(dt, MustShape(2, 3))
			if err != nil {
				t.Fatalf("Zeros(%v, [2 3]): %v", dt, err)
			}
			if z.DType() != dt || !z.Shape().Equal(MustShape(2, 3)) || z.Offset() != 0 || z.Numel() != 6 {
				t.Errorf("Zeros(%v, [2 3]) = dtype %v shape %v offset %d numel %d", dt, z.DType(), z.Shape(), z.Offset(), z.Numel())
			}
			if st := z.Strides(); st[0] != 3 || st[1] != 1 {
				t.Errorf("Zeros(%v, [2 3]) strides %v, want [3 1]", dt, st[:2])
			}
			if z.Storage().Len() != 6*dt.BlockBytes() {
				t.Errorf("Zeros(%v, [2 3]) storage of %d bytes, want %d", dt, z.Storage().Len(), 6*dt.BlockBytes())
			}
			for i, b := range z.Storage().Bytes() {
				if b != 0 {
					t.Errorf("Zeros(%v, [2 3]): byte %d is %d", dt, i, b)
					break
				}
			}
		}
		e, err := Empty(Q4_0, MustShape(4, 64))
		if err != nil || e.Storage().Len() != 4*36 {
			t.Errorf("Empty(Q4_0, [4 64]): err %v, storage %d bytes; want 144 (4 rows of two 18-byte blocks)", err, e.Storage().Len())
		}
		if _, err := Empty(Q4_0, MustShape(4, 48)); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Empty(Q4_0, [4 48]) error = %v, want unit00.ErrInvalid (48 is not a whole number of 32-element blocks)", err)
		}
		// Element counts that fit in an int, byte counts that do not: a
		// wrapped size would give a huge tensor a tiny (or no) buffer.
		for _, d := range [][]int{{1 << 62}, {1 << 61, 2}, {3, 1 << 61}, {2, math.MaxInt / 4}} {
			if _, err := Empty(F32, MustShape(d...)); !errors.Is(err, unit00.ErrInvalid) {
				t.Errorf("Empty(F32, %v): error = %v, want unit00.ErrInvalid (its size in bytes overflows int)", d, err)
			}
		}
		if _, err := Empty(DType(77), MustShape(2)); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("Empty(DType(77), [2]) error = %v, want unit00.ErrInvalid", err)
		}
		s, err := Zeros(F32, MustShape())
		if err != nil || s.Numel() != 1 || s.At() != 0 {
			t.Errorf("Zeros(F32, []) (a scalar): err %v, Numel %d", err, s.Numel())
		}
		for _, dt := range []DType{F32, F16, I8} {
			s, err := Zeros(dt, MustShape())
			if err != nil || s.Storage().Len() != dt.BlockBytes() {
				t.Errorf("Zeros(%v, []) (a scalar): err %v, storage of %d bytes; want one element, %d bytes", dt, err, s.Storage().Len(), dt.BlockBytes())
			}
		}
		for _, d := range [][]int{{3, 0}, {0, 5}, {0}, {2, 0, 4}} {
			e, err := Empty(F32, MustShape(d...))
			if err != nil || e.Storage().Len() != 0 || e.Numel() != 0 {
				t.Errorf("Empty(F32, %v): err %v, storage of %d bytes, Numel %d; want no error, 0 bytes, 0 elements (an extent of 0 anywhere, the last axis too)", d, err, e.Storage().Len(), e.Numel())
			}
		}
	})
	t.Run("FromSlice copies", func(t *testing.T) {
		data := []float32{1, 2, 3, 4, 5, 6}
		x, err := FromSlice(data, MustShape(3, 2))
		if err != nil {
			t.Fatal(err)
		}
		data[0] = 100
		if x.At(0, 0) != 1 || x.At(2, 1) != 6 || x.At(1, 0) != 3 {
			t.Errorf("FromSlice: At(0,0), At(1,0), At(2,1) = %v %v %v, want 1 3 6 (and a copy of the data, not the slice itself)", x.At(0, 0), x.At(1, 0), x.At(2, 1))
		}
		if _, err := FromSlice(data, MustShape(4, 2)); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("FromSlice of 6 values into [4 2]: error = %v, want unit00.ErrInvalid", err)
		}
		if _, err := FromSlice(data, MustShape(2, 2)); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("FromSlice of 6 values into [2 2]: error = %v, want unit00.ErrInvalid (too many values is as wrong as too few)", err)
		}
	})
	t.Run("At and Set", func(t *testing.T) {
		// F16 and BF16 elements go through the conversions of 1.4, so
		// TestC1_4_TensorAccess checks them; here F32 and the integers.
		x, _ := Zeros(F32, MustShape(2, 2))
		x.Set(1.1, 1, 0)
		if got := x.At(1, 0); got != 1.1 {
			t.Errorf("F32: Set(1.1) at [1 0] then At = %v", got)
		}
		if b := x.Storage().Bytes()[8:12]; b[0] != 0xcd || b[3] != 0x3f {
			t.Errorf("F32: Set(1.1) at [1 0] must write element 2, little-endian (bytes 8..11 = cd cc 8c 3f), got % x", b)
		}
		if got := x.At(0, 1); got != 0 {
			t.Errorf("F32: Set at [1 0] changed [0 1] to %v", got)
		}
		ints, _ := Zeros(I32, MustShape(3))
		copy(ints.Storage().Bytes()[4:], []byte{0xfe, 0xff, 0xff, 0xff, 7, 0, 0, 0})
		if ints.At(1) != -2 || ints.At(2) != 7 {
			t.Errorf("At(1), At(2) of I32 bytes [4..11] fe ff ff ff 07 00 00 00 = %v, %v; want -2, 7 (element i is bytes 4i..4i+3, little-endian, signed)", ints.At(1), ints.At(2))
		}
		i8, _ := Zeros(I8, MustShape(3))
		i8.Storage().Bytes()[2] = 0x80
		if i8.At(2) != -128 {
			t.Errorf("At(2) of I8 byte 0x80 = %v, want -128", i8.At(2))
		}
		x = iota(t, 2, 3)
		// [1 -1] and [0 3] land inside the storage (elements 2 and 3): only
		// the range check stops them.
		for _, bad := range [][]int{{2, 0}, {0, 3}, {-1, 0}, {1, -1}, {1}, {0, 0, 0}} {
			checkPanics(t, fmt.Sprintf("At%v of a [2 3] tensor", bad), func() { x.At(bad...) })
			checkPanics(t, fmt.Sprintf("Set at %v of a [2 3] tensor", bad), func() { x.Set(1, bad...) })
		}
		q, _ := Zeros(Q4_0, MustShape(32))
		checkPanics(t, "At(0) of a Q4_0 tensor", func() { q.At(0) })
		for _, dt := range []DType{I8, I32, Q4_0} {
			z, _ := Zeros(dt, MustShape(32))
			checkPanics(t, fmt.Sprintf("Set on a %v tensor", dt), func() { z.Set(1, 0) })
		}
	})
	t.Run("F32 and Data", func(t *testing.T) {
		x := iota(t, 2, 3)
		f := x.F32()
		if len(f) != 6 || f[4] != 4 {
			t.Fatalf("F32() of iota [2 3] = %v", f)
		}
		f[4] = 40
		if x.At(1, 1) != 40 {
			t.Errorf("F32() must share the tensor's memory: wrote 40 at [4], At(1,1) = %v", x.At(1, 1))
		}
		if len(x.Data()) != 24 {
			t.Errorf("len(Data()) of a [2 3] F32 tensor = %d, want 24", len(x.Data()))
		}
		h, _ := Zeros(F16, MustShape(2))
		checkPanics(t, "F32() of an F16 tensor", func() { h.F32() })
		i32, _ := Zeros(I32, MustShape(4)) // as many bytes as 4 float32s
		checkPanics(t, "F32() of an I32 tensor", func() { i32.F32() })
		tr, _ := x.Transpose(0, 1)
		checkPanics(t, "F32() of a transposed view", func() { tr.F32() })
		checkPanics(t, "Data() of a transposed view", func() { tr.Data() })
		empty, _ := Zeros(F32, MustShape(0, 3))
		if f := empty.F32(); len(f) != 0 {
			t.Errorf("F32() of a [0 3] tensor has %d elements, want 0", len(f))
		}
	})
	t.Run("ByteStrides", func(t *testing.T) {
		q, _ := Empty(Q4_0, MustShape(4, 64))
		if nb := q.ByteStrides(); nb[0] != 36 || nb[1] != 18 {
			t.Errorf("ByteStrides of Q4_0 [4 64] = %v, want [36 18] (rows of two 18-byte blocks; ggml's nb reversed)", nb[:2])
		}
		q1, _ := Empty(Q4_0, MustShape(64))
		if nb := q1.ByteStrides(); nb[0] != 18 {
			t.Errorf("ByteStrides of Q4_0 [64] = %v, want [18]: the last axis steps one block even when it is the only axis", nb[:1])
		}
		r8, _ := Empty(F32, MustShape(1, 1, 1, 1, 1, 1, 2, 3))
		if nb := r8.ByteStrides(); fmt.Sprint(nb) != "[24 24 24 24 24 24 12 4]" {
			t.Errorf("ByteStrides of F32 [1 1 1 1 1 1 2 3] = %v, want [24 24 24 24 24 24 12 4] (all MaxRank axes, and no more)", nb)
		}
		sc, _ := Empty(F32, MustShape())
		var none Strides
		if v, panicked := oracle.Panics(func() { none = sc.ByteStrides() }); panicked || none != (Strides{}) {
			t.Errorf("ByteStrides of a scalar: %v, panic %v; want all zero (a scalar has no axes)", none, v)
		}
		h, _ := Empty(F16, MustShape(2, 3, 5))
		if nb := h.ByteStrides(); fmt.Sprint(nb[:3]) != "[30 10 2]" {
			t.Errorf("ByteStrides of F16 [2 3 5] = %v, want [30 10 2]", nb[:3])
		}
	})
}

func TestC1_1_IsContiguous(t *testing.T) {
	tests := []struct {
		dims, strides []int
		want          bool
	}{
		{[]int{2, 3}, []int{3, 1}, true},
		{[]int{2, 3}, []int{1, 2}, false},       // a transpose
		{[]int{2, 3}, []int{4, 1}, false},       // rows with a gap (a slice of columns)
		{[]int{1, 4}, []int{999, 1}, true},      // the stride of an extent-1 axis never moves
		{[]int{3, 1}, []int{1, 77}, true},       // ditto, last axis
		{[]int{2, 1, 3}, []int{3, 5, 1}, true},  // ditto, in the middle
		{[]int{2, 3}, []int{0, 1}, false},       // broadcast rows
		{[]int{0, 3}, []int{1, 7}, true},        // no elements
		{[]int{}, []int{}, true},                // a scalar
		{[]int{4}, []int{2}, false},             // every other element
		{[]int{2, 2, 2}, []int{4, 2, 1}, true},  //
		{[]int{2, 2, 2}, []int{4, 1, 2}, false}, // last two axes swapped
	}
	for _, tc := range tests {
		var st Strides
		copy(st[:], tc.strides)
		x := Tensor{storage: NewStorage(4096), shape: MustShape(tc.dims...), strides: st, dtype: F32}
		if got := x.IsContiguous(); got != tc.want {
			t.Errorf("IsContiguous() of shape %v strides %v = %v, want %v", tc.dims, tc.strides, got, tc.want)
		}
	}
}
