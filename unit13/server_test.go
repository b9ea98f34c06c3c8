package unit13

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit11"
)

// served is a server of a small random model over GPT-2's vocabulary, on
// a loopback listener, with its loop running.
type served struct {
	t     *testing.T
	m     *unit05.Model
	tok   *unit04.Tokenizer
	kv    *Pool
	srv   *Server
	http  *httptest.Server
	cli   openai.Client
	stop  func()
	runOK chan error
}

func newServed(t *testing.T, opt ServerOptions) *served {
	t.Helper()
	return newServedCtx(t, opt, 128)
}

// newServedCtx is newServed with a context of maxSeq positions (and a
// pool that holds it).
func newServedCtx(t *testing.T, opt ServerOptions, maxSeq int) *served {
	t.Helper()
	v, err := unit04.LoadVocab(filepath.Join("..", "unit04", "testdata", "ggml-vocab-gpt-2.gguf"))
	require.NoError(t, err)
	tok, err := unit04.New(v)
	require.NoError(t, err)
	c := unit05.Config{Dim: 32, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 8, FFN: 48, Vocab: tok.VocabSize(), MaxSeq: maxSeq, RopeBase: 10000, RMSEps: 1e-5, Rope: unit05.RopeNorm}
	w, err := unit05.RandomWeights(c, 7)
	require.NoError(t, err)
	m, err := unit05.NewModel(c, w, nil)
	require.NoError(t, err)
	kv, err := NewPool(c.Layers, c.KVDim(), max(40, maxSeq/BlockSize+2))
	require.NoError(t, err)
	r, err := NewRunner(m, kv, 64)
	require.NoError(t, err)
	sched, err := NewScheduler(r, SchedOptions{MaxRunning: 4, StepTokens: 64})
	require.NoError(t, err)
	srv, err := NewServer(sched, tok, opt)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{t: t, m: m, tok: tok, kv: kv, srv: srv, http: httptest.NewServer(srv.Handler()), runOK: make(chan error, 1)}
	go func() { s.runOK <- srv.Run(ctx) }()
	s.cli = openai.NewClient(option.WithBaseURL(s.http.URL+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0))
	s.stop = func() {
		s.http.Close()
		cancel()
		require.NoError(t, <-s.runOK, "Run")
	}
	t.Cleanup(s.stop)
	return s
}

// greedy is what one session generates from prompt at temperature 0.
func (s *served) greedy(prompt string, n int) string {
	s.t.Helper()
	p := unit11.DefaultParams()
	p.Temperature = 0
	smp, err := unit11.NewSampler(s.tok.VocabSize(), p)
	require.NoError(s.t, err)
	ids := s.tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true})
	res, err := unit11.Run(context.Background(), unit07.NewSession(s.m), smp, s.tok, ids, nil, unit11.Options{MaxTokens: n, StopTokens: []int{s.tok.EOS()}}, func(string) error { return nil })
	require.NoError(s.t, err)
	return res.Text
}

// waitFreed waits for every block of the pool to be free again.
func (s *served) waitFreed(what string) {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if s.kv.Free() == s.kv.Blocks() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("%s: %d of %d blocks free after 5 s", what, s.kv.Free(), s.kv.Blocks())
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
	s := newServedCtx(t, ServerOptions{}, 4096)
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
	var last struct {
		Choices []any          `json:"choices"`
		Usage   map[string]int `json:"usage"`
	}
	for i, ev := range events[:len(events)-1] {
		require.True(t, strings.HasPrefix(ev, "data: {"), "event %d: %q", i, ev)
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &last), "event %d", i)
	}
	require.Empty(t, last.Choices, "the usage chunk has no choices")
	require.Equal(t, 3, last.Usage["completion_tokens"])
}

func TestC13_4_BadRequests(t *testing.T) {
	s := newServed(t, ServerOptions{MaxBody: 4096, APIKey: "secret"})
	long := strings.Repeat("word ", 200)
	cases := []struct {
		what, method, path, body, key string
		status                        int
		param                         string
	}{
		{"malformed JSON", "POST", "/v1/completions", `{"prompt": "hi"`, "secret", 400, ""},
		{"an empty body", "POST", "/v1/completions", ``, "secret", 400, ""},
		{"a prompt of the wrong type", "POST", "/v1/completions", `{"prompt": 5}`, "secret", 400, "prompt"},
		{"max_tokens of the wrong type", "POST", "/v1/completions", `{"prompt": "hi", "max_tokens": "5"}`, "secret", 400, "max_tokens"},
		{"max_tokens < 0", "POST", "/v1/completions", `{"prompt": "hi", "max_tokens": -1}`, "secret", 400, "max_tokens"},
		{"n = 2", "POST", "/v1/completions", `{"prompt": "hi", "n": 2}`, "secret", 400, "n"},
		{"five stop strings", "POST", "/v1/completions", `{"prompt": "hi", "stop": ["a","b","c","d","e"]}`, "secret", 400, "stop"},
		{"a prompt longer than the context", "POST", "/v1/completions", `{"prompt": "` + long + `"}`, "secret", 400, "prompt"},
		{"a body over the limit", "POST", "/v1/completions", `{"prompt": "` + strings.Repeat("x", 5000) + `"}`, "secret", 413, ""},
		{"GET on completions", "GET", "/v1/completions", ``, "secret", 405, ""},
		{"POST on models", "POST", "/v1/models", `{}`, "secret", 405, ""},
		{"a wrong API key", "POST", "/v1/completions", `{"prompt": "hi"}`, "nope", 401, ""},
		{"no API key", "GET", "/v1/models", ``, "", 401, ""},
	}
	for _, tc := range cases {
		req, err := http.NewRequest(tc.method, s.http.URL+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		if tc.key != "" {
			req.Header.Set("Authorization", "Bearer "+tc.key)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, tc.status, resp.StatusCode, "%s: status (body %s)", tc.what, body)
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &e), "%s: an OpenAI error object, not %s", tc.what, body)
		require.NotEmpty(t, e.Error.Message, "%s: the error's message", tc.what)
		if tc.param != "" {
			require.NotNil(t, e.Error.Param, "%s: the error's param", tc.what)
			require.Equal(t, tc.param, *e.Error.Param, "%s: the error's param", tc.what)
		}
	}
	resp, err := http.Get(s.http.URL + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "/health needs no key")
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
	s := newServed(t, ServerOptions{})
	full := s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(10), Temperature: openai.Float(0)}).Choices[0].Text
	require.Greater(t, len(full), 4, "a greedy text to cut")
	cut := full[len(full)/2 : len(full)/2+2]
	res := s.complete(openai.CompletionNewParams{Prompt: textPrompt("Hello there"), MaxTokens: openai.Int(10), Temperature: openai.Float(0),
		Stop: openai.CompletionNewParamsStopUnion{OfString: openai.String(cut)}})
	require.Equal(t, full[:strings.Index(full, cut)], res.Choices[0].Text, "the text before the stop string %q of %q", cut, full)
	require.Equal(t, "stop", string(res.Choices[0].FinishReason))
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
