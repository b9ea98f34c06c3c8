package unit05

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
)

// TestC5_5_Threads shares a block's attention out over pools of 1, 2, 3, 7
// and 16 threads on prompts of 1 to 13 rows. The rows are cut into bands by
// their cost, one band per thread: with few rows, or a long context before
// a few new ones, bands are one row (the row road, at the row's own
// position pos0+r) or empty, and with 16 threads there are more threads
// than rows. Every row must be computed exactly once, at its own position:
// the logits against the oracle's, from Forward (positions from 0) and
// from Block on the last T rows at pos0 = split after the first split rows
// at 0.
func TestC5_5_Threads(t *testing.T) {
	pools := []*unit03.Pool{nil}
	for _, n := range []int{2, 3, 7, 16} {
		p := unit03.NewPool(n)
		defer p.Close()
		pools = append(pools, p)
	}
	for i, n := range []named{configs[1], configs[3]} {
		c := n.c
		w, o := testWeights(c, uint64(80+i))
		tokens := testTokens(uint64(82+i), 40, c.Vocab)
		all := oracle.LlamaForward(oracleConfig(c), o, tokens)
		for _, pool := range pools {
			m := newModel(t, c, w, pool)
			for _, T := range []int{1, 2, 3, 5, 7, 13} {
				what := fmt.Sprintf("%s, %d threads: Forward of %d tokens", n.name, pool.Threads(), T)
				logits := randMat(oracle.NewRand(3), T, c.Vocab)
				var err error
				if v, panicked := oracle.Panics(func() { err = m.Forward(logits, tokens[:T]) }); panicked {
					t.Fatalf("%s panicked: %v\n(with more threads than rows, some threads get one row or none)", what, v)
				}
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				oracle.AssertCloseShape(t, what+": logits [position, token] (a row skipped, computed twice or at the wrong position?)", dense(logits), flat(all[:T]), []int{T, c.Vocab}, logitsTol)
			}
			for _, tc := range []struct{ split, T int }{{1, 1}, {1, 2}, {20, 1}, {20, 2}, {20, 3}, {33, 7}} {
				what := fmt.Sprintf("%s, %d threads: Block on positions 0–%d, then on %d rows at pos0 = %d", n.name, pool.Threads(), tc.split-1, tc.T, tc.split)
				S := tc.split + tc.T
				x := unit03.NewMat(S, c.Dim)
				if err := Embed(x, w.Embed, tokens[:S]); err != nil {
					t.Fatal(err)
				}
				keys, values := unit03.NewMat(c.MaxSeq, c.KVDim()), unit03.NewMat(c.MaxSeq, c.KVDim())
				if v, panicked := oracle.Panics(func() {
					for l := range c.Layers {
						m.Block(l, x.Block(0, tc.split, 0, c.Dim), 0, keys, values)
						m.Block(l, x.Block(tc.split, S, 0, c.Dim), tc.split, keys, values)
					}
				}); panicked {
					t.Fatalf("%s panicked: %v", what, v)
				}
				logits := unit03.NewMat(S, c.Vocab)
				m.Logits(logits, x)
				oracle.AssertCloseShape(t, what+": logits [position, token] (a row skipped, computed twice or at the wrong position?)", dense(logits), flat(all[:S]), []int{S, c.Vocab}, logitsTol)
			}
		}
	}
}

