package oracle

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// The tests below do not decode with the code under test: they build blocks
// from chosen quants and fields with encoders written here from the layouts
// of docs/unit09.md (9.1), and compute the expected values from the formulas with
// the quants and field values they chose. Hand-written byte blocks check the
// encoders themselves, and "trap" decoders (plausible wrong layouts) show
// that the test data tells every layout from its near misses.

// half is an f16 bit pattern with its value written out by hand.
type half struct {
	bits uint16
	val  float64
}

var (
	hOne     = half{0x3C00, 1}              // exponent 15 = bias, mantissa 0
	hHalf    = half{0x3800, 0.5}            // exponent 14
	hQuarter = half{0x3400, 0.25}           // exponent 13
	hTwo     = half{0x4000, 2}              // exponent 16
	hMinus1  = half{0xBC00, -1}             // sign set, exponent 15
	hMinus2  = half{0xC000, -2}             // sign set, exponent 16
	hThird   = half{0x3555, 0.333251953125} // (1024+341)/1024 · 2^−2 = 1365/4096
	hMax     = half{0x7BFF, 65504}          // (2048−1) · 2^5, the largest finite f16
	hTiny    = half{0x0001, 0x1p-24}        // the smallest subnormal
)

func putHalf(b []byte, h half) { binary.LittleEndian.PutUint16(b, h.bits) }

// pack32 writes 32 4-bit quants into qs[16] as docs/unit09.md draws Q4_0:
// element j in the low nibble of qs[j], element j+16 in its high nibble.
func pack32(qs []byte, q []int) {
	for j := range 16 {
		qs[j] = byte(q[j]&15) | byte(q[j+16]&15)<<4
	}
}

func buildQ4_0(d half, q []int) []byte {
	b := make([]byte, 2+16)
	putHalf(b[0:], d)
	pack32(b[2:], q)
	return b
}

func buildQ4_1(d, m half, q []int) []byte {
	b := make([]byte, 2+2+16)
	putHalf(b[0:], d)
	putHalf(b[2:], m)
	pack32(b[4:], q)
	return b
}

// buildQ5_0 puts the 5th bit of element k at bit k of the little-endian u32
// qh, the low 4 bits as in Q4_0.
func buildQ5_0(d half, q []int) []byte {
	b := make([]byte, 2+4+16)
	putHalf(b[0:], d)
	var qh uint32
	for k, v := range q {
		qh |= uint32(v>>4&1) << k
	}
	binary.LittleEndian.PutUint32(b[2:], qh)
	pack32(b[6:], q)
	return b
}

func buildQ8_0(d half, q []int) []byte {
	b := make([]byte, 2+32)
	putHalf(b[0:], d)
	for i, v := range q {
		b[2+i] = byte(int8(v))
	}
	return b
}

// packScales packs 6-bit codes into scales[12] as the table of docs/unit09.md
// puts it: bytes 0–3 hold sc0–3 in their low 6 bits and bytes 4–7 hold m0–3;
// the top 2 bits of bytes 0–3 hold the high bits of sc4–7, those of bytes 4–7
// the high bits of m4–7; bytes 8–11 hold the low nibbles of sc4–7 (low half)
// and m4–7 (high half).
func packScales(sc, m [8]int) [12]byte {
	var s [12]byte
	for k := range 4 {
		s[k] = byte(sc[k]) | byte(sc[k+4]>>4)<<6
		s[k+4] = byte(m[k]) | byte(m[k+4]>>4)<<6
		s[k+8] = byte(sc[k+4]&15) | byte(m[k+4]&15)<<4
	}
	return s
}

// packK writes 256 4-bit quants into qs[128] in four 32-byte chunks: in chunk
// c, byte l holds element 64c+l (low nibble) and element 64c+32+l (high).
func packK(qs []byte, q []int) {
	for c := range 4 {
		for l := range 32 {
			qs[32*c+l] = byte(q[64*c+l]&15) | byte(q[64*c+32+l]&15)<<4
		}
	}
}

func buildQ4_K(d, dmin half, sc, m [8]int, q []int) []byte {
	b := make([]byte, 2+2+12+128)
	putHalf(b[0:], d)
	putHalf(b[2:], dmin)
	s := packScales(sc, m)
	copy(b[4:16], s[:])
	packK(b[16:], q)
	return b
}

// buildQ5_K adds qh[32]: in chunk c, bit 2c of qh[l] is the 5th bit of
// element 64c+l and bit 2c+1 that of element 64c+32+l.
func buildQ5_K(d, dmin half, sc, m [8]int, q []int) []byte {
	b := make([]byte, 2+2+12+32+128)
	putHalf(b[0:], d)
	putHalf(b[2:], dmin)
	s := packScales(sc, m)
	copy(b[4:16], s[:])
	qh := b[16:48]
	for c := range 4 {
		for l := range 32 {
			qh[l] |= byte(q[64*c+l]>>4&1)<<(2*c) | byte(q[64*c+32+l]>>4&1)<<(2*c+1)
		}
	}
	packK(b[48:], q)
	return b
}

// buildQ6_K follows the table of docs/unit09.md row by row: ql[128], qh[64],
// int8 scales[16], then d.
func buildQ6_K(d half, scales [16]int, q []int) []byte {
	b := make([]byte, 128+64+16+2)
	for n := range 2 {
		ql, qh, e := b[64*n:], b[128+32*n:], q[128*n:]
		for l := range 32 {
			ql[l] = byte(e[l]&15) | byte(e[l+64]&15)<<4
			ql[l+32] = byte(e[l+32]&15) | byte(e[l+96]&15)<<4
			qh[l] = byte(e[l]>>4) | byte(e[l+32]>>4)<<2 | byte(e[l+64]>>4)<<4 | byte(e[l+96]>>4)<<6
		}
	}
	for s, v := range scales {
		b[192+s] = byte(int8(v))
	}
	putHalf(b[208:], d)
	return b
}

// buildQ8_K writes f32 d, int8 qs[256] and the int16 group sums bsums[16].
func buildQ8_K(d float32, q []int) []byte {
	b := make([]byte, 4+256+32)
	binary.LittleEndian.PutUint32(b, math.Float32bits(d))
	for i, v := range q {
		b[4+i] = byte(int8(v))
		g := 260 + 2*(i/16)
		binary.LittleEndian.PutUint16(b[g:], binary.LittleEndian.Uint16(b[g:])+uint16(int16(v)))
	}
	return b
}

// qcase is one block with the quants it was built from and the values the
// formula gives.
type qcase struct {
	name  string
	typ   int
	block []byte
	q     []int
	want  []float64
	sig   bool // built from a signature pattern
}

