// Command twins writes the cases on which ci/cuda/twins.sh checks the CUDA
// twins of unit15's kernels (internal/cuda/kernels/unit15.cu) against the
// Go kernels without a GPU: for each case, the kernel's name, its sizes
// and launch (grid, shared words), its inputs and what the Go kernel,
// run on the emulator, wrote. ci/cuda/twins.cpp then runs the CUDA C on the CPU,
// a thread per CUDA thread, and compares. It runs on the reference:
//
//	go run -overlay "$(go run ./cmd/forge overlay --impl ref)" ./ci/cuda/twins -o cases.bin
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"log"
	"os"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit15"
)

// A case on disk: the kernel's name in 32 bytes (NUL-padded), then eight
// int32s (three sizes, the grid's x and y, the block's x and y, the shared
// words), then causal as an int32, then the inputs and the Go kernel's
// output, float32s, all little-endian.
type header struct {
	Name   [32]byte
	Sizes  [3]int32
	Grid   [2]int32
	Block  [2]int32
	Shared int32
	Causal int32
}

func main() {
	out := flag.String("o", "cases.bin", "the file to write")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	put := func(name string, sizes [3]int, grid, block unit15.Dim3, shared int, causal bool, data ...[]float32) {
		h := header{Sizes: [3]int32{int32(sizes[0]), int32(sizes[1]), int32(sizes[2])}, Grid: [2]int32{int32(grid.X), int32(grid.Y)},
			Block: [2]int32{int32(block.X), int32(block.Y)}, Shared: int32(shared)}
		copy(h.Name[:], name)
		if causal {
			h.Causal = 1
		}
		if err := binary.Write(w, binary.LittleEndian, h); err != nil {
			log.Fatal(err)
		}
		for _, d := range data {
			if err := binary.Write(w, binary.LittleEndian, d); err != nil {
				log.Fatal(err)
			}
		}
	}
	check := func(_ unit15.Stats, err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	g := oracle.NewRand(15)
	global := func(n int, sd float64) *unit15.Global { return &unit15.Global{Data: g.Normal(n, 0, sd)} }
	const tile, side = unit15.Tile, unit15.Tile * unit15.Reg
	square := unit15.Dim3{X: tile, Y: tile, Z: 1}
	for _, s := range [][3]int{{1, 1, 1}, {16, 16, 16}, {17, 33, 5}, {65, 70, 31}, {3, 100, 40}, {100, 3, 17}, {64, 64, 64}, {130, 67, 45}, {64, 64, 1}} {
		m, n, k := s[0], s[1], s[2]
		a, b := global(m*k, 1), global(k*n, 1)
		tiles := unit15.Dim3{X: (n + tile - 1) / tile, Y: (m + tile - 1) / tile, Z: 1}
		c := &unit15.Global{Data: make([]float32, m*n)}
		check(unit15.GemmNaive(c, a, b, m, n, k))
		put("gemm_naive", s, tiles, square, 0, false, a.Data, b.Data, c.Data)
		check(unit15.GemmTiled(c, a, b, m, n, k))
		put("gemm_tiled", s, tiles, square, 2*tile*tile, false, a.Data, b.Data, c.Data)
		check(unit15.GemmRegister(c, a, b, m, n, k))
		put("gemm_register", s, unit15.Dim3{X: (n + side - 1) / side, Y: (m + side - 1) / side, Z: 1}, square, 2*side*tile, false, a.Data, b.Data, c.Data)
	}
	const sq = unit15.Side
	rowsOf8 := unit15.Dim3{X: sq, Y: unit15.SideRows, Z: 1}
	for _, s := range [][3]int{{1, 1}, {32, 32}, {33, 65}, {7, 100}, {100, 7}, {64, 64}, {70, 1}, {1, 70}, {40, 96}} {
		rows, cols := s[0], s[1]
		in := global(rows*cols, 1)
		squares := unit15.Dim3{X: (cols + sq - 1) / sq, Y: (rows + sq - 1) / sq, Z: 1}
		o := &unit15.Global{Data: make([]float32, rows*cols)}
		check(unit15.TransposeNaive(o, in, rows, cols))
		put("transpose_naive", s, squares, rowsOf8, 0, false, in.Data, o.Data)
		check(unit15.TransposeShared(o, in, rows, cols))
		put("transpose_shared", s, squares, rowsOf8, sq*sq, false, in.Data, o.Data)
		check(unit15.TransposePadded(o, in, rows, cols))
		put("transpose_padded", s, squares, rowsOf8, sq*(sq+1), false, in.Data, o.Data)
	}
	for _, s := range []struct {
		nq, nk, d int
		causal    bool
		sd        float64
	}{
		{1, 1, 1, false, 1}, {1, 1, 1, true, 1}, {16, 32, 64, true, 1}, {1, 100, 64, true, 1}, {17, 33, 8, true, 1},
		{33, 70, 13, false, 1}, {5, 200, 128, true, 1}, {16, 96, 64, true, 6}, {40, 40, 32, true, 1}, {20, 3, 16, false, 1}, {3, 65, 127, false, 1},
	} {
		q, k, v := global(s.nq*s.d, s.sd), global(s.nk*s.d, s.sd), global(s.nk*s.d, 1)
		o := &unit15.Global{Data: make([]float32, s.nq*s.d)}
		st, err := unit15.FlashAttention(o, q, k, v, s.nq, s.nk, s.d, s.causal)
		check(st, err)
		grid := unit15.Dim3{X: (s.nq + unit15.QueryTile - 1) / unit15.QueryTile, Y: 1, Z: 1}
		put("flash_attention", [3]int{s.nq, s.nk, s.d}, grid, unit15.Dim3{X: unit15.KeyTile, Y: unit15.QueryTile, Z: 1}, st.Shared, s.causal, q.Data, k.Data, v.Data, o.Data)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
