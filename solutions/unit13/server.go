package unit13

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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

// Flush lets a streamed answer through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
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

// completionRequest is the body of POST /v1/completions: the fields Forge
// reads. Pointers tell a field left out from a zero.
type completionRequest struct {
	Model            string          `json:"model"`
	Prompt           json.RawMessage `json:"prompt"`
	MaxTokens        *int            `json:"max_tokens"`
	Temperature      *float64        `json:"temperature"`
	TopP             *float64        `json:"top_p"`
	TopK             *int            `json:"top_k"`
	MinP             *float64        `json:"min_p"`
	Seed             *uint64         `json:"seed"`
	Stop             json.RawMessage `json:"stop"`
	PresencePenalty  *float64        `json:"presence_penalty"`
	FrequencyPenalty *float64        `json:"frequency_penalty"`
	N                *int            `json:"n"`
	Stream           bool            `json:"stream"`
	StreamOptions    *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	arrived := time.Now()
	var req completionRequest
	if !s.decode(w, r, &req) {
		return
	}
	if req.Model != "" && req.Model != s.opt.Model {
		apiError(w, http.StatusNotFound, "model_not_found", "invalid_request_error", "model", fmt.Sprintf("the model %q does not exist: this server has %q", req.Model, s.opt.Model))
		return
	}
	prompt, err := stringOrOne(req.Prompt, "prompt")
	if err != nil {
		apiError(w, http.StatusBadRequest, err.code, "invalid_request_error", "prompt", err.msg)
		return
	}
	stops, ok := stopStrings(req.Stop)
	if !ok {
		apiError(w, http.StatusBadRequest, "invalid_type", "invalid_request_error", "stop", "stop: want a string or an array of up to 4 strings")
		return
	}
	gen, field, gerr := s.request(&req, prompt)
	if gerr != nil {
		apiError(w, http.StatusBadRequest, "invalid_value", "invalid_request_error", field, gerr.Error())
		return
	}
	out := &completion{s: s, w: w, created: time.Now().Unix(), last: arrived, promptTokens: len(gen.Prompt), stream: req.Stream,
		usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}
	if gen.MaxTokens == 0 { // nothing to generate: the scheduler's 0 would mean no limit
		out.id = "cmpl-none"
		out.end("length")
		return
	}
	st, status, aerr := s.add(gen)
	if aerr != nil {
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
			apiError(w, status, "server_busy", "server_error", "", aerr.Error())
		} else {
			apiError(w, status, "invalid_value", "invalid_request_error", "prompt", aerr.Error())
		}
		return
	}
	s.metrics.promptTokens.Add(float64(len(gen.Prompt)))
	out.id = fmt.Sprintf("cmpl-%d", st.id)
	out.text = unit11.NewTextStream(s.tok, widen(gen.Prompt), stops)
	out.run(r.Context(), st)
}

// request turns the body's fields into a scheduler Request, or names the
// field that is wrong.
func (s *Server) request(req *completionRequest, prompt string) (Request, string, error) {
	p := unit11.DefaultParams()
	p.Temperature, p.TopP, p.MinP = 1, 1, 0 // the OpenAI API's defaults
	p.TopK = 0
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setF(&p.Temperature, req.Temperature)
	setF(&p.TopP, req.TopP)
	setF(&p.MinP, req.MinP)
	setF(&p.PresencePenalty, req.PresencePenalty)
	setF(&p.FrequencyPenalty, req.FrequencyPenalty)
	if req.TopK != nil {
		p.TopK = *req.TopK
	}
	if req.Seed != nil {
		p.Seed = *req.Seed
	} else {
		p.Seed = uint64(time.Now().UnixNano())
	}
	if req.N != nil && *req.N != 1 {
		return Request{}, "n", fmt.Errorf("n = %d: Forge generates one choice per request", *req.N)
	}
	maxTokens := 16 // the OpenAI completions default
	if req.MaxTokens != nil {
		if *req.MaxTokens < 0 {
			return Request{}, "max_tokens", fmt.Errorf("max_tokens = %d: want 0 or more", *req.MaxTokens)
		}
		maxTokens = *req.MaxTokens
	}
	smp, err := unit11.NewSampler(s.tok.VocabSize(), p)
	if err != nil {
		return Request{}, "", err
	}
	// An empty prompt, or one longer than the context, is the
	// scheduler's to refuse.
	ids := s.tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true})
	return Request{Prompt: narrow(ids), Sampler: smp, MaxTokens: maxTokens, StopTokens: s.opt.StopTokens}, "", nil
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

// completion writes one request's answer, whole or streamed.
type completion struct {
	s                 *Server
	w                 http.ResponseWriter
	id                string
	created           int64
	text              *unit11.TextStream
	promptTokens, gen int
	stream, usage     bool
	sentHeader        bool
	last              time.Time // the request's arrival, then its last token
	all               strings.Builder
}

// run reads st's events until it ends: the request's own end, a stop
// string, an error, or the client going away.
func (c *completion) run(ctx context.Context, st *stream) {
	finish := ""
	for finish == "" {
		select {
		case <-ctx.Done():
			c.s.cancel(st.id)
			return
		case ev := <-st.events:
			if ev.Err != nil { // an event with an error carries no token
				c.fail(ev.Err)
				return
			}
			stop := false
			if ev.Token >= 0 {
				stop = c.token(ev.Token)
			}
			switch {
			case stop:
				c.s.cancel(st.id)
				finish = "stop"
			case ev.Done:
				c.emit(c.text.Flush())
				finish = finishReason(ev.Stop)
			}
		}
	}
	c.end(finish)
}

