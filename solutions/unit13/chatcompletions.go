package unit13

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmforge/forge/unit04"
)

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	genFields
	Messages []chatMessage `json:"messages"`
	// MaxCompletionTokens is the newer name of max_tokens; it wins.
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	Tools               []json.RawMessage `json:"tools"`
}

// chatMessage is one message of a request: its content is a string, or
// an array of parts of which Forge reads the text ones.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	arrived := time.Now()
	var req chatRequest
	if !s.decode(w, r, &req) {
		return
	}
	if s.opt.Chat == nil {
		apiError(w, http.StatusBadRequest, "no_chat_template", "invalid_request_error", "", "this model has no chat template: start the server with one (llm serve --chat-template NAME)")
		return
	}
	if len(req.Tools) > 0 {
		apiError(w, http.StatusBadRequest, "invalid_value", "invalid_request_error", "tools", "tools: Forge does not call tools")
		return
	}
	msgs, ferr, field := chatMessages(req.Messages)
	if ferr != nil {
		apiError(w, http.StatusBadRequest, ferr.code, "invalid_request_error", field, ferr.msg)
		return
	}
	prompt, err := s.opt.Chat.Render(msgs, true)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_value", "invalid_request_error", "messages", err.Error())
		return
	}
	if req.MaxCompletionTokens != nil {
		req.MaxTokens = req.MaxCompletionTokens
	}
	s.generate(w, r, &req.genFields, s.chatTokens(prompt), 0, true, arrived)
}

// chatTokens encodes a rendered conversation: its control tokens
// (<|im_start|>, <|eot_id|>…) are tokens, and BOS comes once, from the
// tokenizer, when the vocabulary adds one, even if the template wrote it
// too.
func (s *Server) chatTokens(prompt string) []int {
	if bos := s.opt.Chat.bos; bos != "" {
		prompt = strings.TrimPrefix(prompt, bos)
	}
	return s.tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true, ParseSpecial: true})
}

// chatMessages checks a request's messages and reads their text, or says
// which is wrong (the field, as "messages[2].role").
func chatMessages(in []chatMessage) ([]Message, *fieldError, string) {
	if len(in) == 0 {
		return nil, &fieldError{"invalid_value", "messages: want at least one message"}, "messages"
	}
	out := make([]Message, len(in))
	for i, m := range in {
		role := m.Role
		switch role {
		case "developer": // the newer name of system
			role = "system"
		case "system", "user", "assistant":
		default:
			return nil, &fieldError{"invalid_value", fmt.Sprintf("messages[%d].role is %q: want system, user or assistant", i, m.Role)}, fmt.Sprintf("messages[%d].role", i)
		}
		text, ok := contentText(m.Content)
		if !ok {
			return nil, &fieldError{"invalid_type", fmt.Sprintf("messages[%d].content: want a string or an array of text parts", i)}, fmt.Sprintf("messages[%d].content", i)
		}
		out[i] = Message{Role: role, Content: text}
	}
	return out, nil, ""
}

// contentText reads a message's content: a string, null (an assistant's
// message with no text), or an array of {"type": "text", "text": …} parts,
// joined. A message without content has none of these.
func contentText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil { // null leaves s empty
		return s, true
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", false
		}
		b.WriteString(*p.Text)
	}
	return b.String(), true
}
