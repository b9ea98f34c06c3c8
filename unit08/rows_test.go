package unit08

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// pagedRows is a RowReader as unit13's cache is one: the rows of a matrix
// scattered over pages of page rows, in a shuffled order, each page's rows
// ld floats apart with NaN between them. ReadRows answers with a view
// when the rows asked for lie in one page, and with a copy into buf when
// they do not (or always, with copyAll). It records the first bad request.
type pagedRows struct {
	t              *testing.T
	name           string
	n, width, page int
	ld             int
	data           []float32 // the pages, page after page: page b at b·page·ld
	table          []int     // logical page i → page table[i]
	copyAll        bool
	mu             sync.Mutex // attention's threads read at once
	bad            string
	views, copies  atomic.Int64
}

// newPagedRows scatters the first n rows of m over pages of page rows.
func newPagedRows(t *testing.T, name string, m unit03.Mat, n, page int, seed uint64) *pagedRows {
	r := &pagedRows{t: t, name: name, n: n, width: m.Cols, page: page, ld: m.Cols + 3}
	pages := (n + page - 1) / page
	r.table = oracle.NewRand(seed).Perm(pages)
	r.data = make([]float32, pages*page*r.ld)
	for i := range r.data {
		r.data[i] = float32(math.NaN())
	}
	for i := range n {
		copy(r.data[r.at(i):], m.Row(i))
	}
	return r
}

// at is where row i starts.
func (r *pagedRows) at(i int) int { return (r.table[i/r.page]*r.page + i%r.page) * r.ld }

func (r *pagedRows) Len() int { return r.n }

func (r *pagedRows) ReadRows(buf []float32, a, n, c0, w int) ([]float32, int) {
	if a < 0 || n <= 0 || a+n > r.n || n > TileKeys || c0 < 0 || w <= 0 || c0+w > r.width || len(buf) < n*w {
		r.mu.Lock()
		if r.bad == "" {
			r.bad = fmt.Sprintf("ReadRows(len(buf) %d, a %d, n %d, c0 %d, w %d) of %d rows of %d", len(buf), a, n, c0, w, r.n, r.width)
		}
		r.mu.Unlock()
		return make([]float32, max(n*w, 0)), w // zeros: the result is wrong, and the request is reported
	}
	if !r.copyAll && a/r.page == (a+n-1)/r.page {
		r.views.Add(1)
		return r.data[r.at(a)+c0:], r.ld
	}
	r.copies.Add(1)
	for i := range n {
		copy(buf[i*w:(i+1)*w], r.data[r.at(a+i)+c0:])
	}
	return buf, w
}

// checkRequests fails t if attention asked r for rows it may not read.
func (r *pagedRows) checkRequests(what string) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bad != "" {
		r.t.Errorf("%s: the %s asked for %s: read only rows 0 … pos0+T−1, at most TileKeys at once, columns of one KV head, into a buf of n·w floats", what, r.name, r.bad)
	}
}

