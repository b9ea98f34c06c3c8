package unit13

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// The tests keep their own copy of what every sequence should hold (a
// mirror: its tokens and, per layer, its key and value rows laid end to
// end) and compare the pool's blocks with it after every step.

const (
	testLayers = 3
	testKV     = 5
)

// mirror is what a sequence should hold.
type mirror struct {
	tokens []int32
	k, v   [testLayers][][]float32 // per layer, one row per position
}

func newPool(t *testing.T, blocks int) *Pool {
	t.Helper()
	p, err := NewPool(testLayers, testKV, blocks)
	require.NoError(t, err, "NewPool(%d, %d, %d)", testLayers, testKV, blocks)
	return p
}

// grow appends n tokens (ids from next) to s and writes seeded rows for
// them in every layer, through k and v matrices with a stride wider than
// their rows; m follows.
func grow(t *testing.T, s *Seq, m *mirror, n int, next *int32, g *oracle.Rand) {
	t.Helper()
	tokens := make([]int32, n)
	for i := range tokens {
		tokens[i] = *next
		*next++
	}
	fill(t, s, m, tokens, g)
}

// stridedRows is n rows of testKV seeded floats, in a matrix whose stride
// is wider than its rows (the padding holds a value no row may copy).
func stridedRows(g *oracle.Rand, n int) unit03.Mat {
	m := unit03.Mat{Rows: n, Cols: testKV, Stride: testKV + 3, Data: make([]float32, n*(testKV+3))}
	for i := range m.Data {
		m.Data[i] = 1e9 // padding
	}
	for r := range n {
		for c := range testKV {
			m.Data[r*m.Stride+c] = float32(g.Float64()*2 - 1)
		}
	}
	return m
}

// check compares everything s shows with m: length, tokens, table length,
// and every row of every layer read back block by block.
func check(t *testing.T, what string, s *Seq, m *mirror) {
	t.Helper()
	n := len(m.tokens)
	require.Equal(t, n, s.Len(), "%s: Len", what)
	if diff := cmp.Diff(m.tokens, s.Tokens(), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s: Tokens (-want +got):\n%s", what, diff)
	}
	want := (n + BlockSize - 1) / BlockSize
	require.Len(t, s.Table(), want, "%s: a table of %d positions has one block per started %d positions", what, n, BlockSize)
	for l := range testLayers {
		for i := range want {
			k, v := s.Block(l, i)
			rows := min(BlockSize, n-i*BlockSize)
			require.Equal(t, rows, k.Rows, "%s: Block(%d, %d) of %d positions: rows of keys", what, l, i, n)
			require.Equal(t, rows, v.Rows, "%s: Block(%d, %d) of %d positions: rows of values", what, l, i, n)
			require.Equal(t, testKV, k.Cols, "%s: Block(%d, %d): columns", what, l, i)
			require.GreaterOrEqual(t, len(k.Data), (rows-1)*k.Stride+k.Cols, "%s: Block(%d, %d): the keys' view must hold every row it claims", what, l, i)
			require.GreaterOrEqual(t, len(v.Data), (rows-1)*v.Stride+v.Cols, "%s: Block(%d, %d): the values' view must hold every row it claims", what, l, i)
			for r := range rows {
				pos := i*BlockSize + r
				if diff := cmp.Diff(m.k[l][pos], k.Row(r)); diff != "" {
					t.Fatalf("%s: layer %d position %d (block %d row %d): keys (-want +got):\n%s", what, l, pos, i, r, diff)
				}
				if diff := cmp.Diff(m.v[l][pos], v.Row(r)); diff != "" {
					t.Fatalf("%s: layer %d position %d (block %d row %d): values (-want +got):\n%s", what, l, pos, i, r, diff)
				}
			}
		}
	}
}

// mustCheck requires f to panic through unit00.Check ("check failed at
// …"), not with a runtime error such as an index out of range: a bad
// argument must be caught before it reaches memory.
func mustCheck(t *testing.T, what string, f func()) {
	t.Helper()
	v, panicked := oracle.Panics(f)
	require.True(t, panicked, "%s must panic (unit00.Check)", what)
	require.True(t, strings.HasPrefix(fmt.Sprint(v), "check failed"), "%s must panic through unit00.Check before it touches memory, got %v", what, v)
}

