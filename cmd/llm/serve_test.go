package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// lockedBuffer is a buffer that a running command writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// served is a running llm serve: its base URL, its log, and its exit
// status once stopped.
type served struct {
	base           string
	stdout, stderr *lockedBuffer
	cancel         func()
	done           chan int
}

// startServe runs llm serve with args on a free loopback port and waits
// until it says where it listens.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(cancel)
	go func() {
		s.done <- runContext(ctx, append([]string{"serve", "--port", "0"}, args...), s.stdout, s.stderr)
	}()
	addr := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); s.base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
		}
		select {
		case status := <-s.done:
			t.Fatalf("llm serve exited with status %d before listening: %s", status, s.stderr.String())
		default:
		}
	}
	if s.base == "" {
		t.Fatalf("llm serve did not say where it listens within 30 s: %s", s.stderr.String())
	}
	return s
}

// stop shuts the server down as SIGINT would; it must exit 0 within 15 s.
func (s *served) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case status := <-s.done:
		if status != 0 {
			t.Errorf("llm serve exited %d after the shutdown, want 0: %s", status, s.stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("llm serve did not exit within 15 s of the shutdown")
	}
	if s.stdout.String() != "" {
		t.Errorf("llm serve wrote to stdout: %q", s.stdout.String())
	}
}

func (s *served) client() openai.Client {
	return openai.NewClient(option.WithBaseURL(s.base+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0))
}

// TestServe runs llm serve on a free loopback port, asks it for a
// streamed and a whole completion with the OpenAI SDK, checks /health and
// the request log, and stops it as SIGINT would: it exits 0.
func TestServe(t *testing.T) {
	path := tinyModel(t)
	s := startServe(t, "-m", path, "-np", "2", "-c", "256", "-t", "1", "--alias", "tiny")
	ctx := context.Background()
	cli := s.client()
	stream := cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{Model: "tiny", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")}, MaxTokens: openai.Int(6), Temperature: openai.Float(0)})
	var text strings.Builder
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			text.WriteString(c.Text)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("streamed completion: %v", err)
	}
	whole, err := cli.Completions.New(ctx, openai.CompletionNewParams{Model: "tiny", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("Once upon a time")}, MaxTokens: openai.Int(6), Temperature: openai.Float(0)})
	if err != nil {
		t.Fatalf("completion: %v", err)
	}
	if whole.Choices[0].Text != text.String() || text.Len() == 0 {
		t.Errorf("greedy completions: streamed %q, whole %q: want the same, not empty", text.String(), whole.Choices[0].Text)
	}
	models, err := cli.Models.List(ctx)
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != "tiny" {
		t.Errorf("/v1/models: %v, %+v: want the one model, named by --alias", err, models)
	}
	status, body := httpGet(t, s.base+"/health")
	if status != 200 || !strings.Contains(body, `"slots_idle":2`) {
		t.Errorf("/health: %d %s: want 200 and two idle slots", status, body)
	}
	// GPT-2's vocabulary has no chat template: a chat is an error that
	// says how to give one.
	_, err = cli.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "tiny", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "--chat-template") {
		t.Errorf("a chat without a template: %v, want a 400 whose message names --chat-template", err)
	}
	s.stop(t)
	if n := strings.Count(s.stderr.String(), `msg=request method=POST path=/v1/completions status=200`); n != 2 {
		t.Errorf("the log has %d lines for the two completions, want 2:\n%s", n, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "chat_template=none") {
		t.Errorf("the log does not say the server has no chat template:\n%s", s.stderr.String())
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// chat asks for a greedy chat completion of 6 tokens.
func chat(t *testing.T, cli openai.Client, msgs ...openai.ChatCompletionMessageParamUnion) *openai.ChatCompletion {
	t.Helper()
	res, err := cli.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m", Messages: msgs, MaxTokens: openai.Int(6), Temperature: openai.Float(0)})
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	if len(res.Choices) != 1 || res.Choices[0].Message.Role != "assistant" || res.Usage.PromptTokens == 0 {
		t.Fatalf("chat: %+v: want one assistant message and the prompt's tokens", res)
	}
	return res
}

// TestServeChat: a model generated with Phi-3's vocabulary carries
// Phi-3's chat template, and llm serve renders chats with it; with
// --chat-template zephyr the same model renders them as TinyLlama's, a
// longer prompt; --chat-template-file reads a template.
func TestServeChat(t *testing.T) {
	path := spmModel(t)
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Hello!")}
	own := startServe(t, "-m", path, "-np", "1", "-c", "128", "-t", "1", "--alias", "m")
	phi := chat(t, own.client(), msgs...)
	own.stop(t)
	if !strings.Contains(own.stderr.String(), `chat_template="the model's"`) {
		t.Errorf("the log does not say the model's template is used:\n%s", own.stderr.String())
	}
	zephyr := startServe(t, "-m", path, "-np", "1", "-c", "128", "-t", "1", "--alias", "m", "--chat-template", "zephyr")
	z := chat(t, zephyr.client(), msgs...)
	zephyr.stop(t)
	// Phi-3's template drops the system message; zephyr's keeps it.
	if z.Usage.PromptTokens <= phi.Usage.PromptTokens {
		t.Errorf("prompt tokens: zephyr %d, Phi-3 %d: zephyr keeps the system message, Phi-3's template drops it", z.Usage.PromptTokens, phi.Usage.PromptTokens)
	}
	file := filepath.Join(t.TempDir(), "t.jinja")
	if err := os.WriteFile(file, []byte("{% for m in messages %}{{ m.content }}{% endfor %}"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := startServe(t, "-m", path, "-np", "1", "-c", "128", "-t", "1", "--alias", "m", "--chat-template-file", file)
	p := chat(t, plain.client(), msgs...)
	plain.stop(t)
	if p.Usage.PromptTokens >= phi.Usage.PromptTokens {
		t.Errorf("prompt tokens: a template of the bare contents %d, Phi-3's %d: want fewer", p.Usage.PromptTokens, phi.Usage.PromptTokens)
	}
}

func TestServeBadChatFlags(t *testing.T) {
	path := tinyModel(t)
	bad := filepath.Join(t.TempDir(), "bad.jinja")
	if err := os.WriteFile(bad, []byte("{% for m in messages %}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chat-template", "vicuna"}, "chatml, llama3, mistral, phi3, zephyr"},
		{[]string{"--chat-template", "zephyr", "--chat-template-file", bad}, "give one"},
		{[]string{"--chat-template-file", filepath.Join(t.TempDir(), "missing.jinja")}, "missing.jinja"},
		{[]string{"--chat-template-file", bad}, "chat template"},
	} {
		r := llm(append([]string{"serve", "-m", path, "--port", "0"}, tc.args...)...)
		if r.status == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("llm serve %q: status %d, stderr %q: want a failure that says %q", tc.args, r.status, r.stderr, tc.want)
		}
	}
}
