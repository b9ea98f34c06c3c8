package unit13

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
)

// served is a server of a small random model over GPT-2's vocabulary, on
// a loopback listener, with its loop running.
type served struct {
	t         *testing.T
	m         *unit05.Model
	tok       *unit04.Tokenizer
	kv        *Pool
	sched     *Scheduler
	srv       *Server
	http      *httptest.Server
	cli       openai.Client
	key       string // the server's API key
	cancelRun func() // ends Run's context
	runOK     chan error
}

// setup shapes a served model: a context of maxSeq positions (128 if 0),
// a pool of blocks (at least 40 and a context's worth if 0), weights
// changed by weights before the model is built, the vocabulary of
// unit04/testdata's vocab file (GPT-2's if empty), and a chat template
// compiled with the vocabulary's BOS and EOS (none if empty).
type setup struct {
	maxSeq, blocks int
	weights        func(w *unit05.Weights)
	vocab, chat    string
}

func newServed(t *testing.T, opt ServerOptions) *served {
	t.Helper()
	return newServedWith(t, opt, setup{})
}

func newServedWith(t *testing.T, opt ServerOptions, su setup) *served {
	t.Helper()
	if su.vocab == "" {
		su.vocab = "ggml-vocab-gpt-2.gguf"
	}
	v, err := unit04.LoadVocab(filepath.Join("..", "unit04", "testdata", su.vocab))
	require.NoError(t, err)
	tok, err := unit04.New(v)
	require.NoError(t, err)
	if su.chat != "" {
		opt.Chat, err = NewChatTemplate(su.chat, v.Tokens[v.BOS], v.Tokens[v.EOS])
		require.NoError(t, err, "the test's chat template")
	}
	if su.maxSeq == 0 {
		su.maxSeq = 128
	}
	if su.blocks == 0 {
		su.blocks = max(40, su.maxSeq/BlockSize+2)
	}
	c := unit05.Config{Dim: 32, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 8, FFN: 48, Vocab: tok.VocabSize(), MaxSeq: su.maxSeq, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
	w, err := unit05.RandomWeights(c, 7)
	require.NoError(t, err)
	if su.weights != nil {
		su.weights(w)
	}
	m, err := unit05.NewModel(c, w, nil)
	require.NoError(t, err)
	kv, err := NewPool(c.Layers, c.KVDim(), su.blocks)
	require.NoError(t, err)
	r, err := NewRunner(m, kv, 64)
	require.NoError(t, err)
	sched, err := NewScheduler(r, SchedOptions{MaxRunning: 4, StepTokens: 64})
	require.NoError(t, err)
	srv, err := NewServer(sched, tok, opt)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{t: t, m: m, tok: tok, kv: kv, sched: sched, srv: srv, key: opt.APIKey, http: httptest.NewServer(srv.Handler()), cancelRun: cancel, runOK: make(chan error, 1)}
	go func() { s.runOK <- srv.Run(ctx) }()
	s.cli = openai.NewClient(option.WithBaseURL(s.http.URL+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0))
	t.Cleanup(func() {
		s.http.Close()
		cancel()
		require.NoError(t, <-s.runOK, "Run")
	})
	return s
}

// greedy is what one session generates from prompt at temperature 0.
func (s *served) greedy(prompt string, n int) string {
	s.t.Helper()
	return greedyRun(s.t, s.m, s.tok, prompt, n).Text
}

// greedyRun generates n tokens at temperature 0 from prompt in one
// session of m, stopping at the tokenizer's EOS.
func greedyRun(t *testing.T, m *unit05.Model, tok *unit04.Tokenizer, prompt string, n int) unit11.Result {
	t.Helper()
	return greedyIDs(t, m, tok, tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true}), n)
}

// greedyIDs generates n tokens (0: to the end of the context) at
// temperature 0 from the prompt ids in one session of m, stopping at the
// tokenizer's EOS.
func greedyIDs(t *testing.T, m *unit05.Model, tok *unit04.Tokenizer, ids []int, n int) unit11.Result {
	t.Helper()
	p := unit11.DefaultParams()
	p.Temperature = 0
	smp, err := unit11.NewSampler(tok.VocabSize(), p)
	require.NoError(t, err)
	res, err := unit11.Run(context.Background(), unit07.NewSession(m), smp, tok, ids, nil, unit11.Options{MaxTokens: n, StopTokens: []int{tok.EOS()}}, func(string) error { return nil })
	require.NoError(t, err)
	return res
}

// waitFreed waits for every block of the pool to be free again, as
// /metrics reports it (the pool is the loop's: the test does not touch it
// while Run runs).
func (s *served) waitFreed(what string) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	free := 0.0
	for time.Now().Before(deadline) {
		free = s.metric("forge_kv_blocks_free")
		if free == float64(s.kv.Blocks()) && s.metric("forge_requests_running") == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("%s: %v of %d blocks free after 5 s", what, free, s.kv.Blocks())
}

