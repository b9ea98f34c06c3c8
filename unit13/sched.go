package unit13

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
	// Your fields: the runner, the options, the requests waiting and
	// running, a mutex for what Add and Cancel hand over, and the step's
	// batch, logits and events (see docs/unit13.md, 13.3).
}

// NewScheduler returns a scheduler over r, which it owns with r's pool
// from then on. Options outside their ranges (SchedOptions) are an error
// wrapping unit00.ErrInvalid.
func NewScheduler(r *Runner, opt SchedOptions) (*Scheduler, error) {
	panic("TODO(13.3): write NewScheduler, see docs/unit13.md")
}

// Capacity is the most positions a request may reach, prompt and
// generated tokens together: the model's MaxSeq, or the pool's whole
// memory if that is less.
func (s *Scheduler) Capacity() int {
	panic("TODO(13.3): write Scheduler.Capacity, see docs/unit13.md")
}

// Add queues a request and returns its id, which every Event about it
// carries: 0 for the first, then counting up. A prompt that is empty, has
// a token outside the vocabulary or is longer than Capacity, or a nil
// sampler, is an error wrapping unit00.ErrInvalid with the id −1, and
// nothing is queued.
func (s *Scheduler) Add(req Request) (int, error) {
	panic("TODO(13.3): write Scheduler.Add, see docs/unit13.md")
}

// Cancel asks for request id to end: at the start of the next Step it
// leaves the scheduler, its blocks are released, and an Event with
// StopCanceled reports it. An id that is unknown or already finished is
// ignored.
func (s *Scheduler) Cancel(id int) {
	panic("TODO(13.3): write Scheduler.Cancel, see docs/unit13.md")
}

// Running is the number of requests admitted (holding blocks).
func (s *Scheduler) Running() int {
	panic("TODO(13.3): write Scheduler.Running, see docs/unit13.md")
}

// Waiting is the number of requests queued and not admitted, preempted
// ones included (not those Add queued since the last Step).
func (s *Scheduler) Waiting() int {
	panic("TODO(13.3): write Scheduler.Waiting, see docs/unit13.md")
}

// Step runs one iteration: it takes in what Add and Cancel queued, picks
// the step's work, runs it through the Runner, samples a token for every
// request whose positions are all computed, and returns an Event for each
// request that produced a token or finished. The slice is the
// scheduler's own, valid until the next Step. With nothing to do it
// returns no events. An error of the Runner (a bug: the scheduler built a
// batch it should not have) is returned as it is.
func (s *Scheduler) Step() ([]Event, error) {
	panic("TODO(13.3): write Scheduler.Step, see docs/unit13.md")
}