// TestC5_5_OddShapes runs Forward over exactly MaxSeq tokens (fewer than a
// block's 64 rows, so the whole prompt is one piece) on configs whose
// buffers are not whole cache lines: Dim, HeadDim, FFN and MaxSeq such that
// no T × width buffer is a multiple of 16 floats. The arena hands out
// every allocation at the next 64-byte boundary, so NewModel must size it
// with room for each allocation's padding, on top of the floats; one sized
// for the floats alone runs out ("scratch arena too small") here.
func TestC5_5_OddShapes(t *testing.T) {
	p2, p3 := unit03.NewPool(2), unit03.NewPool(3)
	defer p2.Close()
	defer p3.Close()
	for i, n := range []named{
		{"odd-gqa-norm", Config{Dim: 36, Layers: 1, Heads: 3, KVHeads: 1, HeadDim: 10, FFN: 70, Vocab: 50, MaxSeq: 37, RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}},
		{"odd-gqa-neox-bias", Config{Dim: 30, Layers: 2, Heads: 6, KVHeads: 2, HeadDim: 6, FFN: 54, Vocab: 61, MaxSeq: 45, RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNeox, QKVBias: true}},
	} {
		c := n.c
		w, o := testWeights(c, uint64(84+i))
		tokens := testTokens(uint64(86+i), c.MaxSeq, c.Vocab)
		want := flat(oracle.LlamaForward(oracleConfig(c), o, tokens))
		for _, pool := range []*unit03.Pool{nil, p2, p3} {
			m := newModel(t, c, w, pool)
			what := fmt.Sprintf("%s, %d threads: Forward of MaxSeq = %d tokens", n.name, pool.Threads(), c.MaxSeq)
			logits := randMat(oracle.NewRand(4), c.MaxSeq, c.Vocab)
			var err error
			if v, panicked := oracle.Panics(func() { err = m.Forward(logits, tokens) }); panicked {
				t.Fatalf("%s panicked: %v\n(NewModel sizes the scratch for a pass over MaxSeq tokens, with room for every allocation's alignment)", what, v)
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			oracle.AssertCloseShape(t, what+": logits [position, token]", dense(logits), want, []int{c.MaxSeq, c.Vocab}, logitsTol)
		}
	}
}

// TestC5_5_AddressableEdge asks for the smallest MaxSeq whose memory no
// implementation can do without is over 2⁴⁷ bytes: for a pass over MaxSeq
// tokens, the RoPE tables (a cosine and a sine per position and pair,
// HeadDim floats a position), the hidden states (Dim) and the keys and
// values (2·KVDim), 4·MaxSeq·(HeadDim + Dim + 2·KVDim) bytes. NewModel must
// refuse it with an error before it allocates anything; one that counts
// the tables or the bound short accepts it and goes on to allocate
// terabytes. So the check runs in a child process whose address space is
// capped at 64 GiB (Linux only): such an allocation fails there at once
// ("fatal error: out of memory" in the child, a failure here) instead of
// filling the machine's memory.
func TestC5_5_AddressableEdge(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("MaxSeq past 2⁴⁷ bytes does not fit a 32-bit int")
	}
	if os.Getenv(addressableEnv) == "" {
		if runtime.GOOS != "linux" {
			t.Skip("the child's address space can be capped on Linux only: skipped rather than risk allocating terabytes")
		}
		if out, ok := oracle.RunChild(t, "TestC5_5_AddressableEdge", addressableEnv+"=1"); !ok {
			t.Errorf("NewModel with a MaxSeq past 2⁴⁷ bytes, in a child process capped at 64 GiB, failed; the child's output:\n%s", out)
		}
		return
	}
	limitAddressSpace(t, 64<<30)
	c := Config{Dim: 8, Layers: 1, Heads: 1, KVHeads: 1, HeadDim: 512, FFN: 8, Vocab: 4, MaxSeq: 16,
		RopeBase: 10000, RMSEps: 1e-5, Rope: RopeNorm}
	w, _ := testWeights(c, 88)
	perPosition := 4 * (c.HeadDim + c.Dim + 2*c.KVDim()) // 6,176 bytes
	c.MaxSeq = 1<<47/perPosition + 1                     // 22,787,805,758: 2⁴⁷ + 6,080 bytes
	m, err := NewModel(c, w, nil)
	if !errors.Is(err, unit00.ErrInvalid) || m != nil {
		t.Errorf("NewModel with MaxSeq %d, HeadDim %d, Dim %d, KVDim %d: model %v, error %v; want nil and an error wrapping unit00.ErrInvalid: its RoPE tables, hidden states, keys and values alone are %d bytes, over 2⁴⁷", c.MaxSeq, c.HeadDim, c.Dim, c.KVDim(), m != nil, err, c.MaxSeq*perPosition)
	}
}

// addressableEnv marks the child process of TestC5_5_AddressableEdge.
const addressableEnv = "FORGE_UNIT05_ADDRESSABLE_CHILD"
