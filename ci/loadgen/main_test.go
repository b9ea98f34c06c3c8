package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fake is an OpenAI-compatible server that streams max_tokens chunks of
// "x", one a millisecond, and reports in /metrics how many streams run.
type fake struct {
	running atomic.Int64
	noEnd   bool // streams end without a finish_reason
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "fake", "object": "model", "created": 0, "owned_by": "test"}]}`)
	case "/metrics":
		fmt.Fprintf(w, "forge_requests_running %d\nforge_requests_waiting 0\nforge_kv_blocks_used %d\nforge_kv_blocks_free 10\ngo_goroutines 5\n", f.running.Load(), f.running.Load())
	case "/v1/completions":
		f.running.Add(1)
		defer f.running.Add(-1)
		w.Header().Set("Content-Type", "text/event-stream")
		for range 8 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
			fmt.Fprint(w, `data: {"id": "c", "object": "text_completion", "created": 0, "model": "fake", "choices": [{"index": 0, "text": "x", "finish_reason": null}]}`+"\n\n")
			w.(http.Flusher).Flush()
		}
		if !f.noEnd {
			fmt.Fprint(w, `data: {"id": "c", "object": "text_completion", "created": 0, "model": "fake", "choices": [{"index": 0, "text": "", "finish_reason": "length"}]}`+"\n\n")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	default:
		http.NotFound(w, r)
	}
}

func TestLoadgen(t *testing.T) {
	srv := httptest.NewServer(&fake{})
	defer srv.Close()
	var out strings.Builder
	err := run(config{url: srv.URL + "/v1", clients: 3, perClient: 2, requests: 20, cancel: 0.5, maxTokens: 8, timeout: time.Minute}, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"1 client                      4      32",
		"3 clients                     6      48",
		"churn (50% canceled)         20",
		"3 clients against 1:",
		"churn: 20 requests,",
		"0 failed or lost",
		"requests running 0, waiting 0, KV blocks used 0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, out.String())
		}
	}
}

// TestLoadgenFails: streams without a finish_reason are failures.
func TestLoadgenFails(t *testing.T) {
	srv := httptest.NewServer(&fake{noEnd: true})
	defer srv.Close()
	var out strings.Builder
	err := run(config{url: srv.URL + "/v1", clients: 2, perClient: 1, requests: 4, maxTokens: 8, timeout: time.Minute}, &out)
	if err == nil || !strings.Contains(err.Error(), "without a finish_reason") {
		t.Errorf("run against streams that end without a finish_reason: %v; want an error saying so\n%s", err, out.String())
	}
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, c := range []struct {
		p    int
		want time.Duration
	}{{50, 5}, {99, 10}, {10, 1}, {100, 10}, {1, 1}} {
		if got := pct(ds, c.p); got != c.want {
			t.Errorf("pct(1..10, %d) = %d, want %d", c.p, got, c.want)
		}
	}
	if pct(nil, 50) != 0 {
		t.Error("pct of nothing: want 0")
	}
}
