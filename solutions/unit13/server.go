package unit13

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit11"
)

// Server answers the OpenAI API over a Scheduler: the handlers turn a
// request into tokens and a Request, and read its Events back as text,
// while Run steps the scheduler in a loop of its own.
type Server struct {
	sched *Scheduler
	tok   *unit04.Tokenizer
	opt   ServerOptions

	mu      sync.Mutex
	streams map[int]chan Event // the events of each request in flight
	closed  bool               // Run has returned: no request is taken
	seen    loopView           // the scheduler as the loop last saw it
	wake    chan struct{}      // a request was added or canceled
	started time.Time
	metrics *metrics
}

// metrics are what /metrics reports, in a registry of the server's own.
type metrics struct {
	reg                    *prometheus.Registry
	requests               *prometheus.CounterVec // by status code
	finished               *prometheus.CounterVec // by finish reason
	promptTokens, genToken prometheus.Counter
	steps                  prometheus.Counter
	ttft, tpot             prometheus.Histogram
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_requests_total", Help: "HTTP requests answered, by status code."}, []string{"code"})
	m.finished = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "forge_requests_finished_total", Help: "Generations ended, by reason: stop, length or canceled."}, []string{"reason"})
	m.promptTokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "forge_prompt_tokens_total", Help: "Prompt tokens of the requests admitted."})
	m.genToken = prometheus.NewCounter(prometheus.CounterOpts{Name: "forge_generated_tokens_total", Help: "Tokens generated."})
	m.steps = prometheus.NewCounter(prometheus.CounterOpts{Name: "forge_steps_total", Help: "Scheduler steps run."})
	m.ttft = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "forge_time_to_first_token_seconds", Help: "From a request's arrival to its first token.", Buckets: LatencyBuckets})
	m.tpot = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "forge_time_per_output_token_seconds", Help: "Between two tokens of a request.", Buckets: LatencyBuckets})
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(collectors.NewGoCollector()) // go_goroutines and the heap: a leak shows
	m.reg.MustRegister(m.requests, m.finished, m.promptTokens, m.genToken, m.steps, m.ttft, m.tpot,
		gauge("forge_requests_running", "Requests admitted, holding KV blocks.", func() float64 { return float64(s.gauges().running) }),
		gauge("forge_requests_waiting", "Requests queued.", func() float64 { return float64(s.gauges().waiting) }),
		gauge("forge_kv_blocks_free", "KV blocks free (cached ones included).", func() float64 { return float64(s.gauges().free) }),
		gauge("forge_kv_blocks_used", "KV blocks held by requests.", func() float64 { g := s.gauges(); return float64(g.blocks - g.free) }),
	)
	return m
}

// NewServer returns a server over s and tok, the model's tokenizer. A nil
// scheduler or tokenizer is an error wrapping unit00.ErrInvalid.
func NewServer(s *Scheduler, tok *unit04.Tokenizer, opt ServerOptions) (*Server, error) {
	if s == nil || tok == nil {
		return nil, fmt.Errorf("unit13: NewServer: a nil scheduler or tokenizer: %w", unit00.ErrInvalid)
	}
	if opt.StopTokens == nil {
		opt.StopTokens = []int{tok.EOS()} // −1, which no step samples, when it has none
	}
	if opt.Model == "" {
		opt.Model = "forge"
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = 1 << 20
	}
	srv := &Server{sched: s, tok: tok, opt: opt, streams: map[int]chan Event{}, wake: make(chan struct{}, 1), started: time.Now()}
	srv.metrics = newMetrics(srv)
	return srv, nil
}

// loopView is the scheduler's state as the loop last saw it: the loop
// owns the scheduler, so /metrics and /health read this copy.
type loopView struct {
	running, waiting, free, blocks int
}

func (s *Server) gauges() loopView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen
}