// truncate cuts m to n positions.
func (m *mirror) truncate(n int) {
	m.tokens = m.tokens[:n]
	for l := range testLayers {
		m.k[l], m.v[l] = m.k[l][:n], m.v[l][:n]
	}
}

// clone copies m (the mirror of a Fork).
func (m *mirror) clone() *mirror {
	c := &mirror{tokens: append([]int32(nil), m.tokens...)}
	for l := range testLayers {
		c.k[l] = append([][]float32(nil), m.k[l]...)
		c.v[l] = append([][]float32(nil), m.v[l]...)
	}
	return c
}

func TestC13_1_NewPool(t *testing.T) {
	p := newPool(t, 7)
	require.Equal(t, 7, p.Blocks(), "Blocks")
	require.Equal(t, 7, p.Free(), "a new pool's blocks are all free")
	require.Equal(t, 0, p.Cached(), "a new pool caches nothing")
	require.Equal(t, 2*4*7*testLayers*BlockSize*testKV, p.Bytes(), "Bytes: keys and values, float32, every block, layer and slot")
	one := newPool(t, 1)
	require.Equal(t, 1, one.Blocks(), "a pool of one block")
	tiny, err := NewPool(1, 1, 2)
	require.NoError(t, err, "NewPool(1, 1, 2): one layer of one float is a valid shape")
	require.Equal(t, 2*4*2*BlockSize, tiny.Bytes(), "Bytes of NewPool(1, 1, 2)")
	ts := tiny.NewSeq()
	require.NoError(t, ts.Append(make([]int32, 2*BlockSize)), "filling NewPool(1, 1, 2)")
	require.Equal(t, 0, tiny.Free(), "NewPool(1, 1, 2) after 32 positions")
	for _, c := range []struct{ layers, kvDim, blocks int }{
		{0, 4, 4}, {2, 0, 4}, {2, 4, 0}, {-1, 4, 4}, {2, -4, 4}, {2, 4, -1},
		{1 << 10, 1 << 10, 1 << 20}, // 2^30 blocks · 16 slots: over 2^40 floats
	} {
		p, err := NewPool(c.layers, c.kvDim, c.blocks)
		require.ErrorIs(t, err, unit00.ErrInvalid, "NewPool(%d, %d, %d)", c.layers, c.kvDim, c.blocks)
		require.Nil(t, p, "NewPool(%d, %d, %d) with an error", c.layers, c.kvDim, c.blocks)
	}
	// Exactly 2^40 floats is allowed (and not allocated here: the check
	// comes first, so only count what it would be).
	_, err = NewPool(1<<10, 1<<10, 1<<36/BlockSize+1)
	require.ErrorIs(t, err, unit00.ErrInvalid, "NewPool one block past 2^40 floats")
}

func TestC13_1_AppendAndPut(t *testing.T) {
	g := oracle.NewRand(1301)
	// Lengths around the block size: empty, one, one short of full,
	// exactly full, one past, several blocks.
	for _, steps := range [][]int{{0}, {1}, {15}, {16}, {17}, {16, 16}, {3, 13, 1}, {1, 1, 1, 1, 12, 1}, {50}, {7, 40}} {
		what := fmt.Sprintf("appends %v", steps)
		p := newPool(t, 8)
		s, m := p.NewSeq(), &mirror{}
		var next int32 = 100
		total := 0
		for _, n := range steps {
			grow(t, s, m, n, &next, g)
			total += n
			check(t, what, s, m)
			require.Equal(t, 8-(total+BlockSize-1)/BlockSize, p.Free(), "%s: Free after %d positions", what, total)
		}
		seen := map[int]bool{}
		for i, b := range s.Table() {
			require.True(t, b >= 0 && b < p.Blocks(), "%s: table[%d] = %d is not a block of the pool", what, i, b)
			require.False(t, seen[b], "%s: block %d appears twice in one table", what, b)
			seen[b] = true
		}
	}
}

