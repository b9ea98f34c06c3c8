package unit13

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/llmforge/forge/testkit/testmodel"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
)

// The boss "serve the crowd": many clients share one model's forward
// passes, and nothing is lost or left behind when they come and go.
//
// Its condition (TestBoss13): 200 streamed requests (60 with -short) from
// 8 clients at once, 30% of them canceled after a random number of tokens,
// on the small served model: every request not canceled ends with a
// finish_reason, none fails, and afterwards the pool is whole again (no
// request running or waiting, no block in use) and the goroutines are back
// to what they were.
//
// Its figures (BenchmarkBoss13), on a TinyLlama-shaped Q4_0 model served as
// `llm serve -np 8 -c 512` serves it, on every core: 8 streaming clients
// at once against one client alone, the generated tokens per second of
// each (the ratio must be at least 3: batching must pay); the KV memory
// the paged cache wastes while they run (positions reserved in blocks but
// holding no token) as a share of the memory a contiguous cache reserves
// for a full context per slot (at most 4%); the same churn as the test,
// here on the real model's timing; and the times to the first token and
// between tokens of the 8 clients, p50 and p99.

const (
	crowdClients   = 8   // concurrent clients, and the served slots
	crowdCancel    = 0.3 // the share of the churn's requests canceled
	crowdMaxTokens = 128 // max_tokens of the throughput phases
	crowdContext   = 512 // positions per slot (-c)
)

// crowdRequests is the churn's number of requests: 200, or 60 with -short.
func crowdRequests() int {
	if testing.Short() {
		return 60
	}
	return 200
}

// crowdPrompt is request i's prompt: each starts differently, so that no
// two share a block of the prefix cache.
func crowdPrompt(i int) string {
	return fmt.Sprintf("Request %d of the crowd: tell a long story about the number %d and the river that ran past its house.", i, i)
}

// crowdResult is what one streamed request saw.
type crowdResult struct {
	chunks   int             // text chunks received
	tokens   int             // completion tokens, from the usage chunk (chunks if none came)
	finish   string          // the finish_reason, "" if none came
	canceled bool            // the client canceled it
	err      error           // an error other than the client's own cancellation
	ttft     time.Duration   // from the request to its first text chunk
	gaps     []time.Duration // between text chunks
}

// crowdStream sends request i through cli with the given max_tokens and
// cancels it once it has seen cancelAfter text chunks (never if it is 0).
// seen, if not nil, is told the number of text chunks after each one, and
// −1 once the request has ended (with a finish_reason or otherwise).
func crowdStream(cli openai.Client, i, maxTokens, cancelAfter int, seen func(chunks int)) crowdResult {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	s := cli.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model: "forge", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(crowdPrompt(i))},
		MaxTokens: openai.Int(int64(maxTokens)), Temperature: openai.Float(0),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var r crowdResult
	last := start
	for s.Next() {
		chunk := s.Current()
		for _, ch := range chunk.Choices {
			if ch.Text != "" {
				now := time.Now()
				if r.chunks == 0 {
					r.ttft = now.Sub(start)
				} else {
					r.gaps = append(r.gaps, now.Sub(last))
				}
				last = now
				r.chunks++
			}
			if ch.FinishReason != "" {
				r.finish = string(ch.FinishReason)
			}
		}
		if seen != nil && r.finish == "" {
			seen(r.chunks)
		}
		if chunk.Usage.CompletionTokens > 0 {
			r.tokens = int(chunk.Usage.CompletionTokens)
		}
		if cancelAfter > 0 && r.chunks >= cancelAfter && r.finish == "" {
			r.canceled = true
			cancel()
		}
	}
	if err := s.Err(); err != nil && !(r.canceled && errors.Is(err, context.Canceled)) {
		r.err = err
	}
	if r.tokens == 0 {
		r.tokens = r.chunks
	}
	if seen != nil {
		seen(-1)
	}
	return r
}