func TestC13_4_Completion(t *testing.T) {
	s := newServed(t, ServerOptions{Model: "tiny"})
	ctx := context.Background()
	res, err := s.cli.Completions.New(ctx, openai.CompletionNewParams{
		Model: "tiny", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")},
		MaxTokens: openai.Int(8), Temperature: openai.Float(0),
	})
	require.NoError(t, err)
	require.Len(t, res.Choices, 1)
	require.Equal(t, s.greedy("Once upon a time", 8), res.Choices[0].Text, "a greedy completion against one session's greedy text")
	require.Equal(t, "length", string(res.Choices[0].FinishReason))
	require.Equal(t, int64(8), res.Usage.CompletionTokens)
	require.Equal(t, int64(len(s.tok.Encode("Once upon a time", unit04.EncodeOptions{AddSpecial: true}))), res.Usage.PromptTokens)
	s.waitFreed("after a completion")
}

func TestC13_4_Streaming(t *testing.T) {
	s := newServed(t, ServerOptions{})
	ctx := context.Background()
	stream := s.cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model: "forge", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("The sea")},
		MaxTokens: openai.Int(12), Temperature: openai.Float(0),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var text strings.Builder
	var usage int64
	finish := ""
	for stream.Next() {
		c := stream.Current()
		for _, ch := range c.Choices {
			text.WriteString(ch.Text)
			if ch.FinishReason != "" {
				finish = string(ch.FinishReason)
			}
		}
		if c.Usage.CompletionTokens > 0 {
			usage = c.Usage.CompletionTokens
		}
	}
	require.NoError(t, stream.Err())
	require.Equal(t, s.greedy("The sea", 12), text.String())
	require.Equal(t, "length", finish)
	require.Equal(t, int64(12), usage)
	s.waitFreed("after a stream")
}

// TestC13_4_Cancel: a client that goes away after its first chunk ends its
// request (the metrics count it canceled) long before the 4,000 tokens it
// asked for, and every block comes back.
func TestC13_4_Cancel(t *testing.T) {
	s := newServedWith(t, ServerOptions{}, setup{maxSeq: 4096})
	ctx, cancel := context.WithCancel(context.Background())
	stream := s.cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model: "forge", Prompt: textPrompt("a b c"), MaxTokens: openai.Int(4000), Temperature: openai.Float(0),
	})
	require.True(t, stream.Next(), "a first chunk")
	cancel()
	for stream.Next() {
	}
	s.waitFreed("after the client went away")
	body := get(t, s.http.URL+"/metrics")
	require.Contains(t, body, `forge_requests_finished_total{reason="canceled"} 1`, "a request whose client went away ends canceled, not at its max_tokens")
}

// brokenWriter is a ResponseWriter for a client that goes away: its
// failAt-th write (or, with failFlush, its failAt-th flush) fails, and so
// does everything after it, which it counts: a server must try nothing
// more once a write or a flush has failed.
type brokenWriter struct {
	header            http.Header
	failAt            int
	failFlush, failed bool
	writes, flushes   int
	after             int // writes and flushes tried after the failure
}

var errClientGone = errors.New("the client went away")

func (w *brokenWriter) Header() http.Header { return w.header }
func (w *brokenWriter) WriteHeader(int)     {}

func (w *brokenWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.after++
		return 0, errClientGone
	}
	w.writes++
	if !w.failFlush && w.writes == w.failAt {
		w.failed = true
		return 0, errClientGone
	}
	return len(p), nil
}

func (w *brokenWriter) FlushError() error {
	if w.failed {
		w.after++
		return errClientGone
	}
	w.flushes++
	if w.failFlush && w.flushes == w.failAt {
		w.failed = true
		return errClientGone
	}
	return nil
}

