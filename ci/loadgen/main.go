// Command loadgen measures an OpenAI-compatible server (llm serve, or
// llama-server) with the official OpenAI Go SDK: the generated tokens per
// second of one streaming client against many, the time to the first
// token and between tokens, and a churn of requests of which some are
// canceled mid-stream, after which the server must hold no request, no KV
// block and no more goroutines than before.
//
//	go run ./ci/loadgen -url http://127.0.0.1:8080/v1 [-clients 8] [-requests 200] [-cancel 0.3]
//
// It sends traffic only to the URL it is given; every phase is bounded in
// requests and in time.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

type config struct {
	url, model        string
	clients, requests int
	perClient         int
	cancel            float64
	maxTokens         int
	timeout           time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8080/v1", "the server's base URL, /v1 included")
	flag.StringVar(&c.model, "model", "", "the model name to send (default: the server's first in /v1/models)")
	flag.IntVar(&c.clients, "clients", 8, "concurrent clients of the many-clients and churn phases")
	flag.IntVar(&c.perClient, "per-client", 4, "requests each client makes in the throughput phases")
	flag.IntVar(&c.requests, "requests", 200, "requests of the churn phase")
	flag.Float64Var(&c.cancel, "cancel", 0.3, "the fraction of churn requests canceled mid-stream")
	flag.IntVar(&c.maxTokens, "max-tokens", 64, "max_tokens of every request")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Minute, "the most the whole run may take")
	flag.Parse()
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// result is what one streamed request saw.
type result struct {
	tokens   int             // chunks with text: one per token for llm serve
	ttft     time.Duration   // from sending to the first text
	gaps     []time.Duration // between texts
	finish   string
	canceled bool
	err      error
}

func run(c config, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.clients}}
	cli := openai.NewClient(option.WithBaseURL(c.url), option.WithAPIKey("loadgen"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	if c.model == "" {
		models, err := cli.Models.List(ctx)
		if err != nil {
			return fmt.Errorf("GET %s/models: %w", c.url, err)
		}
		if len(models.Data) == 0 {
			return fmt.Errorf("GET %s/models: no models", c.url)
		}
		c.model = models.Data[0].ID
	}
	// One request first, not measured: a server's first request pays for
	// what the first use of its weights costs (page faults on a mapped
	// file, repacking), which belongs to no phase's throughput.
	if warm, _ := phase(ctx, cli, c, 1, 1, 0); len(warm) == 1 && warm[0].err != nil {
		return fmt.Errorf("the warm-up request: %w", warm[0].err)
	}
	hc.CloseIdleConnections()
	before, err := scrape(ctx, c.url)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "loadgen: %s, model %q, max_tokens %d\n\n", c.url, c.model, c.maxTokens)
	fmt.Fprintf(out, "%-22s %8s %7s %7s %8s %9s %9s %8s %8s\n", "phase", "requests", "tokens", "wall_s", "tok/s", "ttft_p50", "ttft_p99", "itl_p50", "itl_p99")
	one, oneWall := phase(ctx, cli, c, 1, c.perClient*2, 0)
	report(out, "1 client", one, oneWall)
	many, manyWall := phase(ctx, cli, c, c.clients, c.clients*c.perClient, 0)
	report(out, fmt.Sprintf("%d clients", c.clients), many, manyWall)
	churn, churnWall := phase(ctx, cli, c, c.clients, c.requests, c.cancel)
	report(out, fmt.Sprintf("churn (%.0f%% canceled)", 100*c.cancel), churn, churnWall)

	ratio := rate(many, manyWall) / rate(one, oneWall)
	fmt.Fprintf(out, "\n%d clients against 1: %.2fx the generated tokens per second\n", c.clients, ratio)
	var failed []string
	for _, p := range [][]result{one, many, churn} {
		for _, r := range p {
			switch {
			case r.err != nil && !r.canceled:
				failed = append(failed, r.err.Error())
			case !r.canceled && r.finish == "":
				failed = append(failed, "a stream ended without a finish_reason")
			}
		}
	}
	canceled := 0
	for _, r := range churn {
		if r.canceled {
			canceled++
		}
	}
	fmt.Fprintf(out, "churn: %d requests, %d canceled mid-stream, %d complete, %d failed or lost\n", len(churn), canceled, len(churn)-canceled-countFailed(churn), countFailed(churn))
	hc.CloseIdleConnections() // an idle keep-alive connection holds a goroutine of the server's
	after, err := settle(ctx, c.url, before)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after: %s\n", after)
	if len(failed) > 0 {
		return fmt.Errorf("%d requests failed; the first: %s", len(failed), failed[0])
	}
	return nil
}