// shuffled returns a permutation of 0..n−1 drawn from g. A random
// permutation has none of the regularities of an affine one (i ↦ (a·i + b)
// mod n moves elements 32 apart by a multiple of 32, which keeps their low
// nibbles equal), so a field read from the wrong element shows.
func shuffled(g *Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := g.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// signature returns quant patterns in 0..v−1 for n elements under which no
// two elements look alike, the same on every run.
//
// When v ≥ n there is one pattern of n distinct quants. Otherwise there are
// two, A and B, over k = n/v segments of v elements: each segment of A holds
// every value once (so both halves of a Q4_0 block hold all 16 nibbles), and
// the k elements sharing a value of A get distinct digits h = B mod k. Every
// element is thus told apart by (A[i], B[i] mod k); B's other digit is
// random, so that B's high bits carry no pattern either.
func signature(n, v int) [][]int {
	g := NewRand(uint64(1000*n + v))
	if v >= n {
		return [][]int{shuffled(g, v)[:n]}
	}
	k := n / v
	a, b := make([]int, n), make([]int, n)
	for seg := range k {
		copy(a[seg*v:], shuffled(g, v))
	}
	digit := make([][]int, v) // digit[value][seg] = h
	for x := range digit {
		digit[x] = shuffled(g, k)
	}
	for i := range n {
		b[i] = digit[a[i]][i/v] + k*g.Intn(v/k)
	}
	return [][]int{a, b}
}

// quantPatterns returns the signature patterns (the first nsig), the all-min
// and all-max patterns and two random ones, in 0..v−1 (shifted by off).
func quantPatterns(g *Rand, n, v, off int) (ps [][]int, nsig int) {
	ps = signature(n, v)
	nsig = len(ps)
	lo, hi := make([]int, n), make([]int, n)
	for i := range n {
		hi[i] = v - 1
	}
	ps = append(ps, lo, hi)
	for range 2 {
		r := make([]int, n)
		for i := range r {
			r[i] = g.Intn(v)
		}
		ps = append(ps, r)
	}
	for _, p := range ps {
		for i := range p {
			p[i] += off
		}
	}
	return ps, nsig
}

// randomHalf returns a random finite f16 with its value.
func randomHalf(g *Rand) half {
	h := uint16(g.Uint32())
	if h>>10&0x1f == 0x1f {
		h &^= 0x400 // exponent 31 → 30
	}
	return half{h, F16Value(h)}
}

func random6(g *Rand) [8]int {
	var x [8]int
	for i := range x {
		x[i] = g.Intn(64)
	}
	return x
}

var (
	// sc = 1..8, m = 9..16: the high bits of every code but m7 are 0.
	scSmall, mSmall = [8]int{1, 2, 3, 4, 5, 6, 7, 8}, [8]int{9, 10, 11, 12, 13, 14, 15, 16}
	// codes whose high two bits (code >> 4) differ between sc and m.
	scBig, mBig = [8]int{7, 20, 30, 62, 16, 33, 63, 5}, [8]int{1, 2, 50, 31, 47, 18, 0, 60}
	// Q6_K scales, one distinct int8 per sub-block, both extremes included.
	q6Scales = [16]int{-128, 127, 1, -1, 3, 5, -7, 64, 0, 2, 100, -100, 9, -9, 33, 17}
)

// formulaCases builds blocks of every type from chosen fields and quants and
// computes each element's value from the formula of docs/unit09.md (9.1).
func formulaCases() []qcase {
	g := NewRand(9)
	var cases []qcase
	var nsig int // the number of signature patterns of the current loop
	add := func(typ int, name string, block []byte, q []int, pi int, f func(i int) float64) {
		want := make([]float64, len(q))
		for i := range want {
			want[i] = f(i)
		}
		cases = append(cases, qcase{fmt.Sprintf("type %d %s", typ, name), typ, block, q, want, pi < nsig})
	}
	pats := func(n, v, off int) [][]int {
		var ps [][]int
		ps, nsig = quantPatterns(g, n, v, off)
		return ps
	}
	ds := []half{hOne, hHalf, hMinus2, hThird, hMax, hTiny, randomHalf(g)}
	for _, d := range ds {
		for pi, q := range pats(32, 16, 0) {
			add(2, fmt.Sprintf("d=%v pattern %d", d.val, pi), buildQ4_0(d, q), q, pi,
				func(i int) float64 { return float64(q[i]-8) * d.val })
		}
		for pi, q := range pats(32, 32, 0) {
			add(6, fmt.Sprintf("d=%v pattern %d", d.val, pi), buildQ5_0(d, q), q, pi,
				func(i int) float64 { return float64(q[i]-16) * d.val })
		}
		for pi, q := range pats(32, 256, -128) {
			add(8, fmt.Sprintf("d=%v pattern %d", d.val, pi), buildQ8_0(d, q), q, pi,
				func(i int) float64 { return d.val * float64(q[i]) })
		}
	}
	for _, dm := range [][2]half{{hQuarter, hMinus1}, {hTwo, hHalf}, {hThird, hMax}, {hTiny, hMinus2}, {hMinus2, hTiny}, {randomHalf(g), randomHalf(g)}} {
		d, m := dm[0], dm[1]
		for pi, q := range pats(32, 16, 0) {
			add(3, fmt.Sprintf("d=%v m=%v pattern %d", d.val, m.val, pi), buildQ4_1(d, m, q), q, pi,
				func(i int) float64 { return float64(q[i])*d.val + m.val })
		}
	}
	for _, dd := range [][2]half{{hOne, hHalf}, {hQuarter, hTwo}, {hThird, hMax}, {hTiny, hMinus1}, {randomHalf(g), randomHalf(g)}} {
		d, dmin := dd[0], dd[1]
		for si, scm := range [][2][8]int{{scBig, mBig}, {random6(g), random6(g)}} {
			sc, m := scm[0], scm[1]
			name := func(pi int) string {
				return fmt.Sprintf("d=%v dmin=%v scales %d pattern %d", d.val, dmin.val, si, pi)
			}
			// sub-block s of 32 elements: elements 32s..32s+31.
			for pi, q := range pats(256, 16, 0) {
				add(12, name(pi), buildQ4_K(d, dmin, sc, m, q), q, pi, func(i int) float64 {
					return d.val*float64(sc[i/32])*float64(q[i]) - dmin.val*float64(m[i/32])
				})
			}
			for pi, q := range pats(256, 32, 0) {
				add(13, name(pi), buildQ5_K(d, dmin, sc, m, q), q, pi, func(i int) float64 {
					return d.val*float64(sc[i/32])*float64(q[i]) - dmin.val*float64(m[i/32])
				})
			}
		}
	}
	var rnd [16]int
	for s := range rnd {
		rnd[s] = g.Intn(256) - 128
	}
	for _, d := range []half{hOne, hMinus2, hThird, hTiny, randomHalf(g)} {
		for si, scales := range [][16]int{q6Scales, rnd} {
			// 16 sub-blocks of 16 elements: element i is in sub-block i/16.
			for pi, q := range pats(256, 64, 0) {
				add(14, fmt.Sprintf("d=%v scales %d pattern %d", d.val, si, pi), buildQ6_K(d, scales, q), q, pi,
					func(i int) float64 { return d.val * float64(scales[i/16]) * float64(q[i]-32) })
			}
		}
	}
	// f32 d: 0.5, −2, 2^−15, 1/3 rounded to f32 (24 significant bits), the
	// smallest f32 subnormal, and a random finite f32.
	for _, d := range []float32{0.5, -2, 0x1p-15, 1.0 / 3, math.Float32frombits(1), g.Normal(1, 0, 1e-3)[0]} {
		for pi, q := range pats(256, 256, -128) {
			add(15, fmt.Sprintf("d=%v pattern %d", d, pi), buildQ8_K(d, q), q, pi,
				func(i int) float64 { return float64(d) * float64(q[i]) })
		}
	}
	return cases
}

// sameValues reports the first element where got and want differ (NaNs
// count as equal), or a length mismatch.
func sameValues(got, want []float64) (string, bool) {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want)), false
	}
	for i := range got {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			return fmt.Sprintf("element %d = %v, want %v", i, got[i], want[i]), false
		}
	}
	return "", true
}

