package unit08

// RowReader is keys or values that attention reads where someone else
// keeps them: unit13's paged cache, whose positions lie in blocks of 16
// rows scattered over a pool. Attention asks for one block of positions
// at a time, and a reader answers with a view where the rows lie
// together, or with a copy where they do not.
type RowReader interface {
	// Len is the number of positions the reader holds, rows 0 … Len()−1.
	Len() int
	// ReadRows returns rows a … a+n−1 (0 ≤ a, a+n ≤ Len(), n ≤ TileKeys),
	// columns c0 … c0+w−1 of each, as float32s with the stride between
	// rows: row i's columns start at [i·stride] of the slice returned.
	// It may return a view of its own memory, or copy the rows into buf
	// (n·w floats) and return buf with stride w. Attention only reads
	// what it returns. Attention's threads call it at once, each with a
	// buf of its own: it must be safe for that.
	ReadRows(buf []float32, a, n, c0, w int) (rows []float32, stride int)
}
