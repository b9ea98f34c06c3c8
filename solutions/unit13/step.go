package unit13

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit08"
)

// Runner runs one model's forward pass over many sequences of one pool at
// once: a step of continuous batching. Every linear layer runs once over
// the batch's tokens side by side; attention runs per sequence, over its
// own blocks. Its scratch is allocated when it is made, for up to
// maxTokens tokens a step, so a step allocates nothing. A Runner, like
// its Model and Pool, is used by one goroutine at a time.
type Runner struct {
	Model *unit05.Model
	KV    *Pool

	maxTokens int
	flash     *unit08.Flash
	rope      *unit05.Rope
	arena     *unit01.Arena
	tokens    []int     // the step's tokens, entry after entry
	keys      layerRows // one layer's keys of the entry being attended
	values    layerRows // and its values
	solo      []soloAttention
	attend    attendTask
}

// soloAttention is one thread's attention for decode rows attended side by
// side (attendTask): a Flash of one worker and the rows it reads.
type soloAttention struct {
	flash        *unit08.Flash
	keys, values layerRows
}

// NewRunner returns a runner of m over the sequences of kv, for steps of
// at most maxTokens tokens. A pool made for another model (its layers or
// its keys' width), or maxTokens outside 1 … MaxStepTokens, is an error
// wrapping unit00.ErrInvalid. The runner attends with a unit08.Flash of
// its own and keeps the keys and values in kv, whatever m.Attention and
// m.Store say.
func NewRunner(m *unit05.Model, kv *Pool, maxTokens int) (*Runner, error) {
	c := m.Config
	if kv.layers != c.Layers || kv.kvDim != c.KVDim() {
		return nil, fmt.Errorf("unit13: NewRunner: a pool of %d layers of %d-wide keys for a model of %d layers of %d: %w", kv.layers, kv.kvDim, c.Layers, c.KVDim(), unit00.ErrInvalid)
	}
	if maxTokens <= 0 || maxTokens > MaxStepTokens {
		return nil, fmt.Errorf("unit13: NewRunner: %d tokens a step, want 1 to %d: %w", maxTokens, MaxStepTokens, unit00.ErrInvalid)
	}
	f, err := unit08.New(c.Heads, c.KVHeads, c.HeadDim, m.Pool.Threads())
	if err != nil {
		return nil, fmt.Errorf("unit13: NewRunner: %w", err)
	}
	// The peak of a step is inside a layer: the hidden states and the
	// layer's rows (normalised, queries, keys, values, attention,
	// feed-forward out, gate and up), nine allocations, each of which may
	// start up to an alignment further on. The logits' rows come after
	// the layers and take at most three of a row's widths.
	solo := make([]soloAttention, m.Pool.Threads())
	for i := range solo {
		if solo[i].flash, err = unit08.New(c.Heads, c.KVHeads, c.HeadDim, 1); err != nil {
			return nil, fmt.Errorf("unit13: NewRunner: %w", err)
		}
	}
	perRow := 3*c.Dim + 2*c.QDim() + 2*c.KVDim() + 2*c.FFN
	bytes := 4*maxTokens*perRow + 9*unit01.Alignment
	return &Runner{
		Model: m, KV: kv,
		maxTokens: maxTokens,
		flash:     f,
		solo:      solo,
		attend:    attendTask{rows: make([][2]int, 0, maxTokens)},
		rope:      unit05.NewRopeYarn(c.HeadDim, c.MaxSeq, c.RopeBase, c.Rope, c.RopeFactors, c.Yarn),
		arena:     unit01.NewArena(bytes),
		tokens:    make([]int, 0, maxTokens),
	}, nil
}

// MaxTokens is the most tokens a step may hold.
func (r *Runner) MaxTokens() int { return r.maxTokens }

