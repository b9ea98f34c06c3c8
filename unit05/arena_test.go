package unit05

import (
	"testing"

	"github.com/llmforge/forge/unit03"
)

// TestC5_5_LongPromptScratch runs Forward over a whole context of 1,100
// tokens on a model 128 wide: at the end of the pass the hidden states,
// the keys and values and Logits' normalised rows (T × Dim) are all alive
// at once, more than one block's scratch. An arena sized for the blocks
// alone runs out there ("scratch arena too small") on every prompt longer
// than about 1,024 tokens of this width: NewModel must size it for the
// largest pass MaxSeq allows.
func TestC5_5_LongPromptScratch(t *testing.T) {
	c := Config{Dim: 128, Layers: 1, Heads: 4, KVHeads: 2, HeadDim: 32, FFN: 256, Vocab: 50, MaxSeq: 1100,
		RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}
	w, _ := testWeights(c, 55)
	m := newModel(t, c, w, nil)
	tokens := testTokens(56, c.MaxSeq, c.Vocab)
	logits := unit03.NewMat(len(tokens), c.Vocab)
	if err := m.Forward(logits, tokens); err != nil {
		t.Fatalf("Forward of MaxSeq = %d tokens: %v", c.MaxSeq, err)
	}
}