// crowd runs requests first … first+n−1 from clients goroutines at once,
// each taking the next request when its last ends; cancelAfter(i) says
// after how many chunks request i is canceled (0: never). It returns the
// results in request order and the wall time of the whole.
func crowd(cli openai.Client, first, n, clients, maxTokens int, cancelAfter func(i int) int, seen func(i, chunks int)) ([]crowdResult, time.Duration) {
	results := make([]crowdResult, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range next {
				var s func(int)
				if seen != nil {
					seen(i, 0)
					s = func(chunks int) { seen(i, chunks) }
				}
				results[i] = crowdStream(cli, first+i, maxTokens, cancelAfter(i), s)
			}
		})
	}
	wg.Wait()
	return results, time.Since(start)
}

// churn is the boss's churn on cli: crowdRequests() requests of up to
// maxTokens tokens from crowdClients clients, the share crowdCancel of
// them (drawn with seed) canceled after 1 … maxTokens−1 chunks. It
// returns the results and a description of every request that was lost:
// one not canceled that failed or ended without a finish_reason.
func churn(cli openai.Client, first, maxTokens int, seed uint64) (rs []crowdResult, lost []string) {
	n := crowdRequests()
	g := rand.New(rand.NewPCG(seed, 13))
	after := make([]int, n)
	for i := range after {
		if g.Float64() < crowdCancel {
			after[i] = 1 + g.IntN(maxTokens-1)
		}
	}
	rs, _ = crowd(cli, first, n, crowdClients, maxTokens, func(i int) int { return after[i] }, nil)
	for i, r := range rs {
		switch {
		case r.canceled:
		case r.err != nil:
			lost = append(lost, fmt.Sprintf("request %d failed after %d chunks: %v", i, r.chunks, r.err))
		case r.finish == "":
			lost = append(lost, fmt.Sprintf("request %d ended after %d chunks without a finish_reason", i, r.chunks))
		}
	}
	return rs, lost
}

