package unit13

import (
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
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
	// Your fields: the most tokens a step holds, a unit08.Flash, a
	// unit05.Rope, an arena for a step's scratch, and the two RowReaders
	// through which attention reads a sequence's blocks (see
	// docs/unit13.md, 13.2).
}

// NewRunner returns a runner of m over the sequences of kv, for steps of
// at most maxTokens tokens. A pool made for another model (its layers or
// its keys' width), or maxTokens outside 1 … MaxStepTokens, is an error
// wrapping unit00.ErrInvalid. The runner attends with a unit08.Flash of
// its own and keeps the keys and values in kv, whatever m.Attention and
// m.Store say.
func NewRunner(m *unit05.Model, kv *Pool, maxTokens int) (*Runner, error) {
	panic("TODO(13.2): write NewRunner, see docs/unit13.md")
}

// MaxTokens is the most tokens a step may hold.
func (r *Runner) MaxTokens() int {
	panic("TODO(13.2): write Runner.MaxTokens, see docs/unit13.md")
}

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
	panic("TODO(13.2): write Runner.Step, see docs/unit13.md")
}