// Step computes the positions the entries name, all in one forward pass,
// writes their keys and values into their sequences' blocks, and sets row
// i of logits to the logits of entry i's last position: the scores of the
// token after it. Before anything is computed it checks the batch: at
// least one entry, no more than MaxTokens tokens in all, each entry's N
// between 1 and its sequence's Len(), its positions within the model's
// MaxSeq, every sequence on the runner's pool and in the batch once, and
// every token in the vocabulary; a batch that fails is an error wrapping
// unit00.ErrInvalid that names the entry, and nothing is written. It
// panics (unit00.Check) if logits is not len(batch) × Vocab.
func (r *Runner) Step(logits unit03.Mat, batch []Entry) error {
	c := r.Model.Config
	if err := r.check(batch); err != nil {
		return err
	}
	unit00.Check(logits.Rows == len(batch) && logits.Cols == c.Vocab, "unit13: Step: logits must be len(batch) × Vocab")
	r.tokens = r.tokens[:0]
	for _, e := range batch {
		for _, tok := range e.Seq.Tokens()[e.Seq.Len()-e.N:] {
			r.tokens = append(r.tokens, int(tok))
		}
	}
	r.arena.Reset()
	x := r.scratch(len(r.tokens), c.Dim)
	if err := unit05.Embed(x, r.Model.Weights.Embed, r.tokens); err != nil {
		return fmt.Errorf("unit13: Step: %w", err) // checked above: nothing written
	}
	for l := range c.Layers {
		r.layer(l, x, batch)
	}
	// Only each entry's last position needs its logits.
	last := r.scratch(len(batch), c.Dim)
	end := 0
	for i, e := range batch {
		end += e.N
		copy(last.Row(i), x.Row(end-1))
	}
	n := r.scratch(len(batch), c.Dim)
	normRows(n, last, r.Model.Weights.OutNorm, c.RMSEps)
	r.Model.Weights.Output.MulT(r.Model.Pool, logits, n)
	return nil
}

// check is Step's validation of the batch, before anything is written.
func (r *Runner) check(batch []Entry) error {
	c := r.Model.Config
	if len(batch) == 0 {
		return fmt.Errorf("unit13: Step: an empty batch: %w", unit00.ErrInvalid)
	}
	total := 0
	for i, e := range batch {
		switch {
		case e.Seq == nil || e.Seq.pool != r.KV:
			return fmt.Errorf("unit13: Step: entry %d: a sequence of another pool: %w", i, unit00.ErrInvalid)
		case e.N < 1 || e.N > e.Seq.Len():
			return fmt.Errorf("unit13: Step: entry %d: %d positions of a sequence of %d (Append them first): %w", i, e.N, e.Seq.Len(), unit00.ErrInvalid)
		case e.Seq.Len() > c.MaxSeq:
			return fmt.Errorf("unit13: Step: entry %d: a sequence of %d positions, more than MaxSeq = %d: %w", i, e.Seq.Len(), c.MaxSeq, unit00.ErrInvalid)
		}
		for j := range i {
			if batch[j].Seq == e.Seq {
				return fmt.Errorf("unit13: Step: entries %d and %d are the same sequence: %w", j, i, unit00.ErrInvalid)
			}
		}
		pos0 := e.Seq.Len() - e.N
		for p, tok := range e.Seq.Tokens()[pos0:] {
			if tok < 0 || int(tok) >= c.Vocab {
				return fmt.Errorf("unit13: Step: entry %d: token %d at position %d is outside the vocabulary [0, %d): %w", i, tok, pos0+p, c.Vocab, unit00.ErrInvalid)
			}
		}
		total += e.N
	}
	if total > r.maxTokens {
		return fmt.Errorf("unit13: Step: %d tokens, more than the runner's %d: %w", total, r.maxTokens, unit00.ErrInvalid)
	}
	return nil
}

// layer runs transformer block l over the hidden states x of the whole
// batch, in place: unit05's Block, with the products over every entry's
// rows at once and attention entry by entry, over its blocks.
func (r *Runner) layer(l int, x unit03.Mat, batch []Entry) {
	c, w, threads := r.Model.Config, &r.Model.Weights.Layers[l], r.Model.Pool
	T := x.Rows
	mark := r.arena.Mark()
	defer r.arena.Rewind(mark)

	n := r.scratch(T, c.Dim)
	normRows(n, x, w.AttnNorm, c.RMSEps)
	q, k, v := r.scratch(T, c.QDim()), r.scratch(T, c.KVDim()), r.scratch(T, c.KVDim())
	w.Wq.MulT(threads, q, n)
	w.Wk.MulT(threads, k, n)
	w.Wv.MulT(threads, v, n)
	if c.QKVBias {
		addBias(q, w.Bq)
		addBias(k, w.Bk)
		addBias(v, w.Bv)
	}
	att := r.scratch(T, c.QDim())
	r.attend = attendTask{r: r, batch: batch, layer: l, q: q, att: att, rows: r.attend.rows[:0]}
	row := 0
	for i, e := range batch {
		pos0 := e.Seq.Len() - e.N
		rows := func(m unit03.Mat) unit03.Mat { return m.Block(row, row+e.N, 0, m.Cols) }
		qe, ke, ve := rows(q), rows(k), rows(v)
		r.rope.RotateHeads(qe, pos0)
		r.rope.RotateHeads(ke, pos0)
		e.Seq.Put(l, pos0, ke, ve)
		if e.N == 1 && (threads.Threads() == 1 || e.Seq.Len() < 2*unit08.MinSplit) {
			// Attention would run on one thread anyway (a part takes at
			// least MinSplit keys): attendTask runs such rows side by
			// side instead, one sequence per thread.
			r.attend.rows = append(r.attend.rows, [2]int{i, row})
		} else {
			r.keys = layerRows{seq: e.Seq, data: r.KV.k, layer: l}
			r.values = layerRows{seq: e.Seq, data: r.KV.v, layer: l}
			r.flash.AttendRows(threads, rows(att), qe, &r.keys, &r.values, c.Heads, c.KVHeads, pos0)
		}
		row += e.N
	}
	threads.RunTask(min(threads.Threads(), len(r.attend.rows)), &r.attend)
	r.attend = attendTask{rows: r.attend.rows[:0]} // hold no sequence past the step
	r.keys, r.values = layerRows{}, layerRows{}
	w.Wo.MulT(threads, n, att) // n is free again: the projection goes there
	addRows(x, n)

	normRows(n, x, w.FFNNorm, c.RMSEps)
	out := r.scratch(T, c.Dim)
	if w.MoE != nil {
		w.MoE.FeedForward(threads, out, n)
	} else {
		unit05.FeedForward(threads, out, n, w, r.scratch(T, c.FFN), r.scratch(T, c.FFN))
	}
	addRows(x, out)
}

