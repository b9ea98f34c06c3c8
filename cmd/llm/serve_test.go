package main

import (
	"context"
	"io"
	"net/http"
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

// TestServe runs llm serve on a free loopback port, asks it for a
// streamed and a whole completion with the OpenAI SDK, checks /health and
// the request log, and stops it as SIGINT would: it exits 0.
func TestServe(t *testing.T) {
	path := tinyModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"serve", "-m", path, "--port", "0", "-np", "2", "-c", "256", "-t", "1", "--alias", "tiny"}, &stdout, &stderr)
	}()
	addr := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)`)
	base := ""
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		}
		select {
		case status := <-done:
			t.Fatalf("llm serve exited with status %d before listening: %s", status, stderr.String())
		default:
		}
	}
	if base == "" {
		t.Fatalf("llm serve did not say where it listens within 30 s: %s", stderr.String())
	}
	cli := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0))
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
	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"slots_idle":2`) {
		t.Errorf("/health: %d %s: want 200 and two idle slots", resp.StatusCode, body)
	}
	cancel()
	select {
	case status := <-done:
		if status != 0 {
			t.Errorf("llm serve exited %d after the shutdown, want 0: %s", status, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("llm serve did not exit within 15 s of the shutdown")
	}
	if n := strings.Count(stderr.String(), `msg=request method=POST path=/v1/completions status=200`); n != 2 {
		t.Errorf("the log has %d lines for the two completions, want 2:\n%s", n, stderr.String())
	}
	if stdout.String() != "" {
		t.Errorf("llm serve wrote to stdout: %q", stdout.String())
	}
}
