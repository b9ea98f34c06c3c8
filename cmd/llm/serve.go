package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit13"
)

var serveCommand = &command{
	name:     "serve",
	synopsis: "-m MODEL.gguf [--host 127.0.0.1] [--port 8080] [-np SLOTS] [flags]",
	summary:  "an OpenAI-compatible HTTP server with continuous batching and a paged KV cache",
	setup:    setupServe,
	help: `
Serves POST /v1/completions and POST /v1/chat/completions (plain and
streamed), GET /v1/models, GET /health and GET /metrics (Prometheus) on
HOST:PORT, with llama-server's flag names. Chats are rendered with the
model's own Jinja chat template (tokenizer.chat_template), the one
--chat-template names (` + chatTemplateNames() + `),
or a template file (--chat-template-file); with none, chat requests get an
error that says so. Generation stops at the vocabulary's end-of-sequence
and end-of-turn tokens (<|eot_id|>, <|im_end|>, <|end|>, ...).

Up to -np requests run at once, each with up to -c positions; their keys
and values live in one pool of --kv-blocks blocks of 16 positions
(default: enough for -np full contexts), shared between requests with
the same prompt prefix. Each step of the model runs at most -ub tokens:
every running request's next token, then chunks of waiting prompts. A
line per request goes to stderr. SIGINT or SIGTERM stops accepting
requests, lets the running ones finish (at most 10 s), and exits 0.

Example:
  llm serve -m tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf -np 4 &
  curl -N http://127.0.0.1:8080/v1/completions -d '{"prompt": "Once upon a time", "max_tokens": 32, "stream": true}'
  curl -N http://127.0.0.1:8080/v1/chat/completions -d '{"messages": [{"role": "user", "content": "Hi!"}], "stream": true}'`,
}

type serveOptions struct {
	model, host, alias, apiKey string
	chat, chatFile             string
	port, slots, ctx, threads  int
	blocks, stepTokens         int
}

func setupServe(fs *flagSet) func(*env) error {
	o := &serveOptions{host: "127.0.0.1", port: 8080, slots: 4, ctx: ctxUnset, threads: defaultThreads(), stepTokens: 512}
	fs.str(&o.model, "m,model", "FILE", "the model, a GGUF file")
	fs.str(&o.host, "host", "ADDR", "the address to listen on (default 127.0.0.1)")
	fs.integer(&o.port, "port", "N", "the port to listen on (default 8080)", func(n int) string {
		if n < 0 || n > 65535 {
			return "want a port from 0 to 65535"
		}
		return ""
	})
	fs.integer(&o.slots, "np,parallel", "N", "requests running at once (default 4)", atLeast(1))
	contextFlags(fs, &o.ctx, &o.threads)
	fs.integer(&o.blocks, "kv-blocks", "N", "KV blocks of 16 positions in the pool (default: -np × -c / 16)", atLeast(1))
	fs.integer(&o.stepTokens, "ub,ubatch-size", "N", "the most tokens one step runs (default 512)", atLeast(1))
	fs.str(&o.alias, "alias", "NAME", "the model's name in the API (default: the file's name)")
	fs.str(&o.apiKey, "api-key", "KEY", "require Authorization: Bearer KEY (not for /health)")
	fs.str(&o.chat, "chat-template", "NAME", "the chat template instead of the model's: "+chatTemplateNames())
	fs.str(&o.chatFile, "chat-template-file", "FILE", "the chat template instead of the model's, a Jinja file")
	return func(e *env) error { return doServe(e, o) }
}