func assertValues(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if msg, ok := sameValues(got, want); !ok {
		t.Errorf("%s: %s", what, msg)
	}
}

// TestQuantGeometry checks BlockElems and BlockBytes against the table of
// docs/unit09.md (9.1), and that the byte counts are the sums of the fields of
// the block layouts and give the table's bits per weight.
func TestQuantGeometry(t *testing.T) {
	for _, c := range []struct {
		typ, elems, bytes, fields int
		bpw                       float64
	}{
		{0, 1, 4, 4, 32},
		{1, 1, 2, 2, 16},
		{30, 1, 2, 2, 16},
		{2, 32, 18, 2 + 16, 4.5},
		{3, 32, 20, 2 + 2 + 16, 5.0},
		{6, 32, 22, 2 + 4 + 16, 5.5},
		{8, 32, 34, 2 + 32, 8.5},
		{12, 256, 144, 2 + 2 + 12 + 128, 4.5},
		{13, 256, 176, 2 + 2 + 12 + 32 + 128, 5.5},
		{14, 256, 210, 128 + 64 + 16 + 2, 6.5625},
		{15, 256, 292, 4 + 256 + 2*16, 9.125},
	} {
		if BlockElems(c.typ) != c.elems || BlockBytes(c.typ) != c.bytes {
			t.Errorf("type %d: %d elements in %d bytes, want %d in %d", c.typ, BlockElems(c.typ), BlockBytes(c.typ), c.elems, c.bytes)
		}
		if c.fields != c.bytes || float64(8*c.bytes)/float64(c.elems) != c.bpw {
			t.Errorf("type %d: the table itself is inconsistent", c.typ)
		}
	}
}

// TestQuantSignatures checks the test data: under the signature patterns
// every element of a block has its own quant (or pair of quants over two
// blocks), so no element can be read from the wrong place unnoticed; when
// there are fewer values than elements, every value occurs in each segment
// (both halves of a Q4_0 block hold all 16 nibbles).
func TestQuantSignatures(t *testing.T) {
	for _, nv := range [][2]int{{32, 16}, {32, 32}, {32, 256}, {256, 16}, {256, 32}, {256, 64}, {256, 256}} {
		n, v := nv[0], nv[1]
		ps := signature(n, v)
		seen := map[[2]int]bool{}
		for i := range n {
			key := [2]int{ps[0][i], 0}
			if len(ps) == 2 {
				key[1] = ps[1][i] % (n / v)
			}
			for _, p := range ps {
				if p[i] < 0 || p[i] >= v {
					t.Fatalf("n=%d v=%d: quant %d out of range", n, v, p[i])
				}
			}
			seen[key] = true
		}
		if len(seen) != n {
			t.Errorf("n=%d v=%d: only %d distinct signatures", n, v, len(seen))
		}
		for seg := 0; v < n && seg < n/v; seg++ { // e.g. each half of a Q4_0 block
			vals := map[int]bool{}
			for _, x := range ps[0][seg*v : (seg+1)*v] {
				vals[x] = true
			}
			if len(vals) != v {
				t.Errorf("n=%d v=%d: segment %d of pattern A holds %d values", n, v, seg, len(vals))
			}
		}
	}
}

// TestDequantBlockFormula: DequantBlock equals the formula evaluated on the
// quants and field values each block was built from, element by element and
// exactly, and QuantIndex returns the quants that were placed.
func TestDequantBlockFormula(t *testing.T) {
	count := map[int]int{}
	for _, c := range formulaCases() {
		count[c.typ]++
		assertValues(t, c.name, DequantBlock(c.typ, c.block), c.want)
		for i, q := range c.q {
			if got := QuantIndex(c.typ, c.block, i); got != q {
				t.Errorf("%s: QuantIndex(%d) = %d, want %d", c.name, i, got, q)
				break
			}
		}
	}
	for _, typ := range []int{2, 3, 6, 8, 12, 13, 14, 15} {
		if count[typ] == 0 {
			t.Errorf("no cases for type %d", typ)
		}
	}
}

// TestSubScalePacking: SubScale inverts the prose packing of scales[12] for
// the codes used above and for random ones; Q6_K gives the int8 scales.
func TestSubScalePacking(t *testing.T) {
	g := NewRand(12)
	sets := [][2][8]int{{scSmall, mSmall}, {scBig, mBig}}
	for range 50 {
		sets = append(sets, [2][8]int{random6(g), random6(g)})
	}
	q := make([]int, 256)
	for _, typ := range []int{12, 13} {
		for _, set := range sets {
			b := buildQ4_K(hOne, hOne, set[0], set[1], q)
			if typ == 13 {
				b = buildQ5_K(hOne, hOne, set[0], set[1], q)
			}
			for s := range 8 {
				if sc, m := SubScale(typ, b, s); sc != set[0][s] || m != set[1][s] {
					t.Errorf("type %d codes %v/%v: SubScale(%d) = (%d, %d)", typ, set[0], set[1], s, sc, m)
				}
			}
		}
	}
	b := buildQ6_K(hOne, q6Scales, q)
	for s, want := range q6Scales {
		if sc, m := SubScale(14, b, s); sc != want || m != 0 {
			t.Errorf("Q6_K SubScale(%d) = (%d, %d), want (%d, 0)", s, sc, m, want)
		}
	}
}