func TestC13_1_OutOfBlocks(t *testing.T) {
	g := oracle.NewRand(1302)
	p := newPool(t, 3)
	s, m := p.NewSeq(), &mirror{}
	var next int32
	grow(t, s, m, 20, &next, g) // two blocks, 12 free slots in the second
	table := append([]int(nil), s.Table()...)
	for _, n := range []int{29, 30, 100} { // 12 + 16 = 28 fit in the one free block
		err := s.Append(make([]int32, n))
		require.ErrorIs(t, err, ErrNoBlocks, "Append(%d) at length 20 with one free block", n)
		require.Equal(t, 1, p.Free(), "a refused Append must take no block")
		require.Equal(t, table, s.Table(), "a refused Append must leave the table alone")
		check(t, fmt.Sprintf("after a refused Append(%d)", n), s, m)
	}
	grow(t, s, m, 28, &next, g) // exactly fills the pool
	require.Equal(t, 0, p.Free(), "a pool exactly full")
	check(t, "a pool exactly full", s, m)
	require.ErrorIs(t, s.Append([]int32{1}), ErrNoBlocks, "Append of one token into a full pool")
	require.NoError(t, s.Append(nil), "appending nothing needs no block, even in a full pool")
	check(t, "after appending nothing", s, m)
}

func TestC13_1_ForkAndCopyOnWrite(t *testing.T) {
	g := oracle.NewRand(1303)
	for _, n := range []int{5, 16, 21, 32} {
		what := fmt.Sprintf("a fork at length %d", n)
		p := newPool(t, 10)
		a, ma := p.NewSeq(), &mirror{}
		var next int32 = 7
		grow(t, a, ma, n, &next, g)
		free := p.Free()
		b, mb := a.Fork(), ma.clone()
		require.Equal(t, free, p.Free(), "%s: Fork must share blocks, not allocate", what)
		require.Equal(t, a.Table(), b.Table(), "%s: a fork starts with the same table", what)
		check(t, what, b, mb)

		// The fork appends: a partly filled shared last block is copied
		// (one more block), a full one is not; the original never changes.
		grow(t, b, mb, 3, &next, g)
		check(t, what+": the original after the fork appended", a, ma)
		check(t, what+": the fork after it appended", b, mb)
		used := free - p.Free()
		// The copy of a partly filled last block, then whatever the three
		// tokens need past it.
		want := (n+3+BlockSize-1)/BlockSize - (n+BlockSize-1)/BlockSize
		if n%BlockSize != 0 {
			want++
		}
		require.Equal(t, want, used, "%s: blocks taken when the fork appended 3 tokens", what)
		if n%BlockSize != 0 {
			last := len(a.Table()) - 1
			require.NotEqual(t, a.Table()[last], b.Table()[last], "%s: the shared last block must be copied before the fork writes into it", what)
		}
		for i := range n / BlockSize {
			require.Equal(t, a.Table()[i], b.Table()[i], "%s: full block %d stays shared", what, i)
		}

		// The original appends too, now into a block only it holds.
		before := p.Free()
		grow(t, a, ma, 2, &next, g)
		check(t, what+": the original after its own append", a, ma)
		check(t, what+": the fork after the original appended", b, mb)
		if n%BlockSize != 0 && n%BlockSize+2 <= BlockSize {
			require.Equal(t, before, p.Free(), "%s: appending into a block the sequence holds alone copies nothing", what)
		}

		a.Release()
		check(t, what+": the fork after the original was released", b, mb)
		b.Release()
		require.Equal(t, p.Blocks(), p.Free(), "%s: every block free once both are released", what)
	}
}