// settle waits up to 10 s for the server behind metric to be idle with
// no block in use, and then for the goroutines to come back to base
// (client connections closed by closeIdle); it describes what did not.
func settle(metric func(string) float64, closeIdle func(), base int) (blocks float64, goroutines int, problems []string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		running, waiting := metric("forge_requests_running"), metric("forge_requests_waiting")
		blocks = metric("forge_kv_blocks_used")
		if running == 0 && waiting == 0 && blocks == 0 {
			break
		}
		if time.Now().After(deadline) {
			problems = append(problems, fmt.Sprintf("10 s after the last request: %v requests running, %v waiting, %v KV blocks in use: a request that ended (or was canceled) still holds its slot or its blocks", running, waiting, blocks))
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		closeIdle()
		goroutines = runtime.NumGoroutine() - base
		if goroutines <= 0 {
			return blocks, 0, problems
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			problems = append(problems, fmt.Sprintf("10 s after the last request: %d goroutines more than before the requests; the stacks:\n%s", goroutines, buf))
			return blocks, goroutines, problems
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBoss13_ServeTheCrowd(t *testing.T) {
	if os.Getenv("FORGE_EMULATED") != "" {
		// The churn checks the server's bookkeeping, which is the same Go on
		// every architecture; under qemu it takes half a minute.
		t.Skipf("skipped under emulation (FORGE_EMULATED=%s)", os.Getenv("FORGE_EMULATED"))
	}
	s := newServedWith(t, ServerOptions{}, setup{maxSeq: 256, blocks: 4 * 256 / BlockSize})
	transport := &http.Transport{MaxIdleConnsPerHost: crowdClients}
	cli := openai.NewClient(option.WithBaseURL(s.http.URL+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: transport}))
	transport.CloseIdleConnections()
	base := runtime.NumGoroutine()
	rs, lost := churn(cli, 0, 24, 1)
	canceled := 0
	for _, r := range rs {
		if r.canceled {
			canceled++
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d requests (%d canceled by their clients) were lost, the first: %s", len(lost), len(rs), canceled, lost[0])
	}
	if canceled == 0 || canceled == len(rs) {
		t.Fatalf("the churn canceled %d of %d requests: the test meant about %.0f%%", canceled, len(rs), 100*crowdCancel)
	}
	metric := func(name string) float64 { return metricOver(transport, s.http.URL, name) }
	_, _, problems := settle(metric, transport.CloseIdleConnections, base)
	for _, p := range problems {
		t.Error(p)
	}
}

// crowdServer is the TinyLlama-shaped model served on loopback as
// `llm serve -np 8 -c 512 -t NumCPU` serves it.
type crowdServer struct {
	http      *httptest.Server
	transport *http.Transport
	cli       openai.Client
	kv        *Pool
	stop      func() error
}

var crowdModel struct {
	once sync.Once
	m    *unit05.Model
	tok  *unit04.Tokenizer
	err  error
}

// newCrowdServer serves the model (built once per process; its weights
// are packed at their first product) on a fresh pool and scheduler.
func newCrowdServer(b *testing.B) *crowdServer {
	crowdModel.once.Do(func() {
		v, err := unit04.LoadVocab(filepath.Join("..", "unit04", "testdata", "ggml-vocab-llama-spm.gguf"))
		if err != nil {
			crowdModel.err = err
			return
		}
		if crowdModel.tok, err = unit04.New(v); err != nil {
			crowdModel.err = err
			return
		}
		c, w, err := testmodel.TinyLlama(crowdContext, 13)
		if err != nil {
			crowdModel.err = err
			return
		}
		crowdModel.m, crowdModel.err = unit05.NewModel(c, w, unit03.NewPool(runtime.NumCPU()))
	})
	if crowdModel.err != nil {
		b.Fatal(crowdModel.err)
	}
	m := crowdModel.m
	c := m.Config
	kv, err := NewPool(c.Layers, c.KVDim(), crowdClients*crowdContext/BlockSize)
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewRunner(m, kv, 512)
	if err != nil {
		b.Fatal(err)
	}
	sched, err := NewScheduler(r, SchedOptions{MaxRunning: crowdClients, StepTokens: 512})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := NewServer(sched, crowdModel.tok, ServerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- srv.Run(ctx) }()
	cs := &crowdServer{http: httptest.NewServer(srv.Handler()), transport: &http.Transport{MaxIdleConnsPerHost: crowdClients}, kv: kv}
	cs.cli = openai.NewClient(option.WithBaseURL(cs.http.URL+"/v1"), option.WithAPIKey("none"), option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: cs.transport}))
	cs.stop = func() error {
		cs.transport.CloseIdleConnections()
		cs.http.Close()
		cancel()
		return <-runErr
	}
	return cs
}

// metric reads one sample's value from /metrics (−1 if it cannot).
func (cs *crowdServer) metric(name string) float64 {
	return metricOver(cs.transport, cs.http.URL, name)
}

// metricOver reads one sample's value from the /metrics of the server at
// url through transport (−1 if it cannot): the boss closes the idle
// connections of its own transport before it counts goroutines.
func metricOver(transport *http.Transport, url, name string) float64 {
	resp, err := transport.RoundTrip(mustRequest(url + "/metrics"))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return -1
}

func mustRequest(url string) *http.Request {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		panic(err)
	}
	return req
}

// crowdFigures are one round's: 8 clients against 1, and the waste.
type crowdFigures struct {
	ratio, waste      float64
	ttft, gaps        []time.Duration
	oneTokS, manyTokS float64
}

// crowdRound runs one client's requests (two), then eight clients' (two
// each), and samples the KV blocks in use against the positions the eight
// clients' requests hold while they run.
func (cs *crowdServer) crowdRound(b *testing.B, first int) crowdFigures {
	never := func(int) int { return 0 }
	one, oneWall := crowd(cs.cli, first, 2, 1, crowdMaxTokens, never, nil)
	first += 2
	n := 2 * crowdClients
	prompt := make([]int, n)
	for i := range n {
		prompt[i] = len(crowdModel.tok.Encode(crowdPrompt(first+i), unit04.EncodeOptions{AddSpecial: true}))
	}
	// held[i] is the positions request i holds while it runs: its prompt
	// and every token it has received but the last (sampled, not yet run
	// through the model); 0 before it starts and once it has ended; −1
	// from its start to its first token, when the client cannot tell
	// whether its prompt is in the cache yet: no sample is taken then.
	var mu sync.Mutex
	held := make([]int, n)
	done := make(chan struct{})
	var samples []float64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		reserved := float64(cs.kv.Blocks() * BlockSize)
		for {
			select {
			case <-done:
				return
			case <-time.After(7 * time.Millisecond):
			}
			used := cs.metric("forge_kv_blocks_used")
			mu.Lock()
			positions, pending := 0, false
			for _, h := range held {
				positions += max(h, 0)
				pending = pending || h < 0
			}
			mu.Unlock()
			if used > 0 && !pending {
				samples = append(samples, max(0, used*BlockSize-float64(positions))/reserved)
			}
		}
	}()
	many, manyWall := crowd(cs.cli, first, n, crowdClients, crowdMaxTokens, never, func(i, chunks int) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case chunks < 0:
			held[i] = 0
		case chunks == 0:
			held[i] = -1
		default:
			held[i] = prompt[i] + chunks - 1
		}
	})
	close(done)
	<-sampled
	if len(samples) == 0 {
		b.Fatal("no sample of the KV blocks in use was taken while the eight clients ran")
	}
	f := crowdFigures{oneTokS: tokS(one, oneWall), manyTokS: tokS(many, manyWall)}
	f.ratio = f.manyTokS / f.oneTokS
	for _, w := range samples {
		f.waste += 100 * w / float64(len(samples))
	}
	for _, r := range many {
		if r.err != nil || r.finish == "" {
			b.Fatalf("a request of the eight clients failed or ended without a finish_reason after %d chunks: %v", r.chunks, r.err)
		}
		f.ttft = append(f.ttft, r.ttft)
		f.gaps = append(f.gaps, r.gaps...)
	}
	return f
}