// TestQ4KScalesByHand checks SubScale on scales[12] packed by hand from the
// two rules of docs/unit09.md (9.1).
func TestQ4KScalesByHand(t *testing.T) {
	for _, c := range []struct {
		scales [12]byte
		sc, m  [8]int
	}{
		// sc = 1..8, m = 9..16.
		// s < 4: bytes 0–3 = sc0–3 = 1, 2, 3, 4; bytes 4–7 = m0–3 = 9, 10, 11, 12,
		//   with m7 >> 4 = 1 in the top bits of byte 7: 12 | 1<<6 = 0x4C.
		// s ≥ 4: bytes 8–11 = sc4–7 & 0xF | (m4–7 & 0xF) << 4
		//   = 5|13<<4 = 0xD5, 6|14<<4 = 0xE6, 7|15<<4 = 0xF7, 8|0<<4 = 0x08.
		{[12]byte{0x01, 0x02, 0x03, 0x04, 0x09, 0x0A, 0x0B, 0x4C, 0xD5, 0xE6, 0xF7, 0x08}, scSmall, mSmall},
		// sc = 7, 20, 30, 62, 16, 33, 63, 5; m = 1, 2, 50, 31, 47, 18, 0, 60.
		// byte 0 = 7 | (16>>4)<<6 = 0x47   byte 4 = 1 | (47>>4)<<6 = 0x81
		// byte 1 = 20 | (33>>4)<<6 = 0x94  byte 5 = 2 | (18>>4)<<6 = 0x42
		// byte 2 = 30 | (63>>4)<<6 = 0xDE  byte 6 = 50 | (0>>4)<<6 = 0x32
		// byte 3 = 62 | (5>>4)<<6 = 0x3E   byte 7 = 31 | (60>>4)<<6 = 0xDF
		// bytes 8–11 = 0|15<<4 = 0xF0, 1|2<<4 = 0x21, 15|0<<4 = 0x0F, 5|12<<4 = 0xC5.
		// Check s = 4: sc = (0xF0 & 0xF) | (0x47>>6)<<4 = 0|16 = 16;
		//   m = (0xF0>>4) | (0x81>>6)<<4 = 15|32 = 47.
		{[12]byte{0x47, 0x94, 0xDE, 0x3E, 0x81, 0x42, 0x32, 0xDF, 0xF0, 0x21, 0x0F, 0xC5}, scBig, mBig},
	} {
		if got := packScales(c.sc, c.m); got != c.scales {
			t.Errorf("test encoder packScales(%v, %v) = % x, want % x", c.sc, c.m, got, c.scales)
		}
		for _, typ := range []int{12, 13} {
			b := make([]byte, BlockBytes(typ))
			copy(b[4:16], c.scales[:])
			for s := range 8 {
				if sc, m := SubScale(typ, b, s); sc != c.sc[s] || m != c.m[s] {
					t.Errorf("type %d scales % x: SubScale(%d) = (%d, %d), want (%d, %d)", typ, c.scales, s, sc, m, c.sc[s], c.m[s])
				}
			}
		}
	}
}

// bytesAt returns a block of n zero bytes with the given bytes set.
func bytesAt(n int, set map[int]byte) []byte {
	b := make([]byte, n)
	for i, v := range set {
		b[i] = v
	}
	return b
}