func TestC13_1_TruncateAndRelease(t *testing.T) {
	g := oracle.NewRand(1304)
	for _, cut := range []int{0, 1, 15, 16, 17, 32, 40} {
		what := fmt.Sprintf("Truncate(%d) of 40 positions", cut)
		p := newPool(t, 6)
		s, m := p.NewSeq(), &mirror{}
		var next int32
		grow(t, s, m, 40, &next, g)
		s.Truncate(cut)
		m.truncate(cut)
		check(t, what, s, m)
		require.Equal(t, 6-(cut+BlockSize-1)/BlockSize, p.Free(), "%s: the blocks past the cut go back", what)
		grow(t, s, m, 9, &next, g)
		check(t, what+", then 9 more", s, m)
		s.Release()
		require.Equal(t, 0, s.Len(), "%s: Len after Release", what)
		require.Empty(t, s.Table(), "%s: table after Release", what)
		require.Equal(t, 6, p.Free(), "%s: every block free after Release", what)
		s.Release() // twice is harmless
		require.Equal(t, 6, p.Free(), "%s: a second Release frees nothing more", what)
	}
	p := newPool(t, 2)
	s := p.NewSeq()
	require.NoError(t, s.Append(make([]int32, 3)))
	table := append([]int(nil), s.Table()...)
	for _, n := range []int{-1, 4} {
		mustCheck(t, fmt.Sprintf("Truncate(%d) of 3 positions", n), func() { s.Truncate(n) })
		require.Equal(t, 3, s.Len(), "a refused Truncate(%d) changes nothing: Len", n)
		require.Equal(t, table, s.Table(), "a refused Truncate(%d) changes nothing: table", n)
		require.Equal(t, 1, p.Free(), "a refused Truncate(%d) changes nothing: free blocks", n)
	}
}

func TestC13_1_Checks(t *testing.T) {
	p := newPool(t, 4)
	s := p.NewSeq()
	require.NoError(t, s.Append(make([]int32, 20)))
	rows := func(n, cols int) unit03.Mat { return unit03.NewMat(n, cols) }
	cases := []struct {
		what string
		f    func()
	}{
		{"Put at layer −1", func() { s.Put(-1, 0, rows(1, testKV), rows(1, testKV)) }},
		{"Put at layer 3 of 3", func() { s.Put(testLayers, 0, rows(1, testKV), rows(1, testKV)) }},
		{"Put of rows one float short", func() { s.Put(0, 0, rows(1, testKV-1), rows(1, testKV-1)) }},
		{"Put of values one float short", func() { s.Put(0, 0, rows(1, testKV), rows(1, testKV-1)) }},
		{"Put of more keys than values", func() { s.Put(0, 0, rows(2, testKV), rows(1, testKV)) }},
		{"Put at position −1", func() { s.Put(0, -1, rows(1, testKV), rows(1, testKV)) }},
		{"Put past Len", func() { s.Put(0, 19, rows(2, testKV), rows(2, testKV)) }},
		{"Block at layer 3 of 3", func() { s.Block(testLayers, 0) }},
		{"Block at layer −1", func() { s.Block(-1, 0) }},
		{"Block 2 of 2", func() { s.Block(0, 2) }},
		{"Block −1", func() { s.Block(0, -1) }},
	}
	for _, c := range cases {
		mustCheck(t, c.what, c.f)
	}
	s.Put(0, 19, rows(1, testKV), rows(1, testKV)) // the last position is fine

	// Writing into a block another sequence shares is a bug the pool
	// catches: a fork must Append (and so copy) first.
	f := s.Fork()
	_, panicked := oracle.Panics(func() { f.Put(0, 17, rows(1, testKV), rows(1, testKV)) })
	require.True(t, panicked, "Put into a block two sequences share must panic: Append copies it first")
	_, panicked = oracle.Panics(func() { s.Put(0, 0, rows(1, testKV), rows(1, testKV)) })
	require.True(t, panicked, "Put into a shared full block must panic")
	f.Release()
	s.Put(0, 0, rows(1, testKV), rows(1, testKV)) // alone again

	// Releasing a block more often than it was referred to is a bug too.
	s2 := p.NewSeq()
	require.NoError(t, s2.Append(make([]int32, 1)))
	ghost := *s2 // a stale copy that still holds s2's block
	s2.Release()
	_, panicked = oracle.Panics(ghost.Release)
	require.True(t, panicked, "releasing a block that is already free must panic (unit00.Check)")
}

// prompt returns n token ids starting at first.
func prompt(first int32, n int) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = first + int32(i)
	}
	return ids
}

// fill appends ids to s and writes seeded rows, like grow.
func fill(t *testing.T, s *Seq, m *mirror, ids []int32, g *oracle.Rand) {
	t.Helper()
	pos0 := s.Len()
	require.NoError(t, s.Append(ids), "Append of %d tokens at length %d", len(ids), pos0)
	m.tokens = append(m.tokens, ids...)
	for l := range testLayers {
		k, v := stridedRows(g, len(ids)), stridedRows(g, len(ids))
		s.Put(l, pos0, k, v)
		for r := range len(ids) {
			m.k[l] = append(m.k[l], append([]float32(nil), k.Row(r)...))
			m.v[l] = append(m.v[l], append([]float32(nil), v.Row(r)...))
		}
	}
}

