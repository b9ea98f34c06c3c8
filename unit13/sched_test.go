package unit13

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/testkit/testmat"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit11"
)

// greedyTol is how far below the best logit a greedy token's logit may
// be, by unit05's Forward over the same tokens: a batched step computes
// the same function with its products cut differently, so a near tie may
// go either way, and nothing else may.
const greedyTol = 1e-4

// harness is a scheduler over one of stepConfigs' models with a pool of
// the given blocks, and a record of every event per request.
type harness struct {
	t      *testing.T
	st     *stepper
	s      *Scheduler
	tokens map[int][]int // the tokens each request generated
	ends   map[int]Event // the event that ended each request
	prompt map[int][]int32
	steps  int
}

func newHarness(t *testing.T, cfg, blocks int, opt SchedOptions) *harness {
	t.Helper()
	st := newStepper(t, cfg, nil, blocks, 64)
	s, err := NewScheduler(st.r, opt)
	require.NoError(t, err, "NewScheduler(%+v)", opt)
	return &harness{t: t, st: st, s: s, tokens: map[int][]int{}, ends: map[int]Event{}, prompt: map[int][]int32{}}
}

// sampler returns a sampler of the model's vocabulary: greedy for
// temperature 0, else llama.cpp's defaults at that temperature and seed.
func (h *harness) sampler(temp float64, seed uint64) *unit11.Sampler {
	p := unit11.DefaultParams()
	p.Temperature, p.Seed = temp, seed
	smp, err := unit11.NewSampler(h.st.m.Config.Vocab, p)
	require.NoError(h.t, err)
	return smp
}

// add queues a greedy request for a prompt of n seeded tokens.
func (h *harness) add(seed uint64, n, maxTokens int) int {
	h.t.Helper()
	prompt := int32s(testmat.Tokens(seed, n, h.st.m.Config.Vocab))
	return h.addPrompt(prompt, maxTokens, h.sampler(0, 0))
}

func (h *harness) addPrompt(prompt []int32, maxTokens int, smp *unit11.Sampler, stops ...int) int {
	h.t.Helper()
	id, err := h.s.Add(Request{Prompt: prompt, Sampler: smp, MaxTokens: maxTokens, StopTokens: stops})
	require.NoError(h.t, err, "Add of a prompt of %d tokens", len(prompt))
	h.prompt[id] = prompt
	return id
}

// step runs one Step, records its events, and checks them: no event for
// a request that has ended, at most one per request, a token or an end.
func (h *harness) step() []Event {
	h.t.Helper()
	evs, err := h.s.Step()
	require.NoError(h.t, err, "Step %d", h.steps)
	h.steps++
	seen := map[int]bool{}
	for _, ev := range evs {
		if _, over := h.ends[ev.ID]; over {
			h.t.Fatalf("step %d: an event %+v for request %d, which had already ended", h.steps, ev, ev.ID)
		}
		if seen[ev.ID] {
			h.t.Fatalf("step %d: two events for request %d in one step", h.steps, ev.ID)
		}
		seen[ev.ID] = true
		if ev.Token >= 0 {
			h.tokens[ev.ID] = append(h.tokens[ev.ID], ev.Token)
		} else if !ev.Done {
			h.t.Fatalf("step %d: an event %+v with neither a token nor an end", h.steps, ev)
		}
		if ev.Done {
			h.ends[ev.ID] = ev
		}
	}
	return slices.Clone(evs)
}

// run steps until a step finds nothing to do (at most limit steps).
func (h *harness) run(limit int) {
	h.t.Helper()
	for range limit {
		if evs := h.step(); len(evs) == 0 && h.s.Running() == 0 && h.s.Waiting() == 0 {
			return
		}
	}
	h.t.Fatalf("%d steps and the requests have not all ended: %d running, %d waiting", limit, h.s.Running(), h.s.Waiting())
}

// checkGreedy checks that every token request id generated is the best
// by unit05's Forward over its prompt and the tokens before it.
func (h *harness) checkGreedy(id int) {
	h.t.Helper()
	all := ints(h.prompt[id])
	all = append(all, h.tokens[id]...)
	c := h.st.m.Config
	n := min(len(all), c.MaxSeq)
	logits := unit03.NewMat(n, c.Vocab)
	require.NoError(h.t, h.st.m.Forward(logits, all[:n]))
	for k, tok := range h.tokens[id] {
		row := logits.Row(len(h.prompt[id]) - 1 + k)
		best := slices.Max(row)
		if row[tok] < best-greedyTol {
			h.t.Fatalf("request %d, generated token %d: %d with logit %v, but the best logit is %v (token %d): a greedy request must get the argmax of its own sequence's logits, whatever runs beside it",
				id, k, tok, row[tok], best, slices.Index(row, best))
		}
	}
}

