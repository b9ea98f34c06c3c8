package unit13

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit11"
)

// Scheduler runs many requests' generation on one Runner, one step at a
// time: iteration-level scheduling. Each Step picks the work of one
// forward pass (a decode token of every running request, a chunk of a
// prompt), runs it, samples, and reports what each request produced.
// Requests are served first come, first served; a waiting request is
// admitted when a slot and the blocks for its next chunk are free; when
// blocks run out, the request admitted last is preempted (its blocks
// freed, recomputed when it is admitted again).
//
// Add and Cancel may be called from any goroutine; Step, Running and
// Waiting from one goroutine at a time (the server's loop).
type Scheduler struct {
	r        *Runner
	opt      SchedOptions
	capacity int // the most positions a sequence may hold

	mu       sync.Mutex // guards incoming, canceled and nextID
	incoming []*job
	canceled map[int]bool
	nextID   int

	waiting []*job // first come, first served; preempted jobs go back to the front
	running []*job // in the order they were admitted
	batch   []Entry
	jobs    []*job // the job of each entry of batch
	events  []Event
	logits  unit03.Mat
}

// job is one request as the scheduler tracks it.
type job struct {
	id      int
	req     Request
	tokens  []int32 // the prompt, then every token sampled
	history []int   // the same, for the sampler's penalties
	seq     *Seq    // nil while waiting
	out     int     // tokens generated
}

// NewScheduler returns a scheduler over r, which it owns with r's pool
// from then on. Options outside their ranges (SchedOptions) are an error
// wrapping unit00.ErrInvalid.
func NewScheduler(r *Runner, opt SchedOptions) (*Scheduler, error) {
	if opt.MaxRunning < 1 {
		return nil, fmt.Errorf("unit13: NewScheduler: MaxRunning %d, want at least 1: %w", opt.MaxRunning, unit00.ErrInvalid)
	}
	if opt.StepTokens < opt.MaxRunning || opt.StepTokens > r.MaxTokens() {
		return nil, fmt.Errorf("unit13: NewScheduler: StepTokens %d, want MaxRunning = %d (a decode token for each running request) to the runner's %d: %w", opt.StepTokens, opt.MaxRunning, r.MaxTokens(), unit00.ErrInvalid)
	}
	c := r.Model.Config
	return &Scheduler{
		r:        r,
		opt:      opt,
		capacity: min(c.MaxSeq, r.KV.Blocks()*BlockSize),
		canceled: map[int]bool{},
		logits:   unit03.NewMat(opt.StepTokens, c.Vocab),
	}, nil
}

// Capacity is the most positions a request may reach, prompt and
// generated tokens together: the model's MaxSeq, or the pool's whole
// memory if that is less.
func (s *Scheduler) Capacity() int { return s.capacity }