// TestDequantByHand checks blocks written byte by byte, with the values
// worked out in the comments. They also pin the test encoders: each block is
// rebuilt from its quants and must come out byte for byte.
func TestDequantByHand(t *testing.T) {
	t.Run("Q4_0", func(t *testing.T) {
		// d = 0x3C00 = 1.0 (little-endian 00 3C). qs[0] = 0x21: element 0 is
		// the low nibble 1 → 1−8 = −7, element 16 the high nibble 2 → −6.
		// qs[15] = 0xF0: element 15 = 0−8 = −8, element 31 = 15−8 = 7.
		// qs[1..14] = 0x88: elements 1..14 and 17..30 are 8−8 = 0.
		set := map[int]byte{0: 0x00, 1: 0x3C, 2: 0x21, 17: 0xF0}
		for j := 1; j <= 14; j++ {
			set[2+j] = 0x88
		}
		b := bytesAt(18, set)
		want := make([]float64, 32)
		want[0], want[16], want[15], want[31] = -7, -6, -8, 7
		assertValues(t, "Q4_0", DequantBlock(2, b), want)
		q := make([]int, 32)
		for i := range q {
			q[i] = int(want[i]) + 8
		}
		if got := buildQ4_0(hOne, q); string(got) != string(b) {
			t.Errorf("test encoder buildQ4_0 = % x, want % x", got, b)
		}
	})
	t.Run("Q4_1", func(t *testing.T) {
		// d = 0x3400 = 0.25, m = 0xBC00 = −1. qs[0] = 0xF0: element 0 is
		// 0·0.25 − 1 = −1, element 16 is 15·0.25 − 1 = 2.75. All other
		// nibbles are 0 → −1.
		b := bytesAt(20, map[int]byte{1: 0x34, 3: 0xBC, 4: 0xF0})
		want := make([]float64, 32)
		for i := range want {
			want[i] = -1
		}
		want[16] = 2.75
		assertValues(t, "Q4_1", DequantBlock(3, b), want)
	})
	t.Run("Q5_0", func(t *testing.T) {
		// d = 0x3800 = 0.5. qh = 01 00 01 80 = 0x80010001 as a little-endian
		// u32: bits 0, 16 and 31 set. qs[0] = 0x21, qs[15] = 0xF0.
		// element 0:  nibble 1 | bit 0 → 17 → (17−16)·0.5 = 0.5
		// element 16: nibble 2 | bit 16 → 18 → 1
		// element 15: nibble 0, bit 15 clear → 0 → −8
		// element 31: nibble 15 | bit 31 → 31 → 7.5
		// every other element: 0 → −8.
		b := bytesAt(22, map[int]byte{1: 0x38, 2: 0x01, 4: 0x01, 5: 0x80, 6: 0x21, 21: 0xF0})
		want := make([]float64, 32)
		for i := range want {
			want[i] = -8
		}
		want[0], want[16], want[31] = 0.5, 1, 7.5
		assertValues(t, "Q5_0", DequantBlock(6, b), want)
		q := make([]int, 32)
		for i := range q {
			q[i] = int(want[i]*2) + 16
		}
		if got := buildQ5_0(hHalf, q); string(got) != string(b) {
			t.Errorf("test encoder buildQ5_0 = % x, want % x", got, b)
		}
	})
	t.Run("Q8_0", func(t *testing.T) {
		// d = 0xC000 = −2. qs[0] = 0x7F = 127 → −254; qs[1] = 0x80 = −128 →
		// 256; qs[31] = 0xFF = −1 → 2; the rest 0.
		b := bytesAt(34, map[int]byte{1: 0xC0, 2: 0x7F, 3: 0x80, 33: 0xFF})
		want := make([]float64, 32)
		want[0], want[1], want[31] = -254, 256, 2
		assertValues(t, "Q8_0", DequantBlock(8, b), want)
	})
	t.Run("Q4_K", func(t *testing.T) {
		// d = 1, dmin = 0.5, codes sc = 1..8, m = 9..16 (packed as in
		// TestQ4KScalesByHand). qs[0] = 0x21 is chunk 0 byte 0:
		//   element 0 (sub-block 0) q = 1: 1·1·1 − 0.5·9 = −3.5
		//   element 32 (sub-block 1) q = 2: 1·2·2 − 0.5·10 = −1
		// qs[32·3 + 5] = 0xF7 is chunk 3 byte 5:
		//   element 192+5 = 197 (sub-block 6) q = 7: 7·7 − 0.5·15 = 41.5
		//   element 192+32+5 = 229 (sub-block 7) q = 15: 8·15 − 0.5·16 = 112
		// Every other element has q = 0: −0.5·m_s = −0.5·(9+s) in sub-block s.
		set := map[int]byte{1: 0x3C, 3: 0x38, 16 + 0: 0x21, 16 + 101: 0xF7}
		for i, v := range []byte{0x01, 0x02, 0x03, 0x04, 0x09, 0x0A, 0x0B, 0x4C, 0xD5, 0xE6, 0xF7, 0x08} {
			set[4+i] = v
		}
		b := bytesAt(144, set)
		want := make([]float64, 256)
		for i := range want {
			want[i] = -0.5 * float64(9+i/32)
		}
		want[0], want[32], want[197], want[229] = -3.5, -1, 41.5, 112
		assertValues(t, "Q4_K", DequantBlock(12, b), want)
		q := make([]int, 256)
		q[0], q[32], q[197], q[229] = 1, 2, 7, 15
		if got := buildQ4_K(hOne, hHalf, scSmall, mSmall, q); string(got) != string(b) {
			t.Errorf("test encoder buildQ4_K = % x, want % x", got, b)
		}
	})
	t.Run("Q5_K", func(t *testing.T) {
		// d = 1, dmin = 2, every sc = 1 and m = 0: scales = 01 01 01 01
		// 00 00 00 00 01 01 01 01, so x = q. qh[3] = 0x24 sets bits 2 and 5:
		// bit 2 = 2c for c = 1 (element 64+3 = 67), bit 5 = 2c+1 for c = 2
		// (element 128+32+3 = 163). qs[32+3] = 0x0A (chunk 1 byte 3) and
		// qs[64+3] = 0x50 (chunk 2 byte 3):
		//   element 67:  low nibble 10 | 16 = 26
		//   element 99:  high nibble 0, bit 3 clear = 0
		//   element 131: low nibble 0, bit 4 clear = 0
		//   element 163: high nibble 5 | 16 = 21
		set := map[int]byte{1: 0x3C, 3: 0x40, 4: 1, 5: 1, 6: 1, 7: 1, 12: 1, 13: 1, 14: 1, 15: 1,
			16 + 3: 0x24, 48 + 35: 0x0A, 48 + 67: 0x50}
		b := bytesAt(176, set)
		want := make([]float64, 256)
		want[67], want[163] = 26, 21
		assertValues(t, "Q5_K", DequantBlock(13, b), want)
		q := make([]int, 256)
		q[67], q[163] = 26, 21
		one := [8]int{1, 1, 1, 1, 1, 1, 1, 1}
		if got := buildQ5_K(hOne, hTwo, one, [8]int{}, q); string(got) != string(b) {
			t.Errorf("test encoder buildQ5_K = % x, want % x", got, b)
		}
	})
	t.Run("Q6_K half 0", func(t *testing.T) {
		// Only ql[0] = 0xF3 and qh[0] = 0b10_01_11_00 set; scales all 1;
		// d = 1.0 in the LAST two bytes (208, 209). With l = 0:
		//   element 0:  ql[0] low 3,   qh bits 0–1 = 00 → q = 3  → 3−32 = −29
		//   element 32: ql[32] low 0,  qh bits 2–3 = 11 → q = 48 → 16
		//   element 64: ql[0] high 15, qh bits 4–5 = 01 → q = 31 → −1
		//   element 96: ql[32] high 0, qh bits 6–7 = 10 → q = 32 → 0
		// every other element has q = 0 → −32.
		set := map[int]byte{0: 0xF3, 128: 0b10_01_11_00, 209: 0x3C}
		for s := range 16 {
			set[192+s] = 1
		}
		b := bytesAt(210, set)
		want := make([]float64, 256)
		for i := range want {
			want[i] = -32
		}
		want[0], want[32], want[64], want[96] = -29, 16, -1, 0
		assertValues(t, "Q6_K", DequantBlock(14, b), want)
		q := make([]int, 256)
		q[0], q[32], q[64], q[96] = 3, 48, 31, 32
		var ones [16]int
		for s := range ones {
			ones[s] = 1
		}
		if got := buildQ6_K(hOne, ones, q); string(got) != string(b) {
			t.Errorf("test encoder buildQ6_K = % x, want % x", got, b)
		}
	})
	t.Run("Q6_K half 1", func(t *testing.T) {
		// d = 0xC000 = −2; scales[9] = 0xFD = −3, scales[11] = 5,
		// scales[13] = 0x80 = −128, scales[15] = 127, the others 0.
		// Half 1, l = 17 (l/16 = 1): ql + 64, qh + 32, scale + 8.
		// ql[64+17] = 0x5A, ql[64+49] = 0xC1, qh[32+17] = 0b01_10_00_11.
		//   element 128+17 = 145: 0xA | 3<<4 = 58, scale 8+1 = 9:
		//     −2·−3·(58−32) = 156
		//   element 177: 0x1 | 0<<4 = 1, scale 8+1+2 = 11: −2·5·(1−32) = 310
		//   element 209: 0x5 | 2<<4 = 37, scale 13: −2·−128·5 = 1280
		//   element 241: 0xC | 1<<4 = 28, scale 15: −2·127·(28−32) = 1016
		// Every other element has q = 0 and gives −2·scale·(−32) = 64·scale,
		// which is 0 outside sub-blocks 9, 11, 13, 15.
		b := bytesAt(210, map[int]byte{81: 0x5A, 113: 0xC1, 128 + 49: 0b01_10_00_11,
			192 + 9: 0xFD, 192 + 11: 5, 192 + 13: 0x80, 192 + 15: 127, 209: 0xC0})
		want := make([]float64, 256)
		for i := range want {
			want[i] = 64 * float64(map[int]int{9: -3, 11: 5, 13: -128, 15: 127}[i/16])
		}
		want[145], want[177], want[209], want[241] = 156, 310, 1280, 1016
		assertValues(t, "Q6_K", DequantBlock(14, b), want)
	})
	t.Run("Q8_K", func(t *testing.T) {
		// d = 0.5 as f32 bits 0x3F000000 (00 00 00 3F); qs[0] = 0x81 = −127 →
		// −63.5; qs[255] = 0x7F → 63.5. bsums[0] = −127 (81 FF), bsums[15] =
		// 127 (7F 00).
		b := bytesAt(292, map[int]byte{3: 0x3F, 4: 0x81, 259: 0x7F, 260: 0x81, 261: 0xFF, 290: 0x7F})
		want := make([]float64, 256)
		want[0], want[255] = -63.5, 63.5
		assertValues(t, "Q8_K", DequantBlock(15, b), want)
		if !Q8KSumsOK(b) {
			t.Error("Q8KSumsOK = false on a block with correct sums")
		}
		b[261] = 0x00 // bsums[0] = 0x0081 = 129
		if Q8KSumsOK(b) {
			t.Error("Q8KSumsOK = true with bsums[0] = 129")
		}
	})
}