// checkFreed checks that every block is free again.
func (h *harness) checkFreed(what string) {
	h.t.Helper()
	kv := h.st.r.KV
	require.Equal(h.t, kv.Blocks(), kv.Free(), "%s: free blocks once every request has ended (a request's blocks must be released when it ends, whatever ends it)", what)
	require.Zero(h.t, h.s.Running(), "%s: Running", what)
	require.Zero(h.t, h.s.Waiting(), "%s: Waiting", what)
}

// TestC13_3_NewScheduler: options in range make a scheduler whose
// Capacity is the smaller of MaxSeq and the pool's positions; others are
// errors wrapping unit00.ErrInvalid.
func TestC13_3_NewScheduler(t *testing.T) {
	st := newStepper(t, 0, nil, 6, 32)
	for _, opt := range []SchedOptions{{1, 1}, {4, 32}, {3, 3}} {
		s, err := NewScheduler(st.r, opt)
		require.NoError(t, err, "NewScheduler(%+v)", opt)
		require.Equal(t, 6*BlockSize, s.Capacity(), "Capacity with a pool of 6 blocks and MaxSeq 160")
		require.Zero(t, s.Running())
		require.Zero(t, s.Waiting())
	}
	for _, opt := range []SchedOptions{{0, 8}, {-1, 8}, {2, 0}, {2, -1}, {2, 33}, {3, 2}} {
		s, err := NewScheduler(st.r, opt)
		require.ErrorIs(t, err, unit00.ErrInvalid, "NewScheduler(%+v) with a runner of 32 tokens", opt)
		require.Nil(t, s)
	}
	big := newStepper(t, 0, nil, 20, 32)
	s, err := NewScheduler(big.r, SchedOptions{2, 8})
	require.NoError(t, err)
	require.Equal(t, 160, s.Capacity(), "Capacity with a pool of 20 blocks (320 positions) and MaxSeq 160")
}

// TestC13_3_Add: bad requests are errors wrapping unit00.ErrInvalid and
// queue nothing; ids count up from 0.
func TestC13_3_Add(t *testing.T) {
	h := newHarness(t, 0, 6, SchedOptions{2, 16})
	vocab := h.st.m.Config.Vocab
	good := h.sampler(0, 0)
	for _, b := range []struct {
		what string
		req  Request
	}{
		{"an empty prompt", Request{Prompt: nil, Sampler: good}},
		{"a token equal to the vocabulary's size", Request{Prompt: []int32{1, int32(vocab)}, Sampler: good}},
		{"a negative token", Request{Prompt: []int32{-1}, Sampler: good}},
		{"a prompt of Capacity+1 tokens", Request{Prompt: make([]int32, h.s.Capacity()+1), Sampler: good}},
		{"no sampler", Request{Prompt: []int32{1}}},
	} {
		id, err := h.s.Add(b.req)
		require.ErrorIs(t, err, unit00.ErrInvalid, "Add with %s", b.what)
		require.Equal(t, -1, id, "Add with %s: the id beside the error", b.what)
	}
	require.Empty(t, h.step(), "a Step after only bad requests")
	require.Zero(t, h.s.Waiting()+h.s.Running(), "requests queued by failed Adds")
	for want := range 3 {
		id, err := h.s.Add(Request{Prompt: []int32{1, 2}, Sampler: h.sampler(0, 0), MaxTokens: 1})
		require.NoError(t, err)
		require.Equal(t, want, id, "the id of the request added %d-th", want)
	}
	id, err := h.s.Add(Request{Prompt: make([]int32, h.s.Capacity()), Sampler: good})
	require.NoError(t, err, "Add of a prompt of exactly Capacity tokens")
	h.prompt[id] = make([]int32, h.s.Capacity())
	h.run(40)
	require.Len(t, h.ends, 4)
	require.Equal(t, unit11.StopContext, h.ends[id].Stop, "a prompt of Capacity tokens: one token, then the context is full")
	require.Len(t, h.tokens[id], 1)
	h.checkFreed("after four requests")
}