// TestC13_4_WriteFailure: a stream whose write or flush fails, at every
// event in turn (the first, a token's, the last token's, the finish and
// usage events, "[DONE]"), ends there: nothing more is written or flushed,
// the handler returns, and every block comes back.
func TestC13_4_WriteFailure(t *testing.T) {
	s := newServed(t, ServerOptions{})
	body := `{"model":"forge","prompt":"The sea","max_tokens":4,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}`
	for _, failFlush := range []bool{false, true} {
		for failAt := 1; failAt <= 9; failAt++ {
			what := fmt.Sprintf("write %d fails", failAt)
			if failFlush {
				what = fmt.Sprintf("flush %d fails", failAt)
			}
			w := &brokenWriter{header: http.Header{}, failAt: failAt, failFlush: failFlush}
			req := httptest.NewRequest(http.MethodPost, "/v1/completions", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			done := make(chan struct{})
			go func() {
				defer close(done)
				s.srv.Handler().ServeHTTP(w, req)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("a stream of 4 tokens whose %s: the handler has not returned after 10 s", what)
			}
			if w.after != 0 {
				t.Fatalf("a stream of 4 tokens whose %s: the server tried %d more writes or flushes after it; want none: a failed write means the client is gone", what, w.after)
			}
			s.waitFreed("after a stream whose " + what)
		}
	}
}

// TestC13_4_StreamFormat: a streamed answer read as raw bytes: events of
// "data: " and a JSON object, each followed by a blank line, the usage
// chunk with no choices, and "data: [DONE]" last.
func TestC13_4_StreamFormat(t *testing.T) {
	s := newServed(t, ServerOptions{})
	resp, err := http.Post(s.http.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt": "hi", "max_tokens": 3, "temperature": 0, "stream": true, "stream_options": {"include_usage": true}}`))
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	require.Equal(t, "data: [DONE]", events[len(events)-1], "the last event of %q", body)
	type chunk struct {
		Object  string `json:"object"`
		Choices []struct {
			Index        int     `json:"index"`
			Text         string  `json:"text"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	var text strings.Builder
	var last chunk
	finishes := 0
	for i, ev := range events[:len(events)-1] {
		require.True(t, strings.HasPrefix(ev, "data: {"), "event %d: %q", i, ev)
		last = chunk{}
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &last), "event %d", i)
		require.Equal(t, "text_completion", last.Object, "event %d: %s", i, ev)
		for _, c := range last.Choices {
			require.Equal(t, 0, c.Index, "event %d: the choice's index: %s", i, ev)
			if c.FinishReason == nil {
				require.NotEmpty(t, c.Text, "event %d: a chunk of text sends some: %s", i, ev)
			} else {
				finishes++
				require.Equal(t, "length", *c.FinishReason, "event %d", i)
				require.Empty(t, c.Text, "event %d: the finish chunk", i)
			}
			text.WriteString(c.Text)
		}
	}
	require.Equal(t, 1, finishes, "one chunk carries the finish reason")
	require.Equal(t, s.greedy("hi", 3), text.String())
	require.Empty(t, last.Choices, "the usage chunk has no choices")
	require.Equal(t, 3, last.Usage["completion_tokens"])
}

// apiErr is the OpenAI error object of an answer.
type apiErr struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

// do sends a raw request and returns its status, headers and body.
func (s *served) do(method, path, body, key string) (int, http.Header, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.http.URL+path, strings.NewReader(body))
	require.NoError(s.t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	return resp.StatusCode, resp.Header, b
}

// prompt returns a text GPT-2 encodes to exactly n tokens.
func (s *served) prompt(n int) string {
	s.t.Helper()
	text := "a" + strings.Repeat(" a", n-1)
	require.Len(s.t, s.tok.Encode(text, unit04.EncodeOptions{AddSpecial: true}), n, "the test's prompt of %d tokens", n)
	return text
}

// padded returns body, a JSON object, grown with a field the server
// ignores to exactly size bytes.
func padded(t *testing.T, body string, size int) string {
	t.Helper()
	out := strings.TrimSuffix(body, "}") + `, "pad": "`
	out += strings.Repeat("x", size-len(out)-2) + `"}`
	require.Len(t, out, size)
	return out
}

// TestC13_4_BadRequests: every bad request gets its status and an OpenAI
// error object naming the field (param) and the kind of mistake (code).
func TestC13_4_BadRequests(t *testing.T) {
	s := newServed(t, ServerOptions{MaxBody: 4096, APIKey: "secret"})
	long := s.prompt(129) // the context is 128
	cases := []struct {
		what, method, path, body, key string
		status                        int
		param, code                   string
	}{
		{"malformed JSON", "POST", "/v1/completions", `{"prompt": "hi"`, "secret", 400, "", "invalid_json"},
		{"an empty body", "POST", "/v1/completions", ``, "secret", 400, "", "invalid_json"},
		{"no prompt", "POST", "/v1/completions", `{"max_tokens": 3}`, "secret", 400, "prompt", "missing_required_parameter"},
		{"a null prompt", "POST", "/v1/completions", `{"prompt": null}`, "secret", 400, "prompt", "missing_required_parameter"},
		{"a prompt of the wrong type", "POST", "/v1/completions", `{"prompt": 5}`, "secret", 400, "prompt", "invalid_type"},
		{"two prompts", "POST", "/v1/completions", `{"prompt": ["a", "b"]}`, "secret", 400, "prompt", "invalid_type"},
		{"an empty prompt", "POST", "/v1/completions", `{"prompt": ""}`, "secret", 400, "prompt", "invalid_value"},
		{"a prompt longer than the context", "POST", "/v1/completions", `{"prompt": "` + long + `"}`, "secret", 400, "prompt", "invalid_value"},
		{"max_tokens of the wrong type", "POST", "/v1/completions", `{"prompt": "hi", "max_tokens": "5"}`, "secret", 400, "max_tokens", "invalid_type"},
		{"max_tokens < 0", "POST", "/v1/completions", `{"prompt": "hi", "max_tokens": -1}`, "secret", 400, "max_tokens", "invalid_value"},
		{"n = 2", "POST", "/v1/completions", `{"prompt": "hi", "n": 2}`, "secret", 400, "n", "invalid_value"},
		{"n = 0", "POST", "/v1/completions", `{"prompt": "hi", "n": 0}`, "secret", 400, "n", "invalid_value"},
		{"top_p = 2", "POST", "/v1/completions", `{"prompt": "hi", "top_p": 2}`, "secret", 400, "", "invalid_value"},
		{"min_p < 0", "POST", "/v1/completions", `{"prompt": "hi", "min_p": -0.5}`, "secret", 400, "", "invalid_value"},
		{"five stop strings", "POST", "/v1/completions", `{"prompt": "hi", "stop": ["a","b","c","d","e"]}`, "secret", 400, "stop", "invalid_type"},
		{"a stop number", "POST", "/v1/completions", `{"prompt": "hi", "stop": 7}`, "secret", 400, "stop", "invalid_type"},
		{"an unknown model", "POST", "/v1/completions", `{"model": "gpt-9", "prompt": "hi"}`, "secret", 404, "model", "model_not_found"},
		{"a body of exactly the limit (its n is wrong)", "POST", "/v1/completions", padded(t, `{"prompt": "hi", "n": 2}`, 4096), "secret", 400, "n", "invalid_value"},
		{"a body one byte over the limit", "POST", "/v1/completions", padded(t, `{"prompt": "hi", "n": 2}`, 4097), "secret", 413, "", "request_too_large"},
		{"GET on completions", "GET", "/v1/completions", ``, "secret", 405, "", "method_not_allowed"},
		{"POST on models", "POST", "/v1/models", `{}`, "secret", 405, "", "method_not_allowed"},
		{"a wrong API key", "POST", "/v1/completions", `{"prompt": "hi"}`, "nope", 401, "", "invalid_api_key"},
		{"no API key", "GET", "/v1/models", ``, "", 401, "", "invalid_api_key"},
	}
	for _, tc := range cases {
		status, _, body := s.do(tc.method, tc.path, tc.body, tc.key)
		require.Equal(t, tc.status, status, "%s: status (body %s)", tc.what, body)
		var e apiErr
		require.NoError(t, json.Unmarshal(body, &e), "%s: an OpenAI error object, not %s", tc.what, body)
		require.NotEmpty(t, e.Error.Message, "%s: the error's message", tc.what)
		require.Equal(t, tc.code, e.Error.Code, "%s: the error's code (body %s)", tc.what, body)
		if tc.param == "" {
			require.Nil(t, e.Error.Param, "%s: the error's param is null", tc.what)
		} else {
			require.NotNil(t, e.Error.Param, "%s: the error's param", tc.what)
			require.Equal(t, tc.param, *e.Error.Param, "%s: the error's param", tc.what)
		}
	}
	status, _, body := s.do("GET", "/health", "", "")
	require.Equal(t, 200, status, "/health needs no key (body %s)", body)
	status, _, body = s.do("GET", "/v1/models", "", "secret")
	require.Equal(t, 200, status, "/v1/models with the key (body %s)", body)
	require.JSONEq(t, `"forge"`, mustField(t, body, "data", 0, "id"), "the default model name")
	s.waitFreed("after bad requests")
}

// TestC13_4_BodyLimit: with MaxBody ≤ 0 the limit is 1 MiB exactly.
func TestC13_4_BodyLimit(t *testing.T) {
	s := newServed(t, ServerOptions{})
	status, _, body := s.do("POST", "/v1/completions", padded(t, `{"prompt": "hi", "n": 2}`, 1<<20), "")
	require.Equal(t, 400, status, "a body of 1 MiB is read (its n is wrong): %.200s", body)
	status, _, body = s.do("POST", "/v1/completions", padded(t, `{"prompt": "hi", "n": 2}`, 1<<20+1), "")
	require.Equal(t, 413, status, "a body of 1 MiB and a byte: %.200s", body)
	tiny := newServed(t, ServerOptions{MaxBody: 1})
	status, _, body = tiny.do("POST", "/v1/completions", `{}`, "")
	require.Equal(t, 413, status, "a body of 2 bytes with MaxBody 1: %s", body)
}

func TestC13_4_NewServer(t *testing.T) {
	s := newServed(t, ServerOptions{})
	_, err := NewServer(nil, s.tok, ServerOptions{})
	require.ErrorIs(t, err, unit00.ErrInvalid, "a nil scheduler")
	_, err = NewServer(s.sched, nil, ServerOptions{})
	require.ErrorIs(t, err, unit00.ErrInvalid, "a nil tokenizer")
}

// mustField digs a value out of a JSON body by keys and indexes, as JSON.
func mustField(t *testing.T, body []byte, path ...any) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v), "JSON: %s", body)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "%v in %s: not an object", path, body)
			v, ok = m[k]
			require.True(t, ok, "%v in %s: no %q", path, body, k)
		case int:
			l, ok := v.([]any)
			require.True(t, ok && k < len(l), "%v in %s: no element %d", path, body, k)
			v = l[k]
		}
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// complete asks for a completion with the SDK.
func (s *served) complete(p openai.CompletionNewParams) *openai.Completion {
	s.t.Helper()
	if p.Model == "" {
		p.Model = "forge"
	}
	res, err := s.cli.Completions.New(context.Background(), p)
	require.NoError(s.t, err)
	require.Len(s.t, res.Choices, 1)
	return res
}

