package unit05

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// Model runs a Llama-family transformer. Its scratch memory is one arena,
// sized when the model is made, so after a first pass a forward pass
// allocates nothing. A Model is not safe for concurrent use.
type Model struct {
	Config  Config
	Weights *Weights
	Pool    *unit03.Pool // the threads of the matrix products; nil: one
	// Attention, when set, computes every block's attention in place of
	// the model's own roads (Attention for a row, products for a band of
	// rows): unit08's flash attention plugs in here.
	Attention Attender
	// Store, when set, keeps every block's keys and values and attends
	// over them in place of the cache Block is given and of Attention:
	// unit08's F16 and Q8_0 caches plug in here.
	Store KVStore
	rope  *Rope
	arena *unit01.Arena
	// attend shares a block's attention out over Pool by rows; kept in
	// the Model, it costs no allocation per call (a closure handed to the
	// pool would escape to the heap).
	attend *attentionTask
}

// NewModel checks c and w and prepares a model: the RoPE tables for
// c.MaxSeq positions and an arena large enough for a forward pass over
// c.MaxSeq tokens. An invalid config, weights that do not fit it, or a
// MaxSeq whose tables and scratch no process could address are an error.
// p may be nil.
func NewModel(c Config, w *Weights, p *unit03.Pool) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(c); err != nil {
		return nil, err
	}
	arena := arenaBytes(c, p.Threads())
	if need := 4*float64(c.MaxSeq)*float64(c.HeadDim) + arena; need > addressable {
		return nil, fmt.Errorf("config: MaxSeq %d needs %.3g bytes of RoPE tables and scratch, more than a process can address: %w", c.MaxSeq, need, unit00.ErrInvalid)
	}
	return &Model{
		Config:  c,
		Weights: w,
		Pool:    p,
		rope:    NewRopeYarn(c.HeadDim, c.MaxSeq, c.RopeBase, c.Rope, c.RopeFactors, c.Yarn),
		arena:   unit01.NewArena(int(arena)),
		attend:  new(attentionTask),
	}, nil
}

// addressable bounds what NewModel tries to allocate: 2⁴⁷ bytes (128 TiB),
// the user address space of amd64 and arm64, which no MaxSeq may exceed,
// less on a 32-bit platform. Below it, whether the memory is there is the
// caller's question (llm compares with the memory available): an
// allocation the system refuses kills the process, it is not an error.
var addressable = min(1<<47, float64(math.MaxInt))

// blockRows is the most rows a block computes at once: Block cuts longer
// prompts into pieces of this many. It bounds the block's scratch, ten
// times the model's width per row, which for MaxSeq rows would dwarf
// everything else (TinyLlama: 180 MB at 2,048 positions; 5 MB like this).
const blockRows = 64

// arenaBytes is the scratch of the largest pass, MaxSeq tokens: the hidden
// states and the batch's keys and values (Forward), plus the larger of
// Logits' normalised rows and what one Block needs at its peak for
// blockRows rows: its buffers, and either each thread's scores of its rows
// for all MaxSeq positions (at most blockRows threads get rows) or, with
// a Store, the rows' keys and values (never both), with room for each
// allocation's alignment. It is a float64 so that an absurd MaxSeq cannot
// overflow it.
func arenaBytes(c Config, threads int) float64 {
	n, b := float64(c.MaxSeq), float64(min(blockRows, c.MaxSeq))
	parts := float64(min(threads, blockRows))
	forward := n * float64(c.Dim+2*c.KVDim())
	block := b*float64(2*c.Dim+2*c.QDim()+2*c.FFN) + max(parts*b*n, 2*b*float64(c.KVDim())) // xn, ffn out, q, att, gate, up; scores or a Store's k and v
	logits := n * float64(c.Dim)                                                            // Logits' normalised rows, after the blocks
	const allocations = 16
	return 4*(forward+max(block, logits)) + allocations*unit01.Alignment
}

// scratch carves a rows×cols matrix from the arena.
func (m *Model) scratch(rows, cols int) unit03.Mat {
	data, err := m.arena.Float32s(rows * cols)
	unit00.Check(err == nil, "Model: scratch arena too small (arenaBytes is wrong)")
	return unit03.MatOf(rows, cols, data)
}

// Forward computes the logits of every position of a prompt: row t of
// logits (len(tokens) × Vocab) scores the token that follows tokens[0 … t].
// The tokens sit at positions 0 … len(tokens)−1; there is no cache, so
// every call starts from nothing. No tokens, more than MaxSeq, or one
// outside the vocabulary is an error wrapping unit00.ErrInvalid. It panics
// (unit00.Check) if logits has the wrong shape.
func (m *Model) Forward(logits unit03.Mat, tokens []int) error {
	c := m.Config
	T := len(tokens)
	if T == 0 || T > c.MaxSeq {
		return fmt.Errorf("forward: %d tokens, want 1 to MaxSeq = %d: %w", T, c.MaxSeq, unit00.ErrInvalid)
	}
	unit00.Check(logits.Rows == T && logits.Cols == c.Vocab, "Forward: logits must be len(tokens) × Vocab")
	m.arena.Reset()
	x := m.scratch(T, c.Dim)
	if err := Embed(x, m.Weights.Embed, tokens); err != nil {
		return fmt.Errorf("forward: %w", err)
	}
	keys, values := m.scratch(T, c.KVDim()), m.scratch(T, c.KVDim())
	for l := range c.Layers {
		m.Block(l, x, 0, keys, values)
	}
	m.Logits(logits, x)
	return nil
}