// TestC13_3_Greedy: requests of every length (shorter than a block,
// longer than a step's budget, longer than two), added at different
// steps, beside each other, generate the argmax of their own logits and
// end as asked.
func TestC13_3_Greedy(t *testing.T) {
	for cfg := range stepConfigs {
		h := newHarness(t, cfg, 60, SchedOptions{4, 24})
		ids := []int{h.add(1, 5, 12), h.add(2, 40, 8), h.add(3, 17, 20)}
		h.step()
		h.step()
		ids = append(ids, h.add(4, 70, 6), h.add(5, 1, 9))
		h.run(200)
		for i, id := range ids {
			h.checkGreedy(id)
			want := []int{12, 8, 20, 6, 9}[i]
			require.Len(t, h.tokens[id], want, "%s: request %d's tokens (MaxTokens %d)", stepConfigs[cfg].name, id, want)
			require.Equal(t, unit11.StopLength, h.ends[id].Stop, "request %d's end", id)
			require.Equal(t, h.tokens[id][want-1], h.ends[id].Token, "request %d: the last token comes with the end", id)
		}
		h.checkFreed(stepConfigs[cfg].name)
	}
}

// TestC13_3_Budget: a step runs at most StepTokens tokens: a prompt of
// 20 with a budget of 8 gets its first token in the third step, and a
// running request's decode token comes before a new prompt's chunk, so
// it gets a token every step while a long prompt goes in.
func TestC13_3_Budget(t *testing.T) {
	h := newHarness(t, 1, 40, SchedOptions{4, 8})
	a := h.add(10, 20, 0)
	for k := range 2 {
		require.Empty(t, h.step(), "step %d of a prompt of 20 with a budget of 8: no token yet", k)
	}
	require.Len(t, h.step(), 1, "step 3: the prompt's last 4 tokens and its first token")
	b := h.add(11, 100, 3)
	for k := range 14 { // b's 100 tokens take 100/7 steps of 7 beside a's decode
		evs := h.step()
		require.Equal(t, a, evs[0].ID, "step %d of b's prompt: a's decode token", k)
		require.Len(t, evs, 1, "step %d of b's prompt: only a has a token (7 of b's 100 prompt tokens a step)", k)
	}
	evs := h.step()
	require.Len(t, evs, 2, "step 15: b's last 2 prompt tokens beside a's decode, and b's first token")
	h.s.Cancel(a)
	h.run(20)
	h.checkGreedy(a)
	h.checkGreedy(b)
	require.Equal(t, unit11.StopCanceled, h.ends[a].Stop)
	h.checkFreed("after the budget test")

	// The last token of a budget admits a waiting request: budget 2, one
	// decode running, a prompt of one token.
	h = newHarness(t, 1, 10, SchedOptions{2, 2})
	c := h.add(12, 1, 5)
	h.step()
	d := h.add(13, 1, 2)
	evs = h.step()
	require.Len(t, evs, 2, "a decode token and a one-token prompt in a budget of 2: both get a token")
	require.Equal(t, []int{c, d}, []int{evs[0].ID, evs[1].ID}, "the running request first, then the one admitted")
	h.run(10)
	h.checkGreedy(d)
	h.checkFreed("after a budget of 2")
}

// TestC13_3_Slots: no more than MaxRunning requests hold blocks; the
// others wait, first come first served, and join when one ends.
func TestC13_3_Slots(t *testing.T) {
	h := newHarness(t, 0, 40, SchedOptions{2, 32})
	a, b, c := h.add(20, 6, 2), h.add(21, 6, 5), h.add(22, 6, 3)
	h.step()
	require.Equal(t, 2, h.s.Running(), "two slots")
	require.Equal(t, 1, h.s.Waiting(), "the third request waits")
	h.step() // a's second token: a ends
	require.Equal(t, unit11.StopLength, h.ends[a].Stop)
	require.NotContains(t, h.tokens, c, "c has no slot while a and b run")
	h.step() // c is admitted in the step after a ends
	require.Len(t, h.tokens[c], 1, "c's first token, in the step after a ended")
	h.run(20)
	for _, id := range []int{a, b, c} {
		h.checkGreedy(id)
	}
	h.checkFreed("after the slots test")
}