// Run steps the scheduler while it has work, hands each Event to its
// request's handler, and sleeps until a request comes when it has none.
// It returns when ctx ends, ending every request still in flight with an
// error; from then on the server takes none.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	for ctx.Err() == nil {
		evs, err := s.sched.Step()
		if err != nil {
			return err
		}
		s.metrics.steps.Inc()
		s.mu.Lock()
		s.seen = loopView{running: s.sched.Running(), waiting: s.sched.Waiting(), free: s.sched.r.KV.Free(), blocks: s.sched.r.KV.Blocks()}
		for _, ev := range evs {
			if ev.Done {
				s.metrics.finished.WithLabelValues(finishLabel(ev.Stop)).Inc()
			}
			if ch, ok := s.streams[ev.ID]; ok {
				ch <- ev // buffered for a whole request: never blocks
				if ev.Done {
					delete(s.streams, ev.ID)
				}
			}
		}
		s.mu.Unlock()
		if s.sched.Running() == 0 && s.sched.Waiting() == 0 {
			// Idle: every Add and Cancel since this Step has poked wake.
			select {
			case <-ctx.Done():
			case <-s.wake:
			}
		}
	}
	return nil
}

// errShutdown ends the requests in flight when Run returns.
var errShutdown = errors.New("the server is shutting down")

// close ends every request in flight and refuses new ones.
func (s *Server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for id, ch := range s.streams {
		ch <- Event{ID: id, Token: -1, Done: true, Stop: unit11.StopCanceled, Err: errShutdown}
		delete(s.streams, id)
	}
}

// Handler returns the API's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/completions", s.completions)
	mux.HandleFunc("/v1/chat/completions", s.chatCompletions)
	mux.HandleFunc("/v1/models", s.models)
	mux.HandleFunc("/health", s.health)
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	return s.count(s.auth(mux))
}

// count counts every answer by its status code.
func (s *Server) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		if r.URL.Path != "/metrics" {
			s.metrics.requests.WithLabelValues(fmt.Sprint(rec.code)).Inc()
		}
	})
}

// statusRecorder remembers the status code a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's write
// deadline through the recorder.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// FlushError lets a streamed answer through the recorder and reports why
// it could not (a client gone, or stalled past its write deadline; or
// http.ErrNotSupported from a writer that cannot flush).
func (r *statusRecorder) FlushError() error {
	return http.NewResponseController(r.ResponseWriter).Flush()
}

// auth checks the bearer token when the server has an API key, in
// constant time.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opt.APIKey != "" && r.URL.Path != "/health" {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(s.opt.APIKey)) != 1 {
				apiError(w, http.StatusUnauthorized, "invalid_api_key", "authentication_error", "", "invalid API key")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// health reports readiness for a load balancer: the model is loaded, and
// how many slots are free.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	g := s.gauges()
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "slots_idle": s.sched.opt.MaxRunning - g.running, "slots_processing": g.running, "requests_waiting": g.waiting})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, http.MethodGet)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id": s.opt.Model, "object": "model", "created": s.started.Unix(), "owned_by": "forge",
		}},
	})
}

// stream is a request in flight: its id and the channel its events
// come on.
type stream struct {
	id     int
	events chan Event
}

// add queues req and registers its events' channel, or says with an
// HTTP status why it cannot: 503 when the server is full or closed, 400
// for a request the scheduler refuses.
func (s *Server) add(req Request) (*stream, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, http.StatusServiceUnavailable, errShutdown
	case s.opt.MaxQueue > 0 && len(s.streams) >= s.opt.MaxQueue:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("%d requests in flight: try again later", len(s.streams))
	}
	id, err := s.sched.Add(req)
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	// A request has at most Capacity events (one per token it can
	// generate, or its end), so the loop's sends never block.
	st := &stream{id: id, events: make(chan Event, s.sched.Capacity())}
	s.streams[id] = st.events
	s.poke()
	return st, http.StatusOK, nil
}

// cancel ends request id, whose client is gone.
func (s *Server) cancel(id int) {
	s.sched.Cancel(id)
	s.poke()
}

// poke wakes Run if it sleeps.
func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