func textPrompt(text string) openai.CompletionNewParamsPromptUnion {
	return openai.CompletionNewParamsPromptUnion{OfString: openai.String(text)}
}

func TestC13_4_StopAndSeed(t *testing.T) {
	// A context of 1,024: the request that meets its stop string may run
	// to 1,000 tokens, far longer than a handler takes to cancel it, so
	// that "canceled, not run on" below does not depend on timing.
	s := newServedWith(t, ServerOptions{}, setup{maxSeq: 1024})
	full := s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(10), Temperature: openai.Float(0)}).Choices[0].Text
	require.Greater(t, len(full), 4, "a greedy text to cut")
	cut := full[len(full)/2 : len(full)/2+2]
	res := s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(1000), Temperature: openai.Float(0),
		Stop: openai.CompletionNewParamsStopUnion{OfString: openai.String(cut)}})
	require.Equal(t, full[:strings.Index(full, cut)], res.Choices[0].Text, "the text before the stop string %q of %q", cut, full)
	require.Equal(t, "stop", string(res.Choices[0].FinishReason))
	// The client has its answer: the request is canceled, not run on to
	// its max_tokens with its slot and blocks held.
	s.waitFreed("after a stop string")
	require.Equal(t, 1.0, s.metric(`forge_requests_finished_total{reason="canceled"}`), "the request that met its stop string ends canceled")
	require.Equal(t, 1.0, s.metric(`forge_requests_finished_total{reason="length"}`), "only the first request ran to its max_tokens")
	seeded := func() string {
		return s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(10), Temperature: openai.Float(1.2), Seed: openai.Int(42)}).Choices[0].Text
	}
	require.Equal(t, seeded(), seeded(), "two requests with the same seed")
	zero := s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(0)})
	require.Equal(t, "", zero.Choices[0].Text, "max_tokens 0")
	s.waitFreed("after stops and seeds")
}