// TestC13_3_Preemption: when the pool runs out, the request admitted last
// gives its blocks back and is recomputed later; every request still
// generates its own greedy tokens, and a sampled one the same tokens it
// generates alone, and no block is lost.
func TestC13_3_Preemption(t *testing.T) {
	alone := newHarness(t, 1, 20, SchedOptions{1, 32})
	solo := alone.addPrompt(int32s(testmat.Tokens(33, 20, alone.st.m.Config.Vocab)), 30, alone.sampler(0.9, 77))
	alone.run(100)

	// 8 blocks, 128 positions: four requests that grow to 50 positions
	// each cannot all stay.
	h := newHarness(t, 1, 8, SchedOptions{4, 32})
	ids := []int{h.add(30, 20, 30), h.add(31, 20, 30), h.add(32, 20, 30)}
	sampled := h.addPrompt(alone.prompt[solo], 30, h.sampler(0.9, 77))
	preempted := false
	for range 300 {
		before := h.s.Running()
		h.step()
		if h.s.Running() < before && len(h.ends) == 0 {
			preempted = true
		}
		if len(h.ends) == 4 {
			break
		}
	}
	require.True(t, preempted, "four requests of 50 positions on a pool of 128: one must have been preempted")
	require.Len(t, h.ends, 4, "every request ends")
	for _, id := range ids {
		require.Len(t, h.tokens[id], 30, "request %d", id)
		h.checkGreedy(id)
	}
	require.Equal(t, alone.tokens[solo], h.tokens[sampled], "a sampled request (temperature 0.9, seed 77) beside others and through preemption, against the same request alone")
	h.checkFreed("after preemption")
}

// TestC13_3_PreemptsLast: the request preempted is the one admitted
// last: on a pool of 8 blocks, three prompts of 20 (2 blocks each) are
// admitted in one step; at position 32 each needs a third block, and only
// two are free, so the third request waits while the first two go on.
// The first request, admitted first, is never preempted: it gets a token
// in every step until it ends.
func TestC13_3_PreemptsLast(t *testing.T) {
	h := newHarness(t, 1, 8, SchedOptions{3, 64})
	a, b, c := h.add(90, 20, 50), h.add(91, 20, 50), h.add(92, 20, 50)
	firstMiss := -1
	for step := 0; len(h.ends) < 3 && step < 300; step++ {
		got := map[int]bool{}
		for _, ev := range h.step() {
			got[ev.ID] = true
		}
		if _, over := h.ends[a]; !over && !got[a] && step > 0 {
			t.Fatalf("step %d: the request admitted first got no token: it must never be preempted", step)
		}
		if firstMiss < 0 && step > 0 {
			for _, id := range []int{a, b, c} {
				if _, over := h.ends[id]; !over && !got[id] {
					firstMiss = id
				}
			}
		}
	}
	require.Equal(t, c, firstMiss, "the first request to miss a step when the pool ran out: the one admitted last (%d)", c)
	for _, id := range []int{a, b, c} {
		require.Len(t, h.tokens[id], 50)
		h.checkGreedy(id)
	}
	h.checkFreed("after preempting the last")
}

// TestC13_3_PrefixCache: a second request with the same prompt finds the
// first one's blocks: with a budget of 8, its 40 tokens need 5 steps, but
// 32 are cached, so its first token comes in the first step.
func TestC13_3_PrefixCache(t *testing.T) {
	h := newHarness(t, 1, 30, SchedOptions{2, 8})
	prompt := int32s(testmat.Tokens(40, 40, h.st.m.Config.Vocab))
	a := h.addPrompt(prompt, 2, h.sampler(0, 0))
	h.run(20)
	require.Equal(t, 5+1, h.steps-1, "the first request: 5 steps of prompt, then 1 more for its second token") // run's last step finds nothing
	b := h.addPrompt(prompt, 2, h.sampler(0, 0))
	evs := h.step()
	require.Len(t, evs, 1, "the same prompt again: 32 of its 40 tokens are cached, the other 8 fit one step")
	require.Equal(t, b, evs[0].ID)
	h.run(20)
	require.Equal(t, h.tokens[a], h.tokens[b], "the same prompt, greedy: the same tokens")
	h.checkFreed("after the prefix cache test")
}

