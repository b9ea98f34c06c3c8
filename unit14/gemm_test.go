package unit14

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/testkit/testmat"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// q8Rows returns rows rows of cols Q8_0 elements: random F16 scales of
// either sign and quants over the whole int8 range, −128 included.
func q8Rows(g *oracle.Rand, rows, cols int) []byte {
	b := make([]byte, rows*cols/32*34)
	for o := 0; o < len(b); o += 34 {
		d := float32(0.001 + 0.05*g.Float64())
		if g.Intn(4) == 0 {
			d = -d
		}
		binary.LittleEndian.PutUint16(b[o:], unit01.F32ToF16(d))
		for j := range 32 {
			b[o+2+j] = byte(g.Intn(256))
		}
	}
	return b
}

// gemmWant is y = x·Wᵀ in float64 from the blocks, with each element's
// error bound: its blocks' |d_w·d_a·Σq·q| times (blocks+2)·ε, the float32
// roundings of a product and a sum per block.
func gemmWant(w, a []byte, rows, T, cols int) (want, bound []float64) {
	rb := cols / 32 * 34
	want, bound = make([]float64, T*rows), make([]float64, T*rows)
	for t := range T {
		for j := range rows {
			for o := 0; o < rb; o += 34 {
				wb, ab := w[j*rb+o:], a[t*rb+o:]
				isum := 0
				for i := range 32 {
					isum += int(int8(wb[2+i])) * int(int8(ab[2+i]))
				}
				v := float64(unit01.F16ToF32(binary.LittleEndian.Uint16(wb))) * float64(unit01.F16ToF32(binary.LittleEndian.Uint16(ab))) * float64(isum)
				want[t*rows+j] += v
				bound[t*rows+j] += math.Abs(v)
			}
			bound[t*rows+j] = bound[t*rows+j]*float64(cols/32+2)*eps32 + 1e-30
		}
	}
	return want, bound
}

func TestC14_4_Q8Gemm(t *testing.T) {
	g := oracle.NewRand(144)
	pools := map[string]*unit03.Pool{"nil": nil, "1 thread": unit03.NewPool(1), "2 threads": unit03.NewPool(2), "3 threads": unit03.NewPool(3)}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	var gemm Q8Gemm
	for _, rows := range []int{1, 2, 3, 4, 5, 8, 13} {
		for _, T := range []int{1, 2, 3, 4, 5, 7, 8, 9} {
			for _, cols := range []int{32, 64, 32 * 9} {
				w, a := q8Rows(g, rows, cols), q8Rows(g, T, cols)
				want, bound := gemmWant(w, a, rows, T, cols)
				var first []float32
				for _, name := range []string{"nil", "1 thread", "2 threads", "3 threads"} {
					y := testmat.Rand(g, T, rows) // a view: its padding must stay untouched
					gemm.MulT(pools[name], y, w, a, cols)
					what := fmt.Sprintf("Q8Gemm.MulT (%d weight rows, %d activation rows, cols %d, pool %s)", rows, T, cols, name)
					testmat.CheckPadding(t, what, y)
					got := testmat.Dense(y)
					if !oracle.AssertBound(t, what, got, want, bound, []int{T, rows}) {
						return
					}
					if first == nil {
						first = got
					} else if diff := cmp.Diff(first, got); diff != "" {
						t.Fatalf("%s differs from one thread's result (-one +%s):\n%s\nevery element must be computed the same way whatever the thread count: share the rows out in whole tiles", what, name, diff)
					}
				}
			}
		}
	}
}

func TestC14_4_Q8GemmEdges(t *testing.T) {
	g := oracle.NewRand(145)
	var gemm Q8Gemm
	// The largest integer sums: every quant −128, 64 blocks. Each block's
	// Σ q·q is 32·16384 = 524288, beyond int16 (and beyond what sixteen
	// bit pairs can hold), within int32.
	const cols = 64 * 32
	w := make([]byte, 4*cols/32*34)
	for o := 0; o < len(w); o += 34 {
		binary.LittleEndian.PutUint16(w[o:], unit01.F32ToF16(1))
		for j := range 32 {
			w[o+2+j] = 0x80
		}
	}
	y := unit03.NewMat(4, 4)
	gemm.MulT(nil, y, w, w, cols)
	for i, v := range y.Data {
		if v != 64*524288 {
			t.Fatalf("Q8Gemm.MulT of rows of −128 quants (scale 1): element %d = %v, want 64·32·128² = %v: sum the products in 32 bits", i, v, 64*524288)
		}
	}
	// No rows to compute: nothing happens, nothing panics.
	gemm.MulT(nil, unit03.NewMat(0, 3), q8Rows(g, 3, 32), nil, 32)
	gemm.MulT(nil, unit03.NewMat(2, 0), nil, q8Rows(g, 2, 32), 32)
	one := q8Rows(g, 1, 64)
	for name, f := range map[string]func(){
		"cols 0":                     func() { gemm.MulT(nil, unit03.NewMat(1, 1), nil, nil, 0) },
		"cols 48":                    func() { gemm.MulT(nil, unit03.NewMat(1, 1), make([]byte, 51), make([]byte, 51), 48) },
		"cols −32":                   func() { gemm.MulT(nil, unit03.NewMat(1, 1), nil, nil, -32) },
		"w one row short":            func() { gemm.MulT(nil, unit03.NewMat(1, 2), one, one, 64) },
		"a one row short":            func() { gemm.MulT(nil, unit03.NewMat(2, 1), one, one, 64) },
		"w a byte long":              func() { gemm.MulT(nil, unit03.NewMat(1, 1), append(one, 0), one, 64) },
		"a a byte short":             func() { gemm.MulT(nil, unit03.NewMat(1, 1), one, one[:67], 64) },
		"blocks of the wrong length": func() { gemm.MulT(nil, unit03.NewMat(1, 1), one, one, 32) },
	} {
		mustPanic(t, "Q8Gemm.MulT with "+name, f)
	}
	p := unit03.NewPool(2)
	defer p.Close()
	w, a := q8Rows(g, 64, 2048), q8Rows(g, 8, 2048)
	y = unit03.NewMat(8, 64)
	if n := oracle.AllocsPerRun(10, func() { gemm.MulT(p, y, w, a, 2048) }); n != 0 {
		t.Errorf("Q8Gemm.MulT allocates %v times per call on a pool of 2, want 0: keep the task in the Q8Gemm", n)
	}
}