// attendTask attends a layer's decode rows that each fit one thread: part
// p takes rows p, p+parts, …, with the Flash and scratch of r.solo[p]. A
// row's arithmetic is that of AttendRows on one thread, so its result is
// the same wherever it runs.
type attendTask struct {
	r      *Runner
	batch  []Entry
	layer  int
	q, att unit03.Mat
	rows   [][2]int // entry, row of q
}

func (t *attendTask) Do(p int) {
	c, solo := t.r.Model.Config, &t.r.solo[p]
	parts := min(len(t.r.solo), len(t.rows))
	for j := p; j < len(t.rows); j += parts {
		e, row := t.batch[t.rows[j][0]], t.rows[j][1]
		solo.keys = layerRows{seq: e.Seq, data: t.r.KV.k, layer: t.layer}
		solo.values = layerRows{seq: e.Seq, data: t.r.KV.v, layer: t.layer}
		out, q := t.att.Block(row, row+1, 0, t.att.Cols), t.q.Block(row, row+1, 0, t.q.Cols)
		solo.flash.AttendRows(nil, out, q, &solo.keys, &solo.values, c.Heads, c.KVHeads, e.Seq.Len()-1)
	}
	solo.keys, solo.values = layerRows{}, layerRows{}
}

// scratch carves a rows×cols matrix from the arena.
func (r *Runner) scratch(rows, cols int) unit03.Mat {
	data, err := r.arena.Float32s(rows * cols)
	unit00.Check(err == nil, "unit13: Runner: scratch arena too small (NewRunner sizes it wrong)")
	return unit03.MatOf(rows, cols, data)
}

// layerRows reads one layer's keys (data = the pool's keys) or values of
// a sequence for unit08's attention: position pos is slot pos%BlockSize
// of the block its table lists at pos/BlockSize.
type layerRows struct {
	seq   *Seq
	data  []float32
	layer int
}

func (lr *layerRows) Len() int { return lr.seq.Len() }

// ReadRows copies the rows into buf, block by block. (A view would serve
// rows that lie in one block, but attention asks for TileKeys = 128 rows
// at a time, which always cross blocks.)
func (lr *layerRows) ReadRows(buf []float32, a, n, c0, w int) ([]float32, int) {
	p, table := lr.seq.pool, lr.seq.Table()
	for i := range n {
		pos := a + i
		at := p.rows(table[pos/BlockSize], lr.layer) + pos%BlockSize*p.kvDim + c0
		copy(buf[i*w:(i+1)*w], lr.data[at:at+w])
	}
	return buf, w
}

// normRows sets each row of dst to RMSNorm of the same row of x, times w.
func normRows(dst, x unit03.Mat, w []float32, eps float32) {
	for t := range x.Rows {
		unit02.RMSNormRow(dst.Row(t), x.Row(t), w, eps)
	}
}

// addRows adds y to x, row by row: the residual connection.
func addRows(x, y unit03.Mat) {
	for t := range x.Rows {
		unit02.AddSlices(x.Row(t), x.Row(t), y.Row(t))
	}
}

// addBias adds b to every row of x.
func addBias(x unit03.Mat, b []float32) {
	for t := range x.Rows {
		unit02.AddSlices(x.Row(t), x.Row(t), b)
	}
}