// Block runs transformer block l on the hidden states x in place: the T
// rows of x are the tokens at positions pos0 … pos0+T−1. It writes their
// keys and values into rows pos0 … pos0+T−1 of keys and values, whose rows
// 0 … pos0−1 must already hold the earlier positions' (a KV cache, unit07),
// and attends over all pos0+T of them. The pre-norm residual structure:
//
//	x += Wo · Attention(RoPE(Wq·n), RoPE(Wk·n), Wv·n),  n = RMSNorm(x)·AttnNorm
//	x += FeedForward(RMSNorm(x)·FFNNorm)
//
// where a layer with an MoE block runs it in place of FeedForward. With
// m.Store set, the keys and values go to the store and attention comes
// from it: keys and values are then not used (they may be empty).
// It panics (unit00.Check) on shapes that do not fit.
func (m *Model) Block(l int, x unit03.Mat, pos0 int, keys, values unit03.Mat) {
	c := m.Config
	T := x.Rows
	unit00.Check(x.Cols == c.Dim && pos0 >= 0 && pos0+T <= c.MaxSeq, "Block: x must be T × Dim, with pos0+T ≤ MaxSeq")
	unit00.Check(m.Store != nil || keys.Rows >= pos0+T && values.Rows >= pos0+T && keys.Cols == c.KVDim() && values.Cols == c.KVDim(), "Block: keys and values must be KVDim wide and hold pos0+T rows")
	// Pieces of at most blockRows rows, in order: each piece's keys and
	// values are written before the next piece attends to them.
	for r := 0; r < T; r += blockRows {
		end := min(r+blockRows, T)
		m.block(l, x.Block(r, end, 0, c.Dim), pos0+r, keys, values)
	}
}

// block is Block for at most blockRows rows.
func (m *Model) block(l int, x unit03.Mat, pos0 int, keys, values unit03.Mat) {
	c, w := m.Config, &m.Weights.Layers[l]
	T := x.Rows
	mark := m.arena.Mark()
	defer m.arena.Rewind(mark)

	// Attention: project, rotate, attend, project back, add.
	n := m.scratch(T, c.Dim)
	normRows(n, x, w.AttnNorm, c.RMSEps)
	q := m.scratch(T, c.QDim())
	var k, v unit03.Mat
	if m.Store != nil { // the store keeps its own copy: compute them here
		k, v = m.scratch(T, c.KVDim()), m.scratch(T, c.KVDim())
	} else {
		k = keys.Block(pos0, pos0+T, 0, c.KVDim())
		v = values.Block(pos0, pos0+T, 0, c.KVDim())
	}
	w.Wq.MulT(m.Pool, q, n)
	w.Wk.MulT(m.Pool, k, n)
	w.Wv.MulT(m.Pool, v, n)
	if c.QKVBias {
		addBias(q, w.Bq)
		addBias(k, w.Bk)
		addBias(v, w.Bv)
	}
	m.rope.RotateHeads(q, pos0)
	m.rope.RotateHeads(k, pos0)
	att := m.scratch(T, c.QDim())
	switch {
	case m.Store != nil:
		m.Store.Put(l, pos0, k, v)
		m.Store.Attend(m.Pool, att, q, l, c.Heads, c.KVHeads, pos0)
	case m.Attention != nil:
		m.Attention.Attend(m.Pool, att, q, keys.Block(0, pos0+T, 0, c.KVDim()), values.Block(0, pos0+T, 0, c.KVDim()), c.Heads, c.KVHeads, pos0)
	default:
		past, pastV := keys.Block(0, pos0+T, 0, c.KVDim()), values.Block(0, pos0+T, 0, c.KVDim())
		parts := min(m.Pool.Threads(), T)
		task := m.attend
		*task = attentionTask{out: att, q: q, k: past, v: pastV,
			heads: c.Heads, kvHeads: c.KVHeads, pos0: pos0, parts: parts, scores: m.scratch(parts, T*(pos0+T))}
		m.Pool.RunTask(parts, task)
		*task = attentionTask{} // drop the views of the arena
	}
	w.Wo.MulT(m.Pool, n, att) // n is free again: reuse it for the projection
	addRows(x, n)

	// Feed-forward: normalise, SwiGLU, add.
	normRows(n, x, w.FFNNorm, c.RMSEps)
	out := m.scratch(T, c.Dim)
	if w.MoE != nil {
		w.MoE.FeedForward(m.Pool, out, n)
	} else {
		FeedForward(m.Pool, out, n, w, m.scratch(T, c.FFN), m.scratch(T, c.FFN))
	}
	addRows(x, out)
}

// Logits sets logits (T × Vocab) to the output layer applied to the hidden
// states x (T × Dim): Output · (RMSNorm(x)·OutNorm), row by row. x is left
// unchanged.
func (m *Model) Logits(logits, x unit03.Mat) {
	c := m.Config
	unit00.Check(x.Cols == c.Dim && logits.Rows == x.Rows && logits.Cols == c.Vocab, "Logits: x must be T × Dim and logits T × Vocab")
	mark := m.arena.Mark()
	defer m.arena.Rewind(mark)
	n := m.scratch(x.Rows, c.Dim)
	normRows(n, x, m.Weights.OutNorm, c.RMSEps)
	m.Weights.Output.MulT(m.Pool, logits, n)
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