func doServe(e *env, o *serveOptions) error {
	if o.stepTokens < o.slots {
		return usagef("-ub %d is less than -np %d: a step must hold a token of every running request", o.stepTokens, o.slots)
	}
	if o.chat != "" && o.chatFile != "" {
		return usagef("--chat-template and --chat-template-file: give one")
	}
	if _, ok := unit13.ChatTemplates[o.chat]; o.chat != "" && !ok {
		return usagef("--chat-template %q: no such template; the templates are %s", o.chat, chatTemplateNames())
	}
	m, err := loadModel(e, o.model, o.ctx, o.threads, "-c", cacheTypes{unit08.CacheF32, unit08.CacheF32})
	if err != nil {
		return err
	}
	defer m.Close()
	chat, chatFrom, err := chatTemplate(m, o)
	if err != nil {
		return err
	}
	c := m.net.Config
	blocks := o.blocks
	if blocks == 0 {
		blocks = o.slots * ((c.MaxSeq + unit13.BlockSize - 1) / unit13.BlockSize)
	}
	kv, err := unit13.NewPool(c.Layers, c.KVDim(), blocks)
	if err != nil {
		return usagef("--kv-blocks %d: %v", blocks, err)
	}
	runner, err := unit13.NewRunner(m.net, kv, min(o.stepTokens, unit13.MaxStepTokens))
	if err != nil {
		return usagef("-ub %d: %v", o.stepTokens, err)
	}
	sched, err := unit13.NewScheduler(runner, unit13.SchedOptions{MaxRunning: o.slots, StepTokens: min(o.stepTokens, unit13.MaxStepTokens)})
	if err != nil {
		return usagef("%v", err)
	}
	name := o.alias
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(o.model), ".gguf")
	}
	srv, err := unit13.NewServer(sched, m.tok, unit13.ServerOptions{Model: name, APIKey: o.apiKey, StopTokens: endTokens(m), Chat: chat})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.host, strconv.Itoa(o.port)))
	if err != nil {
		return usagef("--host %s --port %d: %v", o.host, o.port, err)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	hs := &http.Server{
		Handler:           logRequests(log, srv.Handler()),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // a whole request body; answers stream for as long as they take
		IdleTimeout:       120 * time.Second,
	}
	loopCtx, stopLoop := context.WithCancel(context.Background())
	defer stopLoop()
	loopErr := make(chan error, 1)
	go func() { loopErr <- srv.Run(loopCtx) }()
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "model", name, "slots", o.slots, "ctx", c.MaxSeq, "kv_blocks", blocks, "kv_bytes", kv.Bytes(), "chat_template", chatFrom)
	sigCtx, cancel := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	select {
	case err := <-serveErr:
		return err
	case err := <-loopErr:
		return fmt.Errorf("the scheduler stopped: %w", err)
	case <-sigCtx.Done():
	}
	log.Info("shutting down: finishing the requests in flight")
	shut, cancelShut := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelShut()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// logRequests writes one line per request: method, path, status, time.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(rec, r)
		log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.code, "ms", time.Since(start).Milliseconds(), "remote", r.RemoteAddr)
	})
}

// statusWriter remembers the status a handler wrote, and passes flushes
// through for streamed answers.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// chatTemplateNames lists --chat-template's choices.
func chatTemplateNames() string {
	names := slices.Sorted(maps.Keys(unit13.ChatTemplates))
	return strings.Join(names, ", ")
}

// chatTemplate is the template chats are rendered with, and where it
// came from: --chat-template's, --chat-template-file's, the model's own,
// or none ("none": chat requests then get an error).
func chatTemplate(m *model, o *serveOptions) (*unit13.ChatTemplate, string, error) {
	src, from := "", ""
	switch {
	case o.chat != "":
		src, from = unit13.ChatTemplates[o.chat], o.chat
	case o.chatFile != "":
		b, err := os.ReadFile(o.chatFile)
		if err != nil {
			return nil, "", usagef("--chat-template-file: %v", err)
		}
		src, from = string(b), o.chatFile
	default:
		t, err := m.file.String("tokenizer.chat_template")
		if err != nil {
			return nil, "none", nil
		}
		src, from = t, "the model's"
	}
	v := modelVocab(m)
	ct, err := unit13.NewChatTemplate(src, v.text(m.tok.BOS()), v.text(m.tok.EOS()))
	if err != nil {
		return nil, "", badInput(fmt.Errorf("the chat template (%s): %w", from, err))
	}
	return ct, from, nil
}

// endOfTurn are the texts of the end-of-turn tokens of the chat formats
// Forge knows (Llama 3, ChatML, Phi-3, Gemma, GPT-style): a chat ends at
// any of them that the vocabulary has, as llama.cpp's end-of-generation
// set does.
var endOfTurn = []string{"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>"}

// endTokens are stopTokens and the vocabulary's end-of-turn tokens.
func endTokens(m *model) []int {
	ids := stopTokens(m)
	v := modelVocab(m)
	for id, p := range v.pieces {
		if slices.Contains(endOfTurn, p) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