// token counts and times a generated token and hands its text out; it
// reports whether the text reached a stop string.
func (c *completion) token(t int) bool {
	now := time.Now()
	if c.gen == 0 {
		c.s.metrics.ttft.Observe(now.Sub(c.last).Seconds())
	} else {
		c.s.metrics.tpot.Observe(now.Sub(c.last).Seconds())
	}
	c.last = now
	c.s.metrics.genToken.Inc()
	c.gen++
	piece, stop := c.text.Push(t)
	c.emit(piece)
	return stop
}

// fail ends an answer that err cut short: an error object, or in a
// stream whose header has gone out, an error event as OpenAI sends one.
func (c *completion) fail(err error) {
	status, code := http.StatusInternalServerError, "generation_failed"
	if errors.Is(err, errShutdown) {
		status, code = http.StatusServiceUnavailable, "server_shutdown"
	}
	if !c.sentHeader {
		apiError(c.w, status, code, "server_error", "", err.Error())
		return
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": err.Error(), "type": "server_error", "param": nil, "code": code}})
	fmt.Fprintf(c.w, "data: %s\n\n", b)
	c.flush()
}

// end writes the answer's end: the whole answer, or a streamed
// answer's last chunk, its usage when asked for, and [DONE].
func (c *completion) end(finish string) {
	if !c.stream {
		writeJSON(c.w, http.StatusOK, map[string]any{
			"id": c.id, "object": "text_completion", "created": c.created, "model": c.s.opt.Model,
			"choices": []map[string]any{{"index": 0, "text": c.all.String(), "finish_reason": finish, "logprobs": nil}},
			"usage":   c.usageJSON(),
		})
		return
	}
	c.chunk(map[string]any{"index": 0, "text": "", "finish_reason": finish, "logprobs": nil}, nil)
	if c.usage {
		c.chunk(nil, c.usageJSON())
	}
	fmt.Fprint(c.w, "data: [DONE]\n\n")
	c.flush()
}

func (c *completion) usageJSON() map[string]int {
	return map[string]int{"prompt_tokens": c.promptTokens, "completion_tokens": c.gen, "total_tokens": c.promptTokens + c.gen}
}

// emit hands a piece of text out: kept for the whole answer, or sent.
func (c *completion) emit(piece string) {
	if piece == "" {
		return
	}
	if !c.stream {
		c.all.WriteString(piece)
		return
	}
	c.chunk(map[string]any{"index": 0, "text": piece, "finish_reason": nil, "logprobs": nil}, nil)
}

// chunk sends one server-sent event of a streamed completion.
func (c *completion) chunk(choice map[string]any, usage map[string]int) {
	if !c.sentHeader {
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		c.w.WriteHeader(http.StatusOK)
		c.sentHeader = true
	}
	body := map[string]any{"id": c.id, "object": "text_completion", "created": c.created, "model": c.s.opt.Model}
	if choice != nil {
		body["choices"] = []map[string]any{choice}
	} else {
		body["choices"] = []map[string]any{}
	}
	if usage != nil {
		body["usage"] = usage
	}
	b, _ := json.Marshal(body)
	fmt.Fprintf(c.w, "data: %s\n\n", b)
	c.flush()
}

func (c *completion) flush() {
	if f, ok := c.w.(http.Flusher); ok {
		f.Flush()
	}
}

// finishLabel names why a generation ended, for the metrics.
func finishLabel(r unit11.StopReason) string {
	if r == unit11.StopCanceled {
		return "canceled"
	}
	return finishReason(r)
}

// finishReason is the API's name for why a request ended.
func finishReason(r unit11.StopReason) string {
	if r == unit11.StopLength || r == unit11.StopContext {
		return "length"
	}
	return "stop"
}

// decode reads a JSON body of at most MaxBody bytes into v, answering
// the client itself when it cannot.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body := http.MaxBytesReader(w, r.Body, s.opt.MaxBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			apiError(w, http.StatusRequestEntityTooLarge, "request_too_large", "invalid_request_error", "", fmt.Sprintf("the body is over %d bytes", s.opt.MaxBody))
		case errors.As(err, &typeErr):
			apiError(w, http.StatusBadRequest, "invalid_type", "invalid_request_error", typeErr.Field, fmt.Sprintf("%s: want %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value))
		case errors.Is(err, io.EOF):
			apiError(w, http.StatusBadRequest, "invalid_json", "invalid_request_error", "", "an empty body: want a JSON object")
		default:
			apiError(w, http.StatusBadRequest, "invalid_json", "invalid_request_error", "", "the body is not valid JSON: "+err.Error())
		}
		return false
	}
	return true
}

// fieldError is a request field that is missing or of the wrong type,
// with the error code the API gives it.
type fieldError struct{ code, msg string }

// stringOrOne reads a field that is a string or an array of one string.
func stringOrOne(raw json.RawMessage, name string) (string, *fieldError) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", &fieldError{"missing_required_parameter", name + " is missing"}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) == 1 {
		return list[0], nil
	}
	return "", &fieldError{"invalid_type", name + ": want a string (or an array of one string)"}
}

// stopStrings reads "stop": absent, null, a string or an array of up to
// 4; ok is false for anything else.
func stopStrings(raw json.RawMessage) (stops []string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	if json.Unmarshal(raw, &stops) != nil || len(stops) > 4 {
		return nil, false
	}
	return stops, true
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	apiError(w, http.StatusMethodNotAllowed, "method_not_allowed", "invalid_request_error", "", "use "+allow)
}

// apiError answers with the OpenAI API's error object.
func apiError(w http.ResponseWriter, status int, code, typ, param, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// narrow copies token ids into the int32s a sequence keeps.
func narrow(ids []int) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

// widen copies token ids back into ints.
func widen(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