func TestC13_4_Metrics(t *testing.T) {
	s := newServed(t, ServerOptions{})
	s.complete(openai.CompletionNewParams{Prompt: textPrompt("one two"), MaxTokens: openai.Int(5), Temperature: openai.Float(0)})
	resp, err := http.Get(s.http.URL + "/v1/completions")
	require.NoError(t, err)
	resp.Body.Close()
	s.waitFreed("before scraping")
	n := len(s.tok.Encode("one two", unit04.EncodeOptions{AddSpecial: true}))
	want := fmt.Sprintf(`# HELP forge_requests_total HTTP requests answered, by status code.
# TYPE forge_requests_total counter
forge_requests_total{code="200"} 1
forge_requests_total{code="405"} 1
# HELP forge_prompt_tokens_total Prompt tokens of the requests admitted.
# TYPE forge_prompt_tokens_total counter
forge_prompt_tokens_total %d
# HELP forge_generated_tokens_total Tokens generated.
# TYPE forge_generated_tokens_total counter
forge_generated_tokens_total 5
`, n)
	require.NoError(t, testutil.ScrapeAndCompare(s.http.URL+"/metrics", strings.NewReader(want), "forge_requests_total", "forge_prompt_tokens_total", "forge_generated_tokens_total"))
	body := get(t, s.http.URL+"/metrics")
	for _, name := range []string{"forge_time_to_first_token_seconds_count 1", "forge_time_per_output_token_seconds_count 4", "forge_kv_blocks_free 40", "forge_kv_blocks_used 0", "forge_requests_running 0"} {
		require.Contains(t, body, name)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// text asks for a completion with a raw JSON body and returns its text,
// finish reason and generated token count.
func (s *served) text(body string) (text, finish string, tokens int) {
	s.t.Helper()
	status, _, b := s.do("POST", "/v1/completions", body, "")
	require.Equal(s.t, 200, status, "%s: %s", body, b)
	var res struct {
		Choices []struct {
			Index        int    `json:"index"`
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	require.NoError(s.t, json.Unmarshal(b, &res), "%s", b)
	require.Len(s.t, res.Choices, 1, "%s", b)
	require.Equal(s.t, 0, res.Choices[0].Index, "the choice's index")
	u := res.Usage
	require.Equal(s.t, u["prompt_tokens"]+u["completion_tokens"], u["total_tokens"], "usage %v", u)
	return res.Choices[0].Text, res.Choices[0].FinishReason, u["completion_tokens"]
}

// TestC13_4_Defaults: a field left out takes the OpenAI API's default
// (temperature 1, top_p 1, no min_p or top_k, n 1, 16 tokens); a prompt
// may be an array of one string; stop may be an array of up to 4.
func TestC13_4_Defaults(t *testing.T) {
	s := newServed(t, ServerOptions{})
	seeded, _, _ := s.text(`{"prompt": "Hello there", "seed": 5, "max_tokens": 10}`)
	explicit, _, _ := s.text(`{"prompt": "Hello there", "seed": 5, "max_tokens": 10, "temperature": 1, "top_p": 1, "min_p": 0, "top_k": 0, "n": 1}`)
	require.Equal(t, explicit, seeded, "a request with no sampling fields samples as temperature 1, top_p 1, min_p 0, top_k 0")
	require.NotEqual(t, s.greedy("Hello there", 10), seeded, "temperature 1 is not greedy (or the test's seed is unlucky)")
	hotter, _, _ := s.text(`{"prompt": "Hello there", "seed": 5, "max_tokens": 10, "temperature": 2}`)
	require.NotEqual(t, hotter, seeded, "temperature 2 against the default 1, same seed")

	want := s.greedy("Hello there", 16)
	text, finish, n := s.text(`{"prompt": "Hello there", "temperature": 0}`)
	require.Equal(t, want, text, "16 greedy tokens when max_tokens is left out")
	require.Equal(t, 16, n, "max_tokens defaults to 16")
	require.Equal(t, "length", finish)
	text, _, _ = s.text(`{"prompt": ["Hello there"], "temperature": 0}`)
	require.Equal(t, want, text, "a prompt given as an array of one string")

	// Stop strings as an array of 4: the text ends before the first one.
	cut := want[len(want)/2 : len(want)/2+2]
	text, finish, _ = s.text(`{"prompt": "Hello there", "temperature": 0, "stop": ["zzzq", "` + jsonEsc(cut) + `", "qqqz", "xxqx"]}`)
	require.Equal(t, want[:strings.Index(want, cut)], text, "cut at %q", cut)
	require.Equal(t, "stop", finish)

	// The end of the context: the token sampled after its last position
	// needs no position of its own.
	for _, tc := range []struct{ prompt, want int }{{128, 1}, {127, 2}} {
		text, finish, n = s.text(`{"prompt": "` + s.prompt(tc.prompt) + `", "temperature": 0, "max_tokens": 50}`)
		require.Equal(t, tc.want, n, "tokens after a prompt of %d in a context of 128 (%q)", tc.prompt, text)
		require.Equal(t, "length", finish, "a request that reaches the end of the context")
	}
	s.waitFreed("after defaults")
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// swapRows exchanges rows i and j of w's output matrix, so that the model
// says j where it said i.
func swapRows(w *unit05.Weights, i, j int) {
	out, in := w.Output.Dims()
	m := unit03.NewMat(out, in)
	for r := range out {
		w.Output.Row(m.Data[r*in:(r+1)*in], r)
	}
	for k := range in {
		m.Data[i*in+k], m.Data[j*in+k] = m.Data[j*in+k], m.Data[i*in+k]
	}
	w.Output = unit05.NewDense(m)
}

// TestC13_4_StopTokens: by default the tokenizer's EOS ends a request
// ("stop", not counted); ServerOptions.StopTokens replaces it.
func TestC13_4_StopTokens(t *testing.T) {
	base := newServed(t, ServerOptions{})
	first := greedyRun(t, base.m, base.tok, "Hello there", 6).Tokens
	require.Len(t, first, 6)
	eos := base.tok.EOS()
	// The same model with the output rows of its first greedy token and
	// EOS swapped: its first greedy token is EOS.
	s := newServedWith(t, ServerOptions{}, setup{weights: func(w *unit05.Weights) { swapRows(w, first[0], eos) }})
	text, finish, n := s.text(`{"prompt": "Hello there", "temperature": 0, "max_tokens": 6}`)
	require.Equal(t, "stop", finish, "EOS ends a request by default (text %q)", text)
	require.Equal(t, 0, n, "EOS is not counted")
	require.Equal(t, "", text)
	none := newServedWith(t, ServerOptions{StopTokens: []int{}}, setup{weights: func(w *unit05.Weights) { swapRows(w, first[0], eos) }})
	_, finish, n = none.text(`{"prompt": "Hello there", "temperature": 0, "max_tokens": 6}`)
	require.Equal(t, "length", finish, "with StopTokens empty, EOS is a token like any other")
	require.Equal(t, 6, n)
	// Token 0 ("!") is a token like any other: the model with the rows of
	// its first greedy token and 0 swapped starts with it.
	zero := newServedWith(t, ServerOptions{}, setup{weights: func(w *unit05.Weights) { swapRows(w, first[0], 0) }})
	text, _, n = zero.text(`{"prompt": "Hello there", "temperature": 0, "max_tokens": 6}`)
	require.Equal(t, 6, n)
	require.True(t, strings.HasPrefix(text, base.tok.Decode([]int{0})), "a text whose first token is 0: %q", text)
	at := slices.Index(first, first[3])
	own := newServed(t, ServerOptions{StopTokens: []int{first[3]}})
	_, finish, n = own.text(`{"prompt": "Hello there", "temperature": 0, "max_tokens": 6}`)
	require.Equal(t, "stop", finish, "a stop token of the server's")
	require.Equal(t, at, n, "the tokens before the stop token %d in %v", first[3], first)
}

// TestC13_4_GenerationError: a model whose logits are NaN fails the
// request with a 500 error object, or with an error event in a stream,
// and frees its blocks.
func TestC13_4_GenerationError(t *testing.T) {
	s := newServedWith(t, ServerOptions{}, setup{weights: func(w *unit05.Weights) {
		out, in := w.Output.Dims()
		m := unit03.NewMat(out, in)
		for i := range m.Data {
			m.Data[i] = float32(math.NaN())
		}
		w.Output = unit05.NewDense(m)
	}})
	status, _, body := s.do("POST", "/v1/completions", `{"prompt": "Hello", "max_tokens": 4}`, "")
	require.Equal(t, 500, status, "%s", body)
	var e apiErr
	require.NoError(t, json.Unmarshal(body, &e), "%s", body)
	require.Contains(t, e.Error.Message, "NaN", "the error says what went wrong")
	stream := s.cli.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: "forge", Prompt: textPrompt("Hello"), MaxTokens: openai.Int(4)})
	for stream.Next() {
	}
	require.Error(t, stream.Err(), "a stream whose generation fails")
	s.waitFreed("after failed generations")
}

// health is what /health reports.
type health struct {
	Status     string `json:"status"`
	Idle       int    `json:"slots_idle"`
	Processing int    `json:"slots_processing"`
	Waiting    int    `json:"requests_waiting"`
}

func (s *served) health() health {
	s.t.Helper()
	status, _, body := s.do("GET", "/health", "", "")
	require.Equal(s.t, 200, status, "/health: %s", body)
	var h health
	require.NoError(s.t, json.Unmarshal(body, &h), "/health: %s", body)
	return h
}

// waitHealth polls /health until ok holds, for at most 10 s.
func (s *served) waitHealth(what string, ok func(health) bool) health {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h := s.health()
		if ok(h) {
			return h
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: /health still says %+v after 10 s", what, h)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// metric reads one sample's value from /metrics.
func (s *served) metric(name string) float64 {
	s.t.Helper()
	status, _, body := s.do("GET", "/metrics", "", s.key)
	require.Equal(s.t, 200, status, "/metrics: %s", body)
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			var f float64
			_, err := fmt.Sscan(v, &f)
			require.NoError(s.t, err, "%s", line)
			return f
		}
	}
	s.t.Fatalf("/metrics has no %s", name)
	return 0
}

// longStream starts a streamed request of 4,000 tokens that runs until
// its cancel is called; its chunks are read and dropped.
func (s *served) longStream(prompt string) (cancel func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stream := s.cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{Model: "forge", Prompt: textPrompt(prompt), MaxTokens: openai.Int(4000)})
	go func() {
		for stream.Next() {
		}
	}()
	return cancel
}

// TestC13_4_Busy: four long streams fill the four slots; /health and
// /metrics say so; a fifth request waits its turn (and its first token
// comes late), a sixth past MaxQueue is turned away with 503 and
// Retry-After; the fifth, batched with the others, equals its greedy text.
func TestC13_4_Busy(t *testing.T) {
	s := newServedWith(t, ServerOptions{MaxQueue: 5}, setup{maxSeq: 4096, blocks: 4*4096/BlockSize + 8})
	require.Equal(t, health{Status: "ok", Idle: 4}, s.health(), "an idle server")
	var cancels []func()
	for i := range 4 {
		cancels = append(cancels, s.longStream(fmt.Sprintf("stream %d", i)))
	}
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	s.waitHealth("four streams running", func(h health) bool { return h.Processing == 4 })
	type result struct {
		text string
		err  error
	}
	fifth := make(chan result, 1)
	go func() {
		res, err := s.cli.Completions.New(context.Background(), openai.CompletionNewParams{Model: "forge", Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(3), Temperature: openai.Float(0)})
		if err != nil {
			fifth <- result{err: err}
			return
		}
		fifth <- result{text: res.Choices[0].Text}
	}()
	h := s.waitHealth("a fifth request waiting", func(h health) bool { return h.Waiting == 1 })
	require.Equal(t, health{Status: "ok", Idle: 0, Processing: 4, Waiting: 1}, h)
	require.Equal(t, 4.0, s.metric("forge_requests_running"))
	require.Equal(t, 1.0, s.metric("forge_requests_waiting"))
	used, free := s.metric("forge_kv_blocks_used"), s.metric("forge_kv_blocks_free")
	require.Positive(t, used, "the running streams hold blocks")
	require.Equal(t, float64(s.kv.Blocks()), used+free, "used and free blocks add up to the pool")

	status, hdr, body := s.do("POST", "/v1/completions", `{"prompt": "one too many"}`, "")
	require.Equal(t, 503, status, "a sixth request past MaxQueue 5: %s", body)
	require.NotEmpty(t, hdr.Get("Retry-After"), "a 503 says when to retry")
	var e apiErr
	require.NoError(t, json.Unmarshal(body, &e), "%s", body)
	require.Equal(t, "server_busy", e.Error.Code)

	hold := 250 * time.Millisecond
	time.Sleep(hold)
	cancels[0]()
	r := <-fifth
	require.NoError(t, r.err, "the fifth request, once a slot is free")
	require.Equal(t, s.greedy("Hello there", 3), r.text, "a request batched with three others against its greedy text")
	for _, c := range cancels {
		c()
	}
	s.waitFreed("after the streams were canceled")
	require.GreaterOrEqual(t, s.metric("forge_time_to_first_token_seconds_sum"), hold.Seconds(),
		"the fifth request waited %v for a slot: time to first token counts from its arrival", hold)
}

// TestC13_4_MaxQueue: with MaxQueue 1, one request in flight turns the
// next away; once it ends, the next is taken.
func TestC13_4_MaxQueue(t *testing.T) {
	s := newServedWith(t, ServerOptions{MaxQueue: 1}, setup{maxSeq: 4096})
	cancel := s.longStream("the only one")
	s.waitHealth("a stream running", func(h health) bool { return h.Processing == 1 })
	status, hdr, body := s.do("POST", "/v1/completions", `{"prompt": "a second", "max_tokens": 2}`, "")
	require.Equal(t, 503, status, "a second request with MaxQueue 1: %s", body)
	require.Equal(t, "1", hdr.Get("Retry-After"))
	cancel()
	s.waitFreed("after the stream was canceled")
	_, finish, n := s.text(`{"prompt": "a third", "max_tokens": 2}`)
	require.Equal(t, 2, n, "a request after the first ended (finish %q)", finish)
}

// TestC13_4_Shutdown: when Run's context ends, Run returns; the requests
// in flight end with an error (503 before any output, an error event in a
// stream), and new requests get 503.
func TestC13_4_Shutdown(t *testing.T) {
	s := newServedWith(t, ServerOptions{}, setup{maxSeq: 4096})
	stream := s.cli.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: "forge", Prompt: textPrompt("streamed"), MaxTokens: openai.Int(4000)})
	require.True(t, stream.Next(), "a first chunk")
	whole := make(chan int, 1)
	go func() {
		status, _, _ := s.do("POST", "/v1/completions", `{"prompt": "whole", "max_tokens": 4000}`, "")
		whole <- status
	}()
	s.waitHealth("two requests running", func(h health) bool { return h.Processing == 2 })
	s.cancelRun()
	select {
	case err := <-s.runOK:
		require.NoError(t, err, "Run after its context ended")
		s.runOK <- nil // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of its context ending, with requests running")
	}
	for stream.Next() {
	}
	require.ErrorContains(t, stream.Err(), "shutting down", "a stream cut by the shutdown")
	require.Equal(t, 503, <-whole, "a whole answer cut by the shutdown")
	status, _, body := s.do("POST", "/v1/completions", `{"prompt": "late", "max_tokens": 2}`, "")
	require.Equal(t, 503, status, "a request after the shutdown: %s", body)
}

