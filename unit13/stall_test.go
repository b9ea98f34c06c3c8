package unit13

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stallWriter is the server's side of a client that reads the first
// writes of an answer and then nothing: from write number stallAt on, a
// write waits for the deadline the server set (or 3 s if it set none)
// and fails as a network write past its deadline does; later writes fail
// at once. It records every
// deadline set, and every write after a failed one.
type stallWriter struct {
	mu          sync.Mutex
	header      http.Header
	stallAt     int
	writes      int
	deadline    time.Time
	deadlines   []time.Duration // each deadline, from the moment it was set
	failed      bool
	afterFailed int
}

func (w *stallWriter) Header() http.Header { return w.header }
func (w *stallWriter) WriteHeader(int)     {}
func (w *stallWriter) Flush()              {}

func (w *stallWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	w.deadlines = append(w.deadlines, time.Until(t))
	return nil
}

func (w *stallWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	if w.failed {
		w.afterFailed++
	}
	stall, deadline, dead := w.stallAt > 0 && w.writes >= w.stallAt, w.deadline, w.failed
	w.mu.Unlock()
	if !stall {
		return len(p), nil
	}
	if dead { // a connection whose write timed out fails at once
		return 0, os.ErrDeadlineExceeded
	}
	if deadline.IsZero() {
		deadline = time.Now().Add(3 * time.Second)
	}
	time.Sleep(time.Until(deadline))
	w.mu.Lock()
	w.failed = true
	w.mu.Unlock()
	return 0, os.ErrDeadlineExceeded
}

// serveStalled runs one streamed completion of n tokens through the
// server's handler into w and returns how long the handler took.
func serveStalled(s *served, w *stallWriter, n int) time.Duration {
	req := httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt": "a stalled client", "max_tokens": `+strconv.Itoa(n)+`, "stream": true}`))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	s.srv.Handler().ServeHTTP(w, req)
	return time.Since(start)
}

// TestC13_4_StalledClient: a streaming client that stops reading. Every
// write of an answer gets a deadline, WriteTimeout from the moment it is
// set; the write that stalls fails at its deadline, nothing more is
// written, the handler returns at once (it does not wait for a client
// that may never read again) and the request's slot and blocks are free.
// A WriteTimeout of 0 means DefaultWriteTimeout, a negative one no
// deadline at all.
func TestC13_4_StalledClient(t *testing.T) {
	const timeout = 50 * time.Millisecond
	s := newServed(t, ServerOptions{WriteTimeout: timeout})
	w := &stallWriter{header: http.Header{}, stallAt: 3}
	took := serveStalled(s, w, 60)
	require.Less(t, took, 2*time.Second, "the handler of a client that stopped reading returned after %v: give each write a deadline of WriteTimeout (%v) and end the answer when a write fails", took, timeout)
	require.True(t, w.failed, "no write stalled: the answer was %d writes", w.writes)
	require.Zero(t, w.afterFailed, "%d writes after a write failed: a client that stalled is gone", w.afterFailed)
	require.GreaterOrEqual(t, len(w.deadlines), w.writes, "%d deadlines for %d writes: set one before every write", len(w.deadlines), w.writes)
	for i, d := range w.deadlines {
		require.InDelta(t, float64(timeout), float64(d), float64(40*time.Millisecond), "deadline %d was %v after it was set, want WriteTimeout %v", i, d, timeout)
	}
	s.waitFreed("after a stalled client")

	for _, c := range []struct {
		opt  time.Duration
		want time.Duration // 0: no deadline
	}{{0, DefaultWriteTimeout}, {-1, 0}} {
		s := newServed(t, ServerOptions{WriteTimeout: c.opt})
		w := &stallWriter{header: http.Header{}}
		serveStalled(s, w, 3)
		require.NotZero(t, w.writes, "WriteTimeout %v: nothing written", c.opt)
		if c.want == 0 {
			require.Empty(t, w.deadlines, "WriteTimeout %v (no limit): deadlines set", c.opt)
			continue
		}
		require.NotEmpty(t, w.deadlines, "WriteTimeout %v: no deadline set", c.opt)
		for _, d := range w.deadlines {
			require.InDelta(t, float64(c.want), float64(d), float64(time.Second), "WriteTimeout %v: a deadline %v ahead, want %v", c.opt, d, c.want)
		}
	}

	// A ResponseWriter with neither deadlines nor Flush (a wrapper that
	// hides them): the answer is written whole all the same.
	pw := &plainWriter{header: http.Header{}}
	req := httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt": "a plain writer", "max_tokens": 3, "stream": true}`))
	req.Header.Set("Content-Type", "application/json")
	s.srv.Handler().ServeHTTP(pw, req)
	require.True(t, strings.HasSuffix(pw.body.String(), "data: [DONE]\n\n"), "a stream into a writer that cannot flush or take deadlines was cut short:\n%s", pw.body.String())
}

// plainWriter is a ResponseWriter and nothing more.
type plainWriter struct {
	header http.Header
	body   strings.Builder
}

func (w *plainWriter) Header() http.Header         { return w.header }
func (w *plainWriter) WriteHeader(int)             {}
func (w *plainWriter) Write(p []byte) (int, error) { return w.body.Write(p) }