// TestC13_3_Stops: a stop token ends a request without being reported;
// the end of the context ends it after the token it could not process.
func TestC13_3_Stops(t *testing.T) {
	h := newHarness(t, 0, 20, SchedOptions{2, 32})
	prompt := int32s(testmat.Tokens(50, 12, h.st.m.Config.Vocab))
	first := h.addPrompt(prompt, 6, h.sampler(0, 0))
	h.run(20)
	want := h.tokens[first]
	stop := h.addPrompt(prompt, 0, h.sampler(0, 0), 999, want[3])
	h.run(20)
	require.Equal(t, want[:3], h.tokens[stop], "tokens before the stop token (the 4th): %v", want)
	require.Equal(t, Event{ID: stop, Token: -1, Done: true, Stop: unit11.StopEOS}, h.ends[stop], "the end at a stop token")

	// MaxSeq 160: a prompt of 155 and no MaxTokens processes 155 … 159,
	// then samples one more token that no position is left for.
	long := h.add(51, 155, 0)
	h.run(40)
	require.Len(t, h.tokens[long], 6, "tokens of a prompt of 155 with 160 positions")
	require.Equal(t, unit11.StopContext, h.ends[long].Stop)
	h.checkGreedy(long)
	h.checkFreed("after the stops test")
}

// TestC13_3_Cancel: a canceled request, waiting or running, ends at the
// next step with StopCanceled and no token, and its blocks come back;
// canceling an unknown or finished id, or twice, changes nothing.
func TestC13_3_Cancel(t *testing.T) {
	h := newHarness(t, 0, 20, SchedOptions{1, 32})
	a, b := h.add(60, 30, 0), h.add(61, 5, 0)
	h.step()
	require.Equal(t, 1, h.s.Running())
	require.Equal(t, 1, h.s.Waiting())
	h.s.Cancel(b) // waiting
	h.s.Cancel(b)
	h.s.Cancel(12345)
	evs := h.step()
	require.Contains(t, evs, Event{ID: b, Token: -1, Done: true, Stop: unit11.StopCanceled}, "the waiting request, canceled")
	require.Zero(t, h.s.Waiting())
	h.s.Cancel(a) // running
	evs = h.step()
	require.Equal(t, []Event{{ID: a, Token: -1, Done: true, Stop: unit11.StopCanceled}}, evs, "the running request, canceled")
	h.s.Cancel(a)
	require.Empty(t, h.step(), "a step after canceling a finished request")
	h.checkFreed("after cancellation")
	c := h.add(62, 5, 2) // the scheduler serves on
	h.run(10)
	require.Len(t, h.tokens[c], 2)
}

// TestC13_3_NaNLogit: a sampler's error (here, NaN logits from a model
// whose output norm is NaN) ends its request with the error and
// StopCanceled, its blocks released; the scheduler serves on.
func TestC13_3_NaNLogit(t *testing.T) {
	h := newHarness(t, 0, 20, SchedOptions{2, 32})
	a := h.add(80, 10, 0)
	h.step()
	norm := h.st.m.Weights.OutNorm
	saved := norm[0]
	norm[0] = float32(math.NaN())
	evs := h.step()
	norm[0] = saved
	require.Len(t, evs, 1)
	require.Equal(t, a, evs[0].ID)
	require.True(t, evs[0].Done, "a NaN logit ends the request")
	require.Equal(t, unit11.StopCanceled, evs[0].Stop)
	require.Equal(t, -1, evs[0].Token)
	require.ErrorIs(t, evs[0].Err, unit00.ErrInvalid, "the sampler's error, wrapped")
	h.checkFreed("after a NaN logit")
	b := h.add(81, 10, 2)
	h.run(10)
	require.Len(t, h.tokens[b], 2, "a request after the NaN")
}

// TestC13_3_Concurrent: Add and Cancel from three goroutines while the
// scheduler steps: every request ends, and every block comes back.
func TestC13_3_Concurrent(t *testing.T) {
	h := newHarness(t, 0, 40, SchedOptions{3, 32})
	var wg sync.WaitGroup
	ids := make(chan int, 12)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 4 {
				id, err := h.s.Add(Request{Prompt: int32s(testmat.Tokens(uint64(70+4*g+k), 8, h.st.m.Config.Vocab)), Sampler: h.sampler(0, 0), MaxTokens: 3})
				if err != nil {
					t.Error(err)
					return
				}
				if k == 3 {
					h.s.Cancel(id)
				}
				ids <- id
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		h.step()
	}
	h.run(100)
	close(ids)
	n := 0
	for id := range ids {
		n++
		require.Contains(t, h.ends, id, "request %d never ended", id)
	}
	require.Equal(t, 12, n)
	h.checkFreed(fmt.Sprintf("after %d requests from three goroutines", n))
}