func TestC13_1_PrefixCache(t *testing.T) {
	g := oracle.NewRand(1305)
	p := newPool(t, 12)
	a, ma := p.NewSeq(), &mirror{}
	system := prompt(1000, 40) // two full blocks and 8 more
	fill(t, a, ma, system, g)
	require.Equal(t, 0, p.Cached(), "nothing is cached before Commit")
	miss := p.Match(system)
	require.Equal(t, 0, miss.Len(), "Match before Commit finds nothing")
	miss.Release()
	a.Commit()
	require.Equal(t, 2, p.Cached(), "Commit of 40 positions caches its two full blocks")
	a.Commit()
	require.Equal(t, 2, p.Cached(), "a second Commit adds nothing")

	cases := []struct {
		what   string
		tokens []int32
		want   int
	}{
		{"the same 40 tokens", system, 32},
		{"the first 33 tokens", system[:33], 32},
		{"exactly the 32 cached tokens: the last must still run", system[:32], 16},
		{"the first 17 tokens", system[:17], 16},
		{"16 tokens: the last of the first block must run", system[:16], 0},
		{"no tokens", nil, 0},
		{"a different first token", append([]int32{5}, system[1:]...), 0},
		{"a different token 15, the end of the first block", append(append(append([]int32(nil), system[:15]...), 5), system[16:]...), 0},
		{"a different token 16, the start of the second block", append(append(append([]int32(nil), system[:16]...), 5), system[17:]...), 16},
		{"the second block alone, without its prefix", system[16:], 0},
		{"the system prompt and a new question", append(append([]int32(nil), system...), prompt(50, 20)...), 32},
	}
	for _, c := range cases {
		free := p.Free()
		s := p.Match(c.tokens)
		require.Equal(t, c.want, s.Len(), "Match of %s: cached positions", c.what)
		require.Equal(t, free, p.Free(), "Match of %s: blocks in use by a are not free, so sharing them takes none", c.what)
		mm := ma.clone()
		mm.truncate(c.want)
		check(t, "Match of "+c.what, s, mm)
		for i := range c.want / BlockSize {
			require.Equal(t, a.Table()[i], s.Table()[i], "Match of %s: block %d must be a's, shared", c.what, i)
		}
		s.Release()
	}

	// A second request with the same system prompt: shares the two blocks,
	// computes the rest, and writes nothing into a's blocks.
	b := p.Match(append(append([]int32(nil), system...), prompt(70, 5)...))
	mb := ma.clone()
	mb.truncate(32)
	fill(t, b, mb, append(append([]int32(nil), system[32:]...), prompt(70, 5)...), g)
	check(t, "the second request", b, mb)
	check(t, "the first request after the second", a, ma)

	// Cached blocks outlive their sequences while free, oldest evicted
	// first.
	a.Release()
	b.Release()
	require.Equal(t, p.Blocks(), p.Free(), "every block free (cached ones count as free)")
	again := p.Match(system)
	require.Equal(t, 32, again.Len(), "a released sequence's committed blocks still match")
	require.Equal(t, p.Blocks()-2, p.Free(), "matched blocks leave the free queue")
	again.Release()

	// Take every other block: the allocations take the oldest free blocks
	// first, so the cached ones (freed last) survive until the pool is
	// short.
	hog, mh := p.NewSeq(), &mirror{}
	fill(t, hog, mh, prompt(1, BlockSize*(p.Blocks()-2)), g)
	require.Equal(t, 32, p.Match(system).Len(), "allocating the blocks that were free before must not evict the cached ones")
}