// TestC13_4_Idle: an idle server sleeps: it runs no scheduler steps until
// a request comes.
func TestC13_4_Idle(t *testing.T) {
	s := newServed(t, ServerOptions{})
	s.text(`{"prompt": "wake up", "max_tokens": 3}`)
	s.waitFreed("after a request")
	before := s.metric("forge_steps_total")
	require.GreaterOrEqual(t, before, 3.0, "three tokens take three steps")
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, before, s.metric("forge_steps_total"), "steps run by an idle server in 100 ms")
}

// TestC13_4_Concurrent: requests from eight clients at once, short and
// long, each get what one session generates greedily from their prompt,
// whatever runs beside them, and none waits for ever (a poke lost while
// the loop was busy would leave one queued).
func TestC13_4_Concurrent(t *testing.T) {
	s := newServed(t, ServerOptions{})
	type job struct {
		prompt string
		n      int
	}
	var jobs []job
	for i := range 40 {
		jobs = append(jobs, job{fmt.Sprintf("request %d says", i), 1 + i%5})
	}
	want := make([]string, len(jobs))
	for i, j := range jobs {
		want[i] = s.greedy(j.prompt, j.n)
	}
	got := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int, len(jobs))
	for i := range jobs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				res, err := s.cli.Completions.New(ctx, openai.CompletionNewParams{Model: "forge", Prompt: textPrompt(jobs[i].prompt), MaxTokens: openai.Int(int64(jobs[i].n)), Temperature: openai.Float(0)})
				cancel()
				if err != nil {
					errs[i] = err
					continue
				}
				got[i] = res.Choices[0].Text
			}
		})
	}
	wg.Wait()
	for i := range jobs {
		require.NoError(t, errs[i], "request %d (%q)", i, jobs[i].prompt)
		require.Equal(t, want[i], got[i], "request %d (%q, %d tokens) against its greedy text", i, jobs[i].prompt, jobs[i].n)
	}
	s.waitFreed("after concurrent requests")
}
