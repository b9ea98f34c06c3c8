package unit05

import "github.com/llmforge/forge/unit03"

// Matrix is a weight matrix stored [out, in], row-major, the layout of a
// GGUF tensor: row j holds the weights of output j. Unit05 uses Dense
// float32 matrices; unit09 adds quantized ones behind the same interface,
// so the forward pass does not change when the weights do.
// Implementations are pointer types (*Dense): two Matrix values are then
// equal exactly when they are the same matrix, which is how tied embeddings
// (Output == Embed) are recognised.
type Matrix interface {
	// Dims returns the matrix's shape: out rows of in weights.
	Dims() (out, in int)
	// MulT sets y = x·Wᵀ: row t of y (out wide) holds W times row t of x
	// (in wide), for every row of x. It panics if the shapes disagree.
	MulT(p *unit03.Pool, y, x unit03.Mat)
	// Row copies row i of W into dst (len in): an embedding lookup.
	Row(dst []float32, i int)
}

// Dense is a float32 Matrix, multiplied with unit03's kernels.
type Dense struct {
	W      unit03.Mat
	Kernel unit03.Kernel
}

// NewDense wraps a row-major out×in matrix, using the fastest kernel this
// CPU has.
func NewDense(w unit03.Mat) *Dense { return &Dense{W: w, Kernel: unit03.Best()} }

// Dims returns W's shape.
func (d *Dense) Dims() (out, in int) { return d.W.Rows, d.W.Cols }

// MulT sets y = x·Wᵀ: a matrix–vector product for a single row (decoding
// one token), a GEMM for several (a prompt).
func (d *Dense) MulT(p *unit03.Pool, y, x unit03.Mat) {
	if x.Rows == 1 && y.Rows == 1 {
		unit03.MatVec(p, d.Kernel, y.Data[:y.Cols], d.W, x.Data[:x.Cols])
		return
	}
	unit03.MatMulT(p, d.Kernel, y, x, d.W)
}

// Row copies row i of W into dst.
func (d *Dense) Row(dst []float32, i int) { copy(dst, d.W.Row(i)) }

// FFN is a feed-forward block that a layer runs in place of its dense
// Gate, Up and Down: unit06's mixture of experts is one. Like a Model, an
// FFN may keep scratch memory of its own, so it is not safe for concurrent
// use.
type FFN interface {
	// Width is the width of the rows it reads and writes: the model's Dim.
	Width() int
	// FeedForward sets out to the block applied to x, row by row; x and
	// out are T × Width(). p may be nil (one thread).
	FeedForward(p *unit03.Pool, out, x unit03.Mat)
}

// Attender is an attention road that a Model can be given in place of its
// own: unit08's flash attention is one. Attend has the contract of
// Attention, with k and v exactly pos0+T rows (the positions the last query
// row sees), the work shared out over p (nil: one thread). Like a Model, an
// Attender may keep scratch memory of its own, so it is not safe for
// concurrent use.
type Attender interface {
	Attend(p *unit03.Pool, out, q, k, v unit03.Mat, heads, kvHeads, pos0 int)
}

// KVStore is a KV cache that keeps the keys and values in a form of its
// own (unit08's F16 and Q8_0 caches) and attends over them as it stores
// them. A Model whose Store is set puts each piece's new keys and values
// into it and attends through it; the keys and values handed to Block are
// then not used. Like a Model, a KVStore is not safe for concurrent use.
type KVStore interface {
	// Put stores the T rows of k and v (T × KVDim, after RoPE and bias)
	// as positions pos0 … pos0+T−1 of layer l.
	Put(l, pos0 int, k, v unit03.Mat)
	// Attend has the contract of Attention for the T rows of q at
	// positions pos0 … pos0+T−1, over layer l's stored positions
	// 0 … pos0+T−1, the work shared out over p (nil: one thread).
	Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int)
}

// Layer is one transformer block's weights, named after their GGUF
// tensors (blk.N.attn_q.weight, …).
type Layer struct {
	AttnNorm []float32 // Dim: attn_norm
	Wq       Matrix    // QDim × Dim: attn_q
	Wk, Wv   Matrix    // KVDim × Dim: attn_k, attn_v
	Bq       []float32 // QDim, only with Config.QKVBias: attn_q.bias
	Bk, Bv   []float32 // KVDim, only with Config.QKVBias
	Wo       Matrix    // Dim × QDim: attn_output
	FFNNorm  []float32 // Dim: ffn_norm
	Gate, Up Matrix    // FFN × Dim: ffn_gate, ffn_up
	Down     Matrix    // Dim × FFN: ffn_down
	// MoE, when not nil, is the layer's feed-forward block instead of
	// Gate, Up and Down, which are then nil: a mixture of experts
	// (unit06), whose weights are blk.N.ffn_*_exps.
	MoE FFN
}

// Weights are a whole model's parameters.
type Weights struct {
	Embed   Matrix // Vocab × Dim: token_embd
	Layers  []Layer
	OutNorm []float32 // Dim: output_norm
	// Output is Vocab × Dim (output); with Config.TiedEmbeddings it is
	// the same Matrix as Embed.
	Output Matrix
}
