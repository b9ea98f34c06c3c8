package unit07

import (
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// TestC7_3_Equivalence is the KV cache's contract: a prompt prefilled,
// then token after token decoded, gives at every step the logits of a full
// forward pass over everything so far, on every config, and the float64
// oracle agrees at the end.
func TestC7_3_Equivalence(t *testing.T) {
	must := mustFor(t)
	for i, n := range configs {
		m := newModel(t, n.c, uint64(50+i), nil)
		s := NewSession(m)
		tokens := testTokens(uint64(60+i), 64, n.c.Vocab)
		got := must(s.Prefill(tokens[:16]))
		for j := 16; ; j++ {
			what := fmt.Sprintf("%s: logits after %d tokens (prefill of 16, then %d decode steps)", describe(n.name, n.c), j, j-16)
			if !oracle.AssertClose(t, what, got, lastLogits(t, m, tokens[:j]), cachedTol) {
				break
			}
			if j == len(tokens) {
				break
			}
			got = must(s.Step(tokens[j]))
		}
		want := oracle.LlamaForward(oracleConfig(n.c), oracleWeights(m.Weights, n.c.TiedEmbeddings), tokens)
		oracle.AssertClose(t, describe(n.name, n.c)+": the last decode step's logits against the float64 oracle", got, want[len(tokens)-1], oracle.Tol{Atol: 1e-4, Rtol: 1e-4})
	}
}

func TestC7_3_PrefillChunked(t *testing.T) {
	must := mustFor(t)
	n := configs[3]
	m := newModel(t, n.c, 70, nil)
	tokens := testTokens(71, 41, n.c.Vocab)
	want := lastLogits(t, m, tokens)
	for _, chunk := range []int{1, 2, 7, 40, 41, 100} {
		s := NewSession(m)
		got := must(s.PrefillChunked(tokens, chunk))
		if s.Len() != len(tokens) {
			t.Errorf("PrefillChunked of %d tokens in chunks of %d: Len() = %d", len(tokens), chunk, s.Len())
		}
		oracle.AssertClose(t, fmt.Sprintf("%s: PrefillChunked of %d tokens in chunks of %d against Model.Forward", n.name, len(tokens), chunk), got, want, cachedTol)
	}
	// After a first chunked prompt, a second one continues the sequence.
	s := NewSession(m)
	must(s.PrefillChunked(tokens[:20], 6))
	got := must(s.PrefillChunked(tokens[20:], 8))
	oracle.AssertClose(t, n.name+": two chunked prefills one after the other against Model.Forward", got, want, cachedTol)

	// Chunks longer than a block's 64 rows, over a prompt holding the
	// smallest and the largest token id, which are valid.
	long := testTokens(72, 90, n.c.Vocab)
	long[0], long[45], long[89] = 0, n.c.Vocab-1, 0
	want = lastLogits(t, m, long)
	for _, chunk := range []int{64, 65, 89, 90} {
		s := NewSession(m)
		got := must(s.PrefillChunked(long, chunk))
		if s.Len() != len(long) {
			t.Errorf("PrefillChunked of %d tokens in chunks of %d: Len() = %d", len(long), chunk, s.Len())
		}
		oracle.AssertClose(t, fmt.Sprintf("%s: PrefillChunked of %d tokens (ids 0 and Vocab−1 among them) in chunks of %d against Model.Forward", n.name, len(long), chunk), got, want, cachedTol)
	}
}