// phase runs n streamed requests from k clients at once; a fraction
// cancel of them is canceled after a random number of tokens.
func phase(ctx context.Context, cli openai.Client, c config, k, n int, cancel float64) ([]result, time.Duration) {
	results := make([]result, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range k {
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		wg.Go(func() {
			for i := range next {
				stopAfter := -1
				if rng.Float64() < cancel {
					stopAfter = 1 + rng.IntN(max(1, c.maxTokens/2))
				}
				results[i] = stream(ctx, cli, c, i, stopAfter)
			}
		})
	}
	wg.Wait()
	return results, time.Since(start)
}

// stream runs request i, canceling it after stopAfter tokens (never if
// negative).
func stream(ctx context.Context, cli openai.Client, c config, i, stopAfter int) result {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	prompt := fmt.Sprintf("Request %d: tell a long story about the number %d and the river that ran past its house.", i, i)
	start := time.Now()
	s := cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model: openai.CompletionNewParamsModel(c.model), Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
		MaxTokens: openai.Int(int64(c.maxTokens)), Temperature: openai.Float(0),
	})
	var r result
	last := start
	for s.Next() {
		for _, ch := range s.Current().Choices {
			if ch.Text != "" {
				now := time.Now()
				if r.tokens == 0 {
					r.ttft = now.Sub(start)
				} else {
					r.gaps = append(r.gaps, now.Sub(last))
				}
				last = now
				r.tokens++
			}
			if ch.FinishReason != "" {
				r.finish = string(ch.FinishReason)
			}
		}
		if stopAfter >= 0 && r.tokens >= stopAfter {
			r.canceled = true
			cancel()
		}
	}
	if err := s.Err(); err != nil && !(r.canceled && errors.Is(err, context.Canceled)) {
		r.err = err
	}
	return r
}

func countFailed(rs []result) int {
	n := 0
	for _, r := range rs {
		if !r.canceled && (r.err != nil || r.finish == "") {
			n++
		}
	}
	return n
}

func rate(rs []result, wall time.Duration) float64 {
	n := 0
	for _, r := range rs {
		n += r.tokens
	}
	return float64(n) / wall.Seconds()
}

func report(out io.Writer, name string, rs []result, wall time.Duration) {
	var ttft, gaps []time.Duration
	tokens := 0
	for _, r := range rs {
		tokens += r.tokens
		if r.tokens > 0 {
			ttft = append(ttft, r.ttft)
		}
		gaps = append(gaps, r.gaps...)
	}
	fmt.Fprintf(out, "%-22s %8d %7d %7.2f %8.1f %9s %9s %8s %8s\n", name, len(rs), tokens, wall.Seconds(), rate(rs, wall),
		ms(pct(ttft, 50)), ms(pct(ttft, 99)), ms(pct(gaps, 50)), ms(pct(gaps, 99)))
}

// pct is the p-th percentile of ds (nearest rank), 0 for none.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

// gauges are the server's /metrics values loadgen checks.
type gauges map[string]float64

func (g gauges) String() string {
	return fmt.Sprintf("requests running %v, waiting %v, KV blocks used %v, free %v, goroutines %v",
		g["forge_requests_running"], g["forge_requests_waiting"], g["forge_kv_blocks_used"], g["forge_kv_blocks_free"], g["go_goroutines"])
}

// scraper opens a connection per scrape, so that it leaves none behind.
var scraper = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// scrape reads the gauges of the server's /metrics (next to /v1).
func scrape(ctx context.Context, base string) (gauges, error) {
	url := strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1") + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := scraper.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	g := gauges{}
	for line := range strings.Lines(string(body)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			g[name] = v
		}
	}
	return g, nil
}

// settle waits up to 10 s for the server to be idle again and checks that
// it holds no request and no block, and no more goroutines than before
// (a server without these metrics is not checked).
func settle(ctx context.Context, base string, before gauges) (gauges, error) {
	var g gauges
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if g, err = scrape(ctx, base); err != nil {
			return nil, err
		}
		if g["forge_requests_running"] == 0 && g["forge_requests_waiting"] == 0 && g["forge_kv_blocks_used"] == 0 && g["go_goroutines"] <= before["go_goroutines"] {
			return g, nil
		}
	}
	return g, fmt.Errorf("the server is not back to idle 10 s after the load: %s (before: %s)", g, before)
}