// TestC8_6_AttendRows: attention over keys and values a RowReader keeps,
// scattered over pages of 16 rows (unit13's block size), of 5 (no divisor
// of a tile), and read by copies only, equals the oracle's for decode
// steps (split over threads past 2·MinSplit positions) and prompts (of
// two rows, longer than a tile of queries, past a block of keys).
func TestC8_6_AttendRows(t *testing.T) {
	ps, done := pools()
	defer done()
	probs := []problem{{4, 2, 16, 1, 0}, {4, 2, 16, 1, 700}, {4, 2, 16, 2, 30}, {8, 2, 8, 70, 0}, {4, 1, 32, 9, 200}, {6, 3, 16, 130, 5}, {2, 2, 24, 1, 140}}
	for j, c := range probs {
		q, k, v, want := operands(c, uint64(600+j))
		S := c.pos0 + c.T
		for _, layout := range []struct {
			page    int
			copyAll bool
		}{{16, false}, {5, false}, {16, true}} {
			for _, p := range ps {
				kr := newPagedRows(t, "key reader", k, S, layout.page, uint64(610+j))
				vr := newPagedRows(t, "value reader", v, S, layout.page, uint64(620+j))
				kr.copyAll, vr.copyAll = layout.copyAll, layout.copyAll
				f := newFlash(t, c.heads, c.kvHeads, c.hd, 3)
				out := nanMat(c.T, c.heads*c.hd)
				f.AttendRows(p, out, q, kr, vr, c.heads, c.kvHeads, c.pos0)
				what := fmt.Sprintf("AttendRows, %v, pages of %d rows (copies only: %v), %d threads", c, layout.page, layout.copyAll, p.Threads())
				kr.checkRequests(what)
				vr.checkRequests(what)
				oracle.AssertCloseShape(t, what, dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
				checkPadding(t, what, out)
				if kr.views.Load()+kr.copies.Load() == 0 || vr.views.Load()+vr.copies.Load() == 0 {
					t.Errorf("%s: ReadRows was called %d times for keys and %d for values: read the rows through the readers", what, kr.views.Load()+kr.copies.Load(), vr.views.Load()+vr.copies.Load())
				}
			}
		}
	}
}

// TestC8_6_ViewsInPlace: a reader that keeps its rows together answers
// every request with a view, and attention reads it with the stride it
// is given: here the rows of a wider matrix, with NaN between them.
func TestC8_6_ViewsInPlace(t *testing.T) {
	c := problem{4, 2, 8, 20, 150}
	q, k, v, want := operands(c, 630)
	S := c.pos0 + c.T
	kr, vr := newPagedRows(t, "key reader", k, S, S, 631), newPagedRows(t, "value reader", v, S, S, 632)
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	out := nanMat(c.T, c.heads*c.hd)
	f.AttendRows(nil, out, q, kr, vr, c.heads, c.kvHeads, c.pos0)
	kr.checkRequests("AttendRows over one page")
	vr.checkRequests("AttendRows over one page")
	oracle.AssertCloseShape(t, "AttendRows over one page, rows ld = width+3 apart", dense(out), want, []int{c.T, c.heads, c.hd}, attentionTol)
	if n := kr.copies.Load() + vr.copies.Load(); n != 0 {
		t.Errorf("the readers copied %d times: with the rows in one page they answer with views", n)
	}
}

// TestC8_6_NoAllocations: after the first call, AttendRows allocates
// nothing, for a decode step or a prompt.
func TestC8_6_NoAllocations(t *testing.T) {
	p := unit03.NewPool(2)
	defer p.Close()
	for _, c := range []problem{{8, 2, 8, 1, 900}, {8, 2, 8, 40, 100}} {
		q, k, v, _ := operands(c, 640)
		S := c.pos0 + c.T
		kr, vr := newPagedRows(t, "key reader", k, S, 16, 641), newPagedRows(t, "value reader", v, S, 16, 642)
		out := unit03.NewMat(c.T, c.heads*c.hd)
		f := newFlash(t, c.heads, c.kvHeads, c.hd, 2)
		f.AttendRows(p, out, q, kr, vr, c.heads, c.kvHeads, c.pos0)
		if n := oracle.AllocsPerRun(5, func() { f.AttendRows(p, out, q, kr, vr, c.heads, c.kvHeads, c.pos0) }); n != 0 {
			t.Errorf("%v: AttendRows allocates %v times per call after the first, want 0: give the workers their scratch once", c, n)
		}
	}
}

// TestC8_6_Checks: readers that hold fewer rows than the positions need,
// a nil reader, and shapes that do not fit panic through unit00.Check.
func TestC8_6_Checks(t *testing.T) {
	c := problem{4, 2, 8, 3, 40}
	q, k, v, _ := operands(c, 650)
	S := c.pos0 + c.T
	f := newFlash(t, c.heads, c.kvHeads, c.hd, 1)
	out := unit03.NewMat(c.T, c.heads*c.hd)
	full := func() (*pagedRows, *pagedRows) {
		return newPagedRows(t, "key reader", k, S, 16, 651), newPagedRows(t, "value reader", v, S, 16, 652)
	}
	kr, vr := full()
	short := newPagedRows(t, "short reader", k, S-1, 16, 653)
	mustPanic(t, "AttendRows with keys one row short", func() { f.AttendRows(nil, out, q, short, vr, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "AttendRows with values one row short", func() { f.AttendRows(nil, out, q, kr, short, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "AttendRows of one row with values one row short", func() {
		f.AttendRows(nil, out.Block(0, 1, 0, out.Cols), q.Block(0, 1, 0, q.Cols), kr, newPagedRows(t, "short reader", v, c.pos0, 16, 654), c.heads, c.kvHeads, c.pos0)
	})
	mustPanic(t, "AttendRows with nil keys", func() { f.AttendRows(nil, out, q, nil, vr, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "AttendRows with nil values", func() { f.AttendRows(nil, out, q, kr, nil, c.heads, c.kvHeads, c.pos0) })
	mustPanic(t, "AttendRows with other heads than New's", func() { f.AttendRows(nil, out, q, kr, vr, c.heads, 1, c.pos0) })
	mustPanic(t, "AttendRows with out of another shape", func() { f.AttendRows(nil, unit03.NewMat(c.T+1, c.heads*c.hd), q, kr, vr, c.heads, c.kvHeads, c.pos0) })
	// Exactly enough rows is not an error.
	kr, vr = full()
	f.AttendRows(nil, out, q, kr, vr, c.heads, c.kvHeads, c.pos0)
	kr.checkRequests("AttendRows with exactly pos0+T rows")
}