// TestQ8KSums: the sums written by the test encoder pass, extreme groups
// included (16·−128 = −2048 fits an int16), and any change to a sum or to a
// quant of its group fails.
func TestQ8KSums(t *testing.T) {
	g := NewRand(15)
	ps, _ := quantPatterns(g, 256, 256, -128)
	for _, q := range ps {
		b := buildQ8_K(1, q)
		if !Q8KSumsOK(b) {
			t.Fatal("Q8KSumsOK = false on an encoded block")
		}
		for _, off := range []int{4 + 17, 260 + 2*3, 260 + 2*15 + 1} {
			b[off] ^= 0x10
			if Q8KSumsOK(b) {
				t.Errorf("Q8KSumsOK = true after changing byte %d", off)
			}
			b[off] ^= 0x10
		}
	}
}

// trap is a plausible wrong reading of a layout, or (control) the right
// reading put through the same machinery, which must agree with the formula:
// that shows a trap differs because of its mistake, not a slip in the trap.
type trap struct {
	typ     int
	name    string
	alt     func(b []byte) []float64
	control bool
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

// traps builds the near-miss decoders. Each takes the oracle's reading of
// everything but the trapped detail, so a difference is due to that detail.
func traps() []trap {
	hi := func(b byte) int { return int(b >> 4) }
	lo := func(b byte) int { return int(b & 15) }
	// legacy 32-element blocks with a different nibble reader.
	legacy := func(typ, qsOff int, nib func(qs []byte, i int) int) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 32)
			d := F16Value(le16(b))
			for i := range out {
				q := nib(b[qsOff:qsOff+16], i)
				switch typ {
				case 2:
					out[i] = float64(q-8) * d
				case 3:
					out[i] = float64(q)*d + F16Value(le16(b[2:]))
				}
			}
			return out
		}
	}
	spec32 := func(qs []byte, i int) int { // element j low, j+16 high
		if i < 16 {
			return lo(qs[i])
		}
		return hi(qs[i-16])
	}
	interleaved := func(qs []byte, i int) int { // element 2j low, 2j+1 high
		if i%2 == 0 {
			return lo(qs[i/2])
		}
		return hi(qs[i/2])
	}
	highFirst := func(qs []byte, i int) int { // element j high, j+16 low
		if i < 16 {
			return hi(qs[i])
		}
		return lo(qs[i-16])
	}
	q5_0 := func(fifth func(b []byte, i int) int, qsOff int) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 32)
			for i := range out {
				low := spec32(b[qsOff:qsOff+16], i)
				out[i] = float64(low|fifth(b, i)<<4-16) * F16Value(le16(b))
			}
			return out
		}
	}
	littleEndian := func(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[2:6]) >> i & 1) }
	bigEndian := func(b []byte, i int) int { return int(binary.BigEndian.Uint32(b[2:6]) >> i & 1) }
	pairedBits := func(b []byte, i int) int { // element j bit 2j, element j+16 bit 2j+1
		qh := binary.LittleEndian.Uint32(b[2:6])
		if i < 16 {
			return int(qh >> (2 * i) & 1)
		}
		return int(qh >> (2*(i-16) + 1) & 1)
	}
	rightBits := func(b []byte, i int) int { return int(binary.LittleEndian.Uint32(b[18:22]) >> i & 1) }
	// K-quants with a different nibble reader or scale reader.
	kquant := func(typ int, nib func(qs []byte, i int) int, scale func(b []byte, s int) (int, int)) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 256)
			d, dmin := F16Value(le16(b)), F16Value(le16(b[2:]))
			for i := range out {
				q := QuantIndex(typ, b, i)
				if nib != nil {
					q = q&16 | nib(b[BlockBytes(typ)-128:], i)
				}
				sc, m := SubScale(typ, b, i/32)
				if scale != nil {
					sc, m = scale(b[4:16], i/32)
				}
				out[i] = d*float64(sc)*float64(q) - dmin*float64(m)
			}
			return out
		}
	}
	specK := func(qs []byte, i int) int { // chunk c: 64c+l low, 64c+32+l high
		c, r := i/64, i%64
		if r < 32 {
			return lo(qs[32*c+r])
		}
		return hi(qs[32*c+r-32])
	}
	specScales := func(s []byte, k int) (int, int) {
		if k < 4 {
			return int(s[k] & 63), int(s[k+4] & 63)
		}
		return int(s[k+4]&15) | int(s[k-4]>>6)<<4, int(s[k+4]>>4) | int(s[k]>>6)<<4
	}
	flat128 := func(qs []byte, i int) int { // Q4_0 order over all 128 bytes
		if i < 128 {
			return lo(qs[i])
		}
		return hi(qs[i-128])
	}
	chunkHighFirst := func(qs []byte, i int) int {
		c, r := i/64, i%64
		if r < 32 {
			return hi(qs[32*c+r])
		}
		return lo(qs[32*c+r-32])
	}
	highBitsSwapped := func(s []byte, k int) (int, int) { // s ≥ 4 takes the other byte's top bits
		if k < 4 {
			return int(s[k] & 63), int(s[k+4] & 63)
		}
		return int(s[k+4]&15) | int(s[k]>>6)<<4, int(s[k+4]>>4) | int(s[k-4]>>6)<<4
	}
	nibblesSwapped := func(s []byte, k int) (int, int) { // s ≥ 4: sc in the high nibble
		if k < 4 {
			return int(s[k] & 63), int(s[k+4] & 63)
		}
		return int(s[k+4]>>4) | int(s[k-4]>>6)<<4, int(s[k+4]&15) | int(s[k]>>6)<<4
	}
	scMSwapped := func(s []byte, k int) (int, int) { // s < 4: m in bytes 0–3
		if k < 4 {
			return int(s[k+4] & 63), int(s[k] & 63)
		}
		return int(s[k+4]&15) | int(s[k-4]>>6)<<4, int(s[k+4]>>4) | int(s[k]>>6)<<4
	}
	q5k := func(fifth func(qh []byte, i int) int, qhOff, qsOff int) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 256)
			d, dmin := F16Value(le16(b)), F16Value(le16(b[2:]))
			for i := range out {
				c, r := i/64, i%64
				var low int
				if r < 32 {
					low = lo(b[qsOff+32*c+r])
				} else {
					low = hi(b[qsOff+32*c+r-32])
				}
				q := low | fifth(b[qhOff:qhOff+32], i)<<4
				sc, m := SubScale(13, b, i/32)
				out[i] = d*float64(sc)*float64(q) - dmin*float64(m)
			}
			return out
		}
	}
	spec5 := func(qh []byte, i int) int { // the documented order, for the moved-field trap
		c, r := i/64, i%64
		if r < 32 {
			return int(qh[r] >> (2 * c) & 1)
		}
		return int(qh[r-32] >> (2*c + 1) & 1)
	}
	byChunk := func(qh []byte, i int) int { // bit c for the low half, c+4 for the high
		c, r := i/64, i%64
		if r < 32 {
			return int(qh[r] >> c & 1)
		}
		return int(qh[r-32] >> (c + 4) & 1)
	}
	bitmap := func(qh []byte, i int) int { return int(qh[i/8] >> (i % 8) & 1) }
	// Q6_K with a different field reader.
	q6k := func(quant func(b []byte, i int) int, scaleIdx func(i int) int, dOff, scOff int) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 256)
			d := F16Value(le16(b[dOff:]))
			for i := range out {
				out[i] = d * float64(int8(b[scOff+scaleIdx(i)])) * float64(quant(b, i)-32)
			}
			return out
		}
	}
	specQ6 := func(b []byte, i int) int { return QuantIndex(14, b, i) }
	specIdx := func(i int) int { return i / 16 }
	dFirst := func(b []byte, i int) int { return q6kQuant(b[2:], i) }
	// rows returns a Q6_K quant reader where row k (elements 32k+l of a half)
	// takes its low nibble from ql[l + 32·qlRow[k]] (high nibble if qlHigh[k])
	// and its high bits from qh[l] bits 2·qhField[k].
	rows := func(qlRow [4]int, qlHigh [4]bool, qhField [4]int) func(b []byte, i int) int {
		return func(b []byte, i int) int {
			n, r := i/128, i%128
			k, l := r/32, r%32
			x := b[64*n+l+32*qlRow[k]]
			low := lo(x)
			if qlHigh[k] {
				low = hi(x)
			}
			return low | int(b[128+32*n+l]>>(2*qhField[k])&3)<<4
		}
	}
	q8k := func(dOf func(b []byte) float64, qsOff int) func([]byte) []float64 {
		return func(b []byte) []float64 {
			out := make([]float64, 256)
			for i := range out {
				out[i] = dOf(b) * float64(int8(b[qsOff+i]))
			}
			return out
		}
	}
	f32d := func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	spec6 := rows([4]int{0, 1, 0, 1}, [4]bool{false, false, true, true}, [4]int{0, 1, 2, 3})
	return []trap{
		{2, "control", legacy(2, 2, spec32), true},
		{3, "control", legacy(3, 4, spec32), true},
		{6, "control", q5_0(littleEndian, 6), true},
		{12, "control", kquant(12, specK, specScales), true},
		{13, "control", kquant(13, specK, specScales), true},
		{13, "control of the 5th bits", q5k(spec5, 16, 48), true},
		{14, "control", q6k(spec6, specIdx, 208, 192), true},
		{15, "control", q8k(f32d, 4), true},
		{2, "nibbles interleaved pairwise", legacy(2, 2, interleaved), false},
		{2, "high nibble first", legacy(2, 2, highFirst), false},
		{3, "nibbles interleaved pairwise", legacy(3, 4, interleaved), false},
		{3, "high nibble first", legacy(3, 4, highFirst), false},
		{6, "qh read big-endian", q5_0(bigEndian, 6), false},
		{6, "5th bits paired (2j, 2j+1)", q5_0(pairedBits, 6), false},
		{6, "qh after qs", q5_0(rightBits, 2), false},
		{12, "Q4_0 nibble order over 128 bytes", kquant(12, flat128, nil), false},
		{12, "nibbles interleaved pairwise", kquant(12, interleaved, nil), false},
		{12, "high nibble first in a chunk", kquant(12, chunkHighFirst, nil), false},
		{12, "s ≥ 4 high bits from the other byte", kquant(12, nil, highBitsSwapped), false},
		{12, "s ≥ 4 sc and m nibbles swapped", kquant(12, nil, nibblesSwapped), false},
		{12, "s < 4 sc and m bytes swapped", kquant(12, nil, scMSwapped), false},
		{13, "Q4_0 nibble order over 128 bytes", kquant(13, flat128, nil), false},
		{13, "s ≥ 4 high bits from the other byte", kquant(13, nil, highBitsSwapped), false},
		{13, "5th bits c and c+4", q5k(byChunk, 16, 48), false},
		{13, "5th bits as a flat bitmap", q5k(bitmap, 16, 48), false},
		{13, "qh after qs", q5k(spec5, 144, 16), false},
		{14, "d first", q6k(dFirst, specIdx, 0, 194), false},
		{14, "rows 1 and 2 swapped", q6k(rows([4]int{0, 0, 1, 1}, [4]bool{false, true, false, true}, [4]int{0, 1, 2, 3}), specIdx, 208, 192), false},
		{14, "rows 1 and 2 swapped in ql and qh", q6k(rows([4]int{0, 0, 1, 1}, [4]bool{false, true, false, true}, [4]int{0, 2, 1, 3}), specIdx, 208, 192), false},
		{14, "qh fields reversed", q6k(rows([4]int{0, 1, 0, 1}, [4]bool{false, false, true, true}, [4]int{3, 2, 1, 0}), specIdx, 208, 192), false},
		{14, "scale index without the 8n of half 1", q6k(specQ6, func(i int) int { return i%128/32*2 + i%32/16 }, 208, 192), false},
		{14, "scale index l/16 + row", q6k(specQ6, func(i int) int { return 8*(i/128) + i%128/32 + i%32/16 }, 208, 192), false},
		{15, "d read as f16", q8k(func(b []byte) float64 { return F16Value(le16(b)) }, 4), false},
		{15, "bsums before qs", q8k(f32d, 36), false},
	}
}

