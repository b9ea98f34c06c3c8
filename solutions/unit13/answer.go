package unit13

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmforge/forge/unit11"
)

// completion writes one request's answer, whole or streamed: a text
// completion, or a chat completion when chat.
type completion struct {
	s                 *Server
	w                 http.ResponseWriter
	chat              bool
	id                string
	created           int64
	text              *unit11.TextStream
	promptTokens, gen int
	stream, usage     bool
	sentHeader        bool
	last              time.Time // the request's arrival, then its last token
	all               strings.Builder
	writeErr          error // the first failed write: the client is gone or stalled
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
			case c.writeErr != nil: // a client that stopped reading: free its slot now
				c.s.cancel(st.id)
				return
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
	c.event(map[string]any{"error": map[string]any{"message": err.Error(), "type": "server_error", "param": nil, "code": code}})
}

// idOf is the answer's id for request n: "cmpl-n", or "chatcmpl-n".
func (c *completion) idOf(n string) string {
	if c.chat {
		return "chatcmpl-" + n
	}
	return "cmpl-" + n
}

// end writes the answer's end: the whole answer, or a streamed
// answer's last chunk, its usage when asked for, and [DONE].
func (c *completion) end(finish string) {
	if !c.stream {
		choice := map[string]any{"index": 0, "finish_reason": finish, "logprobs": nil}
		object := "text_completion"
		if c.chat {
			choice["message"] = map[string]any{"role": "assistant", "content": c.all.String()}
			object = "chat.completion"
		} else {
			choice["text"] = c.all.String()
		}
		writeJSON(c.w, http.StatusOK, map[string]any{
			"id": c.id, "object": object, "created": c.created, "model": c.s.opt.Model,
			"choices": []map[string]any{choice}, "usage": c.usageJSON(),
		})
		return
	}
	c.chunk(c.piece("", finish), nil)
	if c.usage {
		c.chunk(nil, c.usageJSON())
	}
	c.write("data: [DONE]\n\n")
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
	c.chunk(c.piece(piece, nil), nil)
}

// piece is the choice of a streamed chunk: text, or a chat's delta (empty
// in the last chunk), and the finish reason (nil until the last).
func (c *completion) piece(text string, finish any) map[string]any {
	choice := map[string]any{"index": 0, "finish_reason": finish, "logprobs": nil}
	if !c.chat {
		choice["text"] = text
		return choice
	}
	delta := map[string]any{}
	if text != "" {
		delta["content"] = text
	}
	choice["delta"] = delta
	return choice
}

// chunk sends one server-sent event of a streamed answer. A chat's
// stream opens with a chunk that names the assistant's role.
func (c *completion) chunk(choice map[string]any, usage map[string]int) {
	object := "text_completion"
	if c.chat {
		object = "chat.completion.chunk"
	}
	if !c.sentHeader {
		h := c.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		c.w.WriteHeader(http.StatusOK)
		c.sentHeader = true
		if c.chat {
			c.event(map[string]any{"id": c.id, "object": object, "created": c.created, "model": c.s.opt.Model,
				"choices": []map[string]any{{"index": 0, "delta": map[string]any{"role": "assistant", "content": ""}, "finish_reason": nil, "logprobs": nil}}})
		}
	}
	body := map[string]any{"id": c.id, "object": object, "created": c.created, "model": c.s.opt.Model}
	if choice != nil {
		body["choices"] = []map[string]any{choice}
	} else {
		body["choices"] = []map[string]any{}
	}
	if usage != nil {
		body["usage"] = usage
	}
	c.event(body)
}

// event writes v as one server-sent event.
func (c *completion) event(v any) {
	b, _ := json.Marshal(v)
	c.write(fmt.Sprintf("data: %s\n\n", b))
}

// write sends s to the client and flushes it, within the server's write
// timeout: a client that reads nothing for that long is cut off, and
// writeErr remembers why (nothing more is written after a failure).
func (c *completion) write(s string) {
	if c.writeErr != nil {
		return
	}
	rc := http.NewResponseController(c.w)
	if d := c.s.opt.WriteTimeout; d >= 0 {
		if d == 0 {
			d = DefaultWriteTimeout
		}
		_ = rc.SetWriteDeadline(time.Now().Add(d)) // a writer without deadlines just has none
	}
	if _, err := io.WriteString(c.w, s); err != nil {
		c.writeErr = err
		return
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		c.writeErr = err
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