func TestC13_1_PrefixCacheEviction(t *testing.T) {
	g := oracle.NewRand(1306)
	p := newPool(t, 4)
	a, ma := p.NewSeq(), &mirror{}
	system := prompt(1, 33)
	fill(t, a, ma, system, g)
	a.Commit()
	a.Release()
	// Four blocks, two cached and free: a sequence that needs all four
	// evicts both, and the old prefix must not match its new rows.
	hog, mh := p.NewSeq(), &mirror{}
	fill(t, hog, mh, prompt(500, 4*BlockSize), g)
	hog.Commit()
	hog.Release()
	s := p.Match(system)
	require.Equal(t, 0, s.Len(), "Match of a prefix whose blocks were reused for other tokens")
	s.Release()
	// The second block alone was evicted: its key must no longer match,
	// even though the first block is still cached.
	c, mc := p.NewSeq(), &mirror{}
	fill(t, c, mc, system, g)
	c.Commit()
	cTable := append([]int(nil), c.Table()...)
	c.Release()
	// c's blocks went back last first: its third (partial) block, its
	// second, its first. Three allocations take the one free block before
	// them, then the third and the second: the first block stays cached.
	one, m1 := p.NewSeq(), &mirror{}
	fill(t, one, m1, prompt(900, 3*BlockSize), g)
	s = p.Match(system)
	require.Equal(t, 16, s.Len(), "Match after the second block of the prefix was reused: the first block only (Release must free a sequence's blocks last first, so its head stays cached longest)")
	require.Equal(t, cTable[0], s.Table()[0], "the matched block is c's first")
	s.Release()
	// A block about to change leaves the cache: truncate into a committed
	// block that only this sequence holds, then append into it.
	one.Release()
	d := p.Match(system)
	require.Equal(t, 16, d.Len(), "Match of the prefix whose first block is cached")
	md := &mirror{tokens: append([]int32(nil), d.Tokens()...)}
	for l := range testLayers {
		for i := range 16 {
			k, v := d.Block(l, 0)
			md.k[l] = append(md.k[l], append([]float32(nil), k.Row(i)...))
			md.v[l] = append(md.v[l], append([]float32(nil), v.Row(i)...))
		}
	}
	fill(t, d, md, system[16:32], g)
	d.Commit()
	full := p.Match(system)
	require.Equal(t, 32, full.Len(), "Match after d committed its second block")
	full.Release()
	d.Truncate(20)
	md.truncate(20)
	fill(t, d, md, prompt(7000, 4), g)
	check(t, "a sequence that rewrote its second block", d, md)
	e := p.Match(system)
	require.Equal(t, 16, e.Len(), "Match after the second block was rewritten: the first block only")
	require.Equal(t, d.Table()[0], e.Table()[0], "the shared first block")
	e.Release()
}

func TestC13_1_CopyOnWriteEdges(t *testing.T) {
	g := oracle.NewRand(1307)
	// A pool whose only free block lies between two live ones: the copy
	// of a shared block lands there and must write that block alone.
	p := newPool(t, 4)
	a, ma := p.NewSeq(), &mirror{}
	var next int32
	grow(t, a, ma, 5, &next, g) // block 0
	h1, m1 := p.NewSeq(), &mirror{}
	grow(t, h1, m1, BlockSize, &next, g) // block 1
	h2, m2 := p.NewSeq(), &mirror{}
	grow(t, h2, m2, BlockSize, &next, g) // block 2
	h3, m3 := p.NewSeq(), &mirror{}
	grow(t, h3, m3, BlockSize, &next, g) // block 3
	h1.Release()
	require.Equal(t, 1, p.Free(), "one free block")
	b, mb := a.Fork(), ma.clone()
	// Appending nothing to a fork copies nothing.
	require.NoError(t, b.Append(nil), "appending nothing to a fork")
	require.Equal(t, 1, p.Free(), "appending nothing to a fork must take no block")
	require.Equal(t, a.Table(), b.Table(), "appending nothing to a fork keeps its table")
	grow(t, b, mb, 2, &next, g) // the copy takes the one free block
	require.Equal(t, 0, p.Free(), "the copy of the shared block")
	check(t, "the original after the copy", a, ma)
	check(t, "the fork after the copy", b, mb)
	check(t, "a neighbour of the copy's block", h2, m2)
	check(t, "another neighbour", h3, m3)
	// Now no block is free: a second fork's append needs a copy, and is
	// refused whole.
	c := a.Fork()
	require.ErrorIs(t, c.Append([]int32{1}), ErrNoBlocks, "an append that needs a copy of a shared block, with no free block")
	require.Equal(t, a.Table(), c.Table(), "the refused append leaves the fork's table alone")
	require.Equal(t, 5, c.Len(), "the refused append leaves the fork's length alone")
	c.Release()

	// A committed block only this sequence holds, cut into and appended
	// to, leaves the prefix cache instead of being copied, whichever pool
	// block it is (block 0 here).
	q := newPool(t, 3)
	s, ms := q.NewSeq(), &mirror{}
	ids := prompt(40, BlockSize+1)
	fill(t, s, ms, ids[:BlockSize], g)
	require.Equal(t, 0, s.Table()[0], "a fresh pool hands out block 0 first")
	s.Commit()
	hit := q.Match(ids)
	require.Equal(t, BlockSize, hit.Len(), "the committed block matches")
	hit.Release()
	s.Truncate(10)
	ms.truncate(10)
	free := q.Free()
	fill(t, s, ms, prompt(90, 3), g)
	require.Equal(t, free, q.Free(), "rewriting a block only this sequence holds needs no copy")
	check(t, "after rewriting block 0", s, ms)
	miss := q.Match(ids)
	require.Equal(t, 0, miss.Len(), "a rewritten block must leave the prefix cache")
	miss.Release()
}