// TestLayoutTraps: every near-miss decoder disagrees with the expected
// values on every signature block of its type (under each set of fields),
// so a decoder with that mistake fails TestDequantBlockFormula, while the
// controls agree with them on every block.
func TestLayoutTraps(t *testing.T) {
	cases := formulaCases()
	for _, tr := range traps() {
		tried := 0
		for _, c := range cases {
			if c.typ != tr.typ || !(c.sig || tr.control) {
				continue
			}
			tried++
			msg, same := sameValues(tr.alt(c.block), c.want)
			switch {
			case tr.control && !same:
				t.Errorf("type %d %s: %s: %s", tr.typ, tr.name, c.name, msg)
			case !tr.control && same:
				t.Errorf("type %d trap %q: %s gives the expected values", tr.typ, tr.name, c.name)
			}
		}
		if tried == 0 {
			t.Errorf("type %d trap %q: no cases", tr.typ, tr.name)
		}
	}
}

// TestDequantRow: a row of several blocks is the concatenation of its
// blocks; F32, F16 and BF16 rows give the values written out by hand.
func TestDequantRow(t *testing.T) {
	byType := map[int][]qcase{}
	for _, c := range formulaCases() {
		byType[c.typ] = append(byType[c.typ], c)
	}
	for typ, cs := range byType {
		var row []byte
		var want, viaBlocks []float64
		for _, c := range cs[:5] {
			row = append(row, c.block...)
			want = append(want, c.want...)
			viaBlocks = append(viaBlocks, DequantBlock(typ, c.block)...)
		}
		assertValues(t, fmt.Sprintf("type %d row vs formula", typ), DequantRow(typ, row), want)
		assertValues(t, fmt.Sprintf("type %d row vs blocks", typ), DequantRow(typ, row), viaBlocks)
		if n := len(DequantRow(typ, nil)); n != 0 {
			t.Errorf("type %d: empty row gave %d values", typ, n)
		}
	}
	// F32: 1.5 = 0x3FC00000, −0.15625 = 0xBE200000, smallest subnormal 2^−149.
	f32 := []byte{0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x20, 0xBE, 0x01, 0x00, 0x00, 0x00}
	assertValues(t, "F32 row", DequantRow(0, f32), []float64{1.5, -0.15625, 0x1p-149})
	// F16: 0x3C00 = 1, 0xC000 = −2, 0x0001 = 2^−24, 0x7BFF = 65504.
	f16 := []byte{0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00, 0xFF, 0x7B}
	assertValues(t, "F16 row", DequantRow(1, f16), []float64{1, -2, 0x1p-24, 65504})
	// BF16: 0x3F80 = 1, 0xC040 = −3, 0x0001 = 2^(1−127−7) = 2^−133, 0x7F80 = +Inf.
	bf16 := []byte{0x80, 0x3F, 0x40, 0xC0, 0x01, 0x00, 0x80, 0x7F}
	assertValues(t, "BF16 row", DequantRow(30, bf16), []float64{1, -3, 0x1p-133, math.Inf(1)})
	// Random bit patterns against the scalar decoders.
	g := NewRand(30)
	raw := make([]byte, 64)
	for i := range raw {
		raw[i] = byte(g.Uint32())
	}
	var w32, w16, wb []float64
	for i := 0; i < len(raw); i += 2 {
		if i%4 == 0 {
			w32 = append(w32, float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))))
		}
		w16 = append(w16, F16Value(le16(raw[i:])))
		wb = append(wb, BF16Value(le16(raw[i:])))
	}
	assertValues(t, "random F32 row", DequantRow(0, raw), w32)
	assertValues(t, "random F16 row", DequantRow(1, raw), w16)
	assertValues(t, "random BF16 row", DequantRow(30, raw), wb)
}