// Add queues a request and returns its id, which every Event about it
// carries: 0 for the first, then counting up. A prompt that is empty, has
// a token outside the vocabulary or is longer than Capacity, or a nil
// sampler, is an error wrapping unit00.ErrInvalid with the id −1, and
// nothing is queued.
func (s *Scheduler) Add(req Request) (int, error) {
	vocab := s.r.Model.Config.Vocab
	switch {
	case len(req.Prompt) == 0:
		return -1, fmt.Errorf("unit13: Add: an empty prompt: %w", unit00.ErrInvalid)
	case len(req.Prompt) > s.capacity:
		return -1, fmt.Errorf("unit13: Add: a prompt of %d tokens, more than the %d positions a request may hold: %w", len(req.Prompt), s.capacity, unit00.ErrInvalid)
	case req.Sampler == nil:
		return -1, fmt.Errorf("unit13: Add: no sampler: %w", unit00.ErrInvalid)
	}
	for i, t := range req.Prompt {
		if t < 0 || int(t) >= vocab {
			return -1, fmt.Errorf("unit13: Add: prompt token %d is %d, outside the vocabulary [0, %d): %w", i, t, vocab, unit00.ErrInvalid)
		}
	}
	j := &job{req: req, tokens: slices.Clone(req.Prompt)}
	for _, t := range req.Prompt {
		j.history = append(j.history, int(t))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j.id = s.nextID
	s.nextID++
	s.incoming = append(s.incoming, j)
	return j.id, nil
}

// Cancel asks for request id to end: at the start of the next Step it
// leaves the scheduler, its blocks are released, and an Event with
// StopCanceled reports it. An id that is unknown or already finished is
// ignored.
func (s *Scheduler) Cancel(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.canceled[id] = true
}

// Running is the number of requests admitted (holding blocks).
func (s *Scheduler) Running() int { return len(s.running) }

// Waiting is the number of requests queued and not admitted, preempted
// ones included (not those Add queued since the last Step).
func (s *Scheduler) Waiting() int { return len(s.waiting) }

// Step runs one iteration: it takes in what Add and Cancel queued, picks
// the step's work, runs it through the Runner, samples a token for every
// request whose positions are all computed, and returns an Event for each
// request that produced a token or finished. The slice is the
// scheduler's own, valid until the next Step. With nothing to do it
// returns no events. An error of the Runner (a bug: the scheduler built a
// batch it should not have) is returned as it is.
func (s *Scheduler) Step() ([]Event, error) {
	s.events = s.events[:0]
	s.intake()
	s.plan()
	if len(s.batch) == 0 {
		return s.events, nil
	}
	logits := s.logits.Block(0, len(s.batch), 0, s.logits.Cols)
	if err := s.r.Step(logits, s.batch); err != nil {
		return s.events, err
	}
	for i, j := range s.jobs {
		j.seq.Commit() // its full blocks are written: later prompts may share them
		if j.seq.Len() == len(j.tokens) {
			s.sample(j, logits.Row(i))
		}
	}
	s.running = slices.DeleteFunc(s.running, func(j *job) bool { return j.seq == nil })
	return s.events, nil
}

// intake moves new requests to the back of the queue and ends canceled
// ones, waiting or running.
func (s *Scheduler) intake() {
	s.mu.Lock()
	s.waiting = append(s.waiting, s.incoming...)
	clear(s.incoming)
	s.incoming = s.incoming[:0]
	canceled := func(j *job) bool {
		if !s.canceled[j.id] {
			return false
		}
		delete(s.canceled, j.id)
		s.finish(j, unit11.StopCanceled, nil)
		return true
	}
	s.waiting = slices.DeleteFunc(s.waiting, canceled)
	s.running = slices.DeleteFunc(s.running, canceled)
	clear(s.canceled) // ids of requests already finished, or never added
	s.mu.Unlock()
}

// plan fills s.batch: first every running request in admission order (a
// decode token, or the next chunk of its prompt), preempting the request
// admitted last when blocks run out; then waiting requests in order, while
// the step's tokens, the slots and the blocks allow.
//
// Every running request gets at least one token: only the last one
// admitted can still be in its prompt (a request is admitted with what is
// left of the budget, so the one before it finished its prompt in that
// step), and the decode tokens before it take fewer than MaxRunning ≤
// StepTokens.
func (s *Scheduler) plan() {
	s.batch, s.jobs = s.batch[:0], s.jobs[:0]
	budget := s.opt.StepTokens
	for i := 0; i < len(s.running); i++ {
		j := s.running[i]
		n := min(len(j.tokens)-j.seq.Len(), budget)
		for !s.appendTokens(j, n) {
			victim := s.running[len(s.running)-1]
			s.preempt(victim)
			if victim == j {
				break
			}
		}
		if j.seq != nil {
			s.schedule(j, n)
			budget -= n
		}
	}
	for len(s.waiting) > 0 && budget > 0 && len(s.running) < s.opt.MaxRunning {
		j := s.waiting[0]
		j.seq = s.r.KV.Match(j.tokens)
		n := min(len(j.tokens)-j.seq.Len(), budget)
		if !s.appendTokens(j, n) {
			j.seq.Release() // wait for blocks: nobody overtakes it
			j.seq = nil
			break
		}
		s.waiting = s.waiting[1:]
		s.running = append(s.running, j)
		s.schedule(j, n)
		budget -= n
	}
}

// appendTokens appends j's next n tokens to its sequence: false if the
// pool has too few free blocks (nothing changed then).
func (s *Scheduler) appendTokens(j *job, n int) bool {
	from := j.seq.Len()
	err := j.seq.Append(j.tokens[from : from+n])
	if errors.Is(err, ErrNoBlocks) {
		return false
	}
	unit00.Check(err == nil, "unit13: Scheduler: Append failed other than for blocks")
	return true
}

// schedule adds j's last n positions to the step's batch.
func (s *Scheduler) schedule(j *job, n int) {
	s.batch = append(s.batch, Entry{Seq: j.seq, N: n})
	s.jobs = append(s.jobs, j)
}

// preempt frees j's blocks and puts it back at the front of the queue:
// when admitted again it recomputes its positions (those still in the
// prefix cache come back free) and goes on where it was. It leaves the
// running list. It is never in the step's batch yet: plan preempts the
// last running request, which it has not reached, or the one it is
// scheduling.
func (s *Scheduler) preempt(j *job) {
	j.seq.Release()
	j.seq = nil
	s.running = slices.DeleteFunc(s.running, func(r *job) bool { return r == j })
	s.waiting = slices.Insert(s.waiting, 0, j)
}

// sample draws j's next token from its logits and reports it; a stop
// token, the request's MaxTokens, the end of the context or a sampler's
// error finishes j.
func (s *Scheduler) sample(j *job, logits []float32) {
	id, err := j.req.Sampler.Sample(logits, j.history)
	if err != nil {
		s.finish(j, unit11.StopCanceled, fmt.Errorf("unit13: request %d, token %d: %w", j.id, j.out, err))
		return
	}
	if slices.Contains(j.req.StopTokens, id) {
		s.finish(j, unit11.StopEOS, nil)
		return
	}
	j.tokens = append(j.tokens, int32(id))
	j.history = append(j.history, id)
	j.out++
	ev := Event{ID: j.id, Token: id}
	switch {
	case j.req.MaxTokens > 0 && j.out >= j.req.MaxTokens:
		ev.Done, ev.Stop = true, unit11.StopLength
	case j.seq.Len() >= s.capacity:
		ev.Done, ev.Stop = true, unit11.StopContext
	}
	s.events = append(s.events, ev)
	if ev.Done {
		s.release(j)
	}
}

// finish reports j's end without a token and releases its blocks.
func (s *Scheduler) finish(j *job, why unit11.StopReason, err error) {
	s.events = append(s.events, Event{ID: j.id, Token: -1, Done: true, Stop: why, Err: err})
	s.release(j)
}

// release gives j's blocks back, if it holds any. Its committed blocks
// stay in the prefix cache while they wait in the free queue.
func (s *Scheduler) release(j *job) {
	if j.seq != nil {
		j.seq.Release()
		j.seq = nil
	}
}