func tokS(rs []crowdResult, wall time.Duration) float64 {
	n := 0
	for _, r := range rs {
		n += r.tokens
	}
	return float64(n) / wall.Seconds()
}

// pctMs is the p-th percentile (nearest rank) of ds in milliseconds.
func pctMs(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, (p*len(s)+99)/100-1)]) / float64(time.Millisecond)
}

// crowdChurn is the churn's figures, measured once per process (the
// benchmark's runs report them again).
var crowdChurn struct {
	done                       bool
	lost, blocks, goroutines   float64
	requests, canceled, tokens int
}

func BenchmarkBoss13_ServeTheCrowd(b *testing.B) {
	cs := newCrowdServer(b)
	defer func() {
		if err := cs.stop(); err != nil {
			b.Errorf("Run: %v", err)
		}
	}()
	// A warm-up request packs the weights and faults in their pages.
	if r := crowdStream(cs.cli, -1, 8, 0, nil); r.err != nil {
		b.Fatalf("the warm-up request: %v", r.err)
	}
	var f crowdFigures
	for b.Loop() {
		f = cs.crowdRound(b, 1000)
	}
	if !crowdChurn.done {
		cs.transport.CloseIdleConnections()
		base := runtime.NumGoroutine()
		rs, lost := churn(cs.cli, 100000, 32, 2)
		blocks, goroutines, problems := settle(cs.metric, cs.transport.CloseIdleConnections, base)
		for _, p := range problems {
			b.Log(p)
		}
		for _, l := range lost {
			b.Log(l)
		}
		crowdChurn.done, crowdChurn.lost, crowdChurn.blocks, crowdChurn.goroutines = true, float64(len(lost)), blocks, float64(goroutines)
		crowdChurn.requests = len(rs)
		for _, r := range rs {
			crowdChurn.tokens += r.chunks
			if r.canceled {
				crowdChurn.canceled++
			}
		}
	}
	b.ReportMetric(f.ratio, "clients-8-x-1")
	b.ReportMetric(f.waste, "kv-waste-%")
	b.ReportMetric(crowdChurn.lost, "churn-lost")
	b.ReportMetric(crowdChurn.blocks, "churn-blocks-leaked")
	b.ReportMetric(crowdChurn.goroutines, "churn-goroutines-leaked")
	b.ReportMetric(f.oneTokS, "1-client-tok/s")
	b.ReportMetric(f.manyTokS, "8-clients-tok/s")
	b.ReportMetric(pctMs(f.ttft, 50), "ttft-p50-ms")
	b.ReportMetric(pctMs(f.ttft, 99), "ttft-p99-ms")
	b.ReportMetric(pctMs(f.gaps, 50), "itl-p50-ms")
	b.ReportMetric(pctMs(f.gaps, 99), "itl-p99-ms")
	b.Logf("churn: %d requests, %d canceled mid-stream, %d text chunks", crowdChurn.requests, crowdChurn.canceled, crowdChurn.tokens)
}