// TestQuantPanics: wrong lengths, unknown types, out-of-range indexes.
func TestQuantPanics(t *testing.T) {
	must := func(what string, f func()) {
		t.Helper()
		if _, ok := Panics(f); !ok {
			t.Errorf("%s did not panic", what)
		}
	}
	for _, typ := range []int{2, 3, 6, 8, 12, 13, 14, 15} {
		n := BlockBytes(typ)
		for _, l := range []int{0, n - 1, n + 1, 2 * n} {
			b := make([]byte, l)
			must(fmt.Sprintf("DequantBlock(%d, %d bytes)", typ, l), func() { DequantBlock(typ, b) })
			must(fmt.Sprintf("QuantIndex(%d, %d bytes)", typ, l), func() { QuantIndex(typ, b, 0) })
		}
		for _, l := range []int{n - 1, n + 1, 3*n - 2} {
			b := make([]byte, l)
			must(fmt.Sprintf("DequantRow(%d, %d bytes)", typ, l), func() { DequantRow(typ, b) })
		}
		b := make([]byte, n)
		for _, i := range []int{-1, BlockElems(typ)} {
			must(fmt.Sprintf("QuantIndex(%d, i=%d)", typ, i), func() { QuantIndex(typ, b, i) })
		}
	}
	must("DequantRow(0, 5 bytes)", func() { DequantRow(0, make([]byte, 5)) })
	must("DequantRow(1, 3 bytes)", func() { DequantRow(1, make([]byte, 3)) })
	must("DequantRow(30, 1 byte)", func() { DequantRow(30, make([]byte, 1)) })
	must("QuantIndex on F32", func() { QuantIndex(0, make([]byte, 4), 0) })
	for _, typ := range []int{-1, 4, 5, 7, 9, 10, 11, 16, 24, 31, 39, 99} {
		must(fmt.Sprintf("BlockElems(%d)", typ), func() { BlockElems(typ) })
		must(fmt.Sprintf("BlockBytes(%d)", typ), func() { BlockBytes(typ) })
		for _, l := range []int{0, 18, 24, 84, 110} {
			b := make([]byte, l)
			must(fmt.Sprintf("DequantBlock(%d, %d bytes)", typ, l), func() { DequantBlock(typ, b) })
			must(fmt.Sprintf("DequantRow(%d, %d bytes)", typ, l), func() { DequantRow(typ, b) })
		}
	}
	for _, typ := range []int{2, 8, 15, 0} {
		must(fmt.Sprintf("SubScale(%d)", typ), func() { SubScale(typ, make([]byte, BlockBytes(typ)), 0) })
	}
	for _, c := range [][2]int{{12, -1}, {12, 8}, {13, 8}, {14, -1}, {14, 16}} {
		must(fmt.Sprintf("SubScale(%d, s=%d)", c[0], c[1]), func() { SubScale(c[0], make([]byte, BlockBytes(c[0])), c[1]) })
	}
	must("SubScale with a short block", func() { SubScale(12, make([]byte, 143), 0) })
	must("Q8KSumsOK with a short block", func() { Q8KSumsOK(make([]byte, 291)) })
}

// TestGGMLQuantRow checks the ggml reference quantizers on blocks whose
// bytes can be worked out by hand, and the two roundings they use.
func TestGGMLQuantRow(t *testing.T) {
	for _, c := range []struct {
		v    float32
		away int
		even int
	}{{2.5, 3, 2}, {3.5, 4, 4}, {-2.5, -3, -2}, {0.49999997, 0, 0}, {-126.5, -127, -126}, {7, 7, 7}} {
		if got := cRoundf(c.v); got != c.away {
			t.Errorf("cRoundf(%v) = %d, want %d (half away from zero)", c.v, got, c.away)
		}
		if got := nearestInt(c.v); got != c.even {
			t.Errorf("nearestInt(%v) = %d, want %d (ties to even)", c.v, got, c.even)
		}
	}
	x := make([]float32, 32)
	x[0], x[1], x[2], x[3] = 127, 2.5, -2.5, 0.5
	b := GGMLQuantRow(typeQ8_0, x)
	if binary.LittleEndian.Uint16(b) != 0x3C00 || int8(b[2]) != 127 || int8(b[3]) != 3 || int8(b[4]) != -3 || int8(b[5]) != 1 {
		t.Errorf("Q8_0 of 127, 2.5, −2.5, 0.5: bytes % x, want d = 1.0 (3c00) and quants 127, 3, −3, 1", b[:6])
	}
	// Q4_0 of 0…4 in steps of 0.5 (4 the largest, positive): d = −0.5, and
	// 4 lands on quant 0, 0 on quant 8.
	for j := range x {
		x[j] = float32(j%9) * 0.5
	}
	b = GGMLQuantRow(typeQ4_0, x)
	if binary.LittleEndian.Uint16(b) != 0xB800 || b[2+8]&0xF != 0 || b[2]&0xF != 8 {
		t.Errorf("Q4_0 of 0…4: d bits %04x, quants of 0 and 4: %d, %d; want b800 (−0.5), 8, 0", binary.LittleEndian.Uint16(b), b[2]&0xF, b[2+8]&0xF)
	}
	// Q8_K of a block of zeros is all zero bytes.
	for _, v := range GGMLQuantRow(typeQ8_K, make([]float32, 256)) {
		if v != 0 {
			t.Fatalf("Q8_K of zeros: a nonzero byte")
		}
	}
}