func TestC13_1_CommitAsItGrows(t *testing.T) {
	g := oracle.NewRand(1308)
	p := newPool(t, 8)
	s, m := p.NewSeq(), &mirror{}
	ids := prompt(3, 3*BlockSize+2)
	// A decode loop: one token at a time, Commit after each.
	for i, id := range ids {
		fill(t, s, m, []int32{id}, g)
		s.Commit()
		require.Equal(t, (i+1)/BlockSize, p.Cached(), "Cached after committing %d positions one by one", i+1)
	}
	got := p.Match(ids)
	require.Equal(t, 3*BlockSize, got.Len(), "Match of a prompt committed one token at a time")
	got.Release()

	// Cut back into the second block and grow other tokens: the new
	// second and third blocks are committed again.
	s.Truncate(20)
	m.truncate(20)
	other := append(append([]int32(nil), ids[:20]...), prompt(600, 2*BlockSize)...)
	fill(t, s, m, other[20:], g)
	s.Commit()
	again := p.Match(other)
	require.Equal(t, 3*BlockSize, again.Len(), "Match of the regrown prompt: its new blocks were committed")
	again.Release()

	// Two sequences with the same tokens, each written on its own: the
	// first committed serves, the second's stays out of the cache.
	dup := prompt(800, BlockSize+1)
	q := newPool(t, 4)
	first, mf := q.NewSeq(), &mirror{}
	fill(t, first, mf, dup, g)
	second, msec := q.NewSeq(), &mirror{}
	fill(t, second, msec, dup, g)
	first.Commit()
	second.Commit()
	require.Equal(t, 1, q.Cached(), "two blocks of the same tokens: one cache entry")
	hit := q.Match(dup)
	require.Equal(t, first.Table()[0], hit.Table()[0], "the block committed first serves the match")
	mm := mf.clone()
	mm.truncate(BlockSize)
	check(t, "the match of the first sequence's block", hit, mm)
	hit.Release()

	// A block that misses ends the match, even when a later block of the
	// prompt is cached under another prefix.
	prefix := append(append([]int32(nil), dup[:BlockSize]...), prompt(1200, BlockSize+1)...)
	first.Release()
	second.Release()
	hitc := q.Match(prefix)
	require.Equal(t, BlockSize, hitc.Len())
	c, mc := hitc, mf.clone()
	mc.truncate(BlockSize)
	fill(t, c, mc, prefix[BlockSize:], g)
	c.Commit() // caches block [dup-first, 1200…] with parent dup's block
	probe := append(append(append([]int32(nil), dup[:BlockSize]...), prompt(5, BlockSize)...), prefix[BlockSize:]...)
	miss := q.Match(probe)
	require.Equal(t, BlockSize, miss.Len(), "Match of [A, X, C] when [A, C] is cached: X misses, and the match ends there")
	miss.Release()
}
