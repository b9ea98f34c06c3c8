package unit13

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit11"
)

// genFields are the fields of a request body that /v1/completions and
// /v1/chat/completions share. Pointers tell a field left out from a zero.
type genFields struct {
	Model            string          `json:"model"`
	MaxTokens        *int            `json:"max_tokens"`
	Temperature      *float64        `json:"temperature"`
	TopP             *float64        `json:"top_p"`
	TopK             *int            `json:"top_k"`
	MinP             *float64        `json:"min_p"`
	Seed             *uint64         `json:"seed"`
	Stop             json.RawMessage `json:"stop"`
	PresencePenalty  *float64        `json:"presence_penalty"`
	FrequencyPenalty *float64        `json:"frequency_penalty"`
	N                *int            `json:"n"`
	Stream           bool            `json:"stream"`
	StreamOptions    *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// completionRequest is the body of POST /v1/completions.
type completionRequest struct {
	genFields
	Prompt json.RawMessage `json:"prompt"`
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	arrived := time.Now()
	var req completionRequest
	if !s.decode(w, r, &req) {
		return
	}
	prompt, err := stringOrOne(req.Prompt, "prompt")
	if err != nil {
		apiError(w, http.StatusBadRequest, err.code, "invalid_request_error", "prompt", err.msg)
		return
	}
	// A prompt is the user's text: no control tokens written in it.
	ids := s.tok.Encode(prompt, unit04.EncodeOptions{AddSpecial: true})
	s.generate(w, r, &req.genFields, ids, 16, false, arrived) // 16: the OpenAI completions default
}

// generate runs a request for the tokens ids and answers it: as a text
// completion, or as a chat completion when chat. Without max_tokens it
// generates defaultMax tokens (0: until a stop token or the end of the
// context).
func (s *Server) generate(w http.ResponseWriter, r *http.Request, g *genFields, ids []int, defaultMax int, chat bool, arrived time.Time) {
	if g.Model != "" && g.Model != s.opt.Model {
		apiError(w, http.StatusNotFound, "model_not_found", "invalid_request_error", "model", fmt.Sprintf("the model %q does not exist: this server has %q", g.Model, s.opt.Model))
		return
	}
	stops, ok := stopStrings(g.Stop)
	if !ok {
		apiError(w, http.StatusBadRequest, "invalid_type", "invalid_request_error", "stop", "stop: want a string or an array of up to 4 strings")
		return
	}
	gen, field, gerr := s.request(g, ids, defaultMax)
	if gerr != nil {
		apiError(w, http.StatusBadRequest, "invalid_value", "invalid_request_error", field, gerr.Error())
		return
	}
	out := &completion{s: s, w: w, chat: chat, created: time.Now().Unix(), last: arrived, promptTokens: len(gen.Prompt), stream: g.Stream,
		usage: g.StreamOptions != nil && g.StreamOptions.IncludeUsage}
	if g.MaxTokens != nil && *g.MaxTokens == 0 { // nothing to generate: the scheduler's 0 would mean no limit
		out.id = out.idOf("none")
		out.end("length")
		return
	}
	st, status, aerr := s.add(gen)
	if aerr != nil {
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
			apiError(w, status, "server_busy", "server_error", "", aerr.Error())
		} else {
			apiError(w, status, "invalid_value", "invalid_request_error", "prompt", aerr.Error())
		}
		return
	}
	s.metrics.promptTokens.Add(float64(len(gen.Prompt)))
	out.id = out.idOf(fmt.Sprint(st.id))
	out.text = unit11.NewTextStream(s.tok, widen(gen.Prompt), stops)
	out.run(r.Context(), st)
}

// request turns the body's fields into a scheduler Request for the
// prompt ids, or names the field that is wrong.
func (s *Server) request(g *genFields, ids []int, defaultMax int) (Request, string, error) {
	p := unit11.DefaultParams()
	p.Temperature, p.TopP, p.MinP = 1, 1, 0 // the OpenAI API's defaults
	p.TopK = 0
	setF := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	setF(&p.Temperature, g.Temperature)
	setF(&p.TopP, g.TopP)
	setF(&p.MinP, g.MinP)
	setF(&p.PresencePenalty, g.PresencePenalty)
	setF(&p.FrequencyPenalty, g.FrequencyPenalty)
	if g.TopK != nil {
		p.TopK = *g.TopK
	}
	if g.Seed != nil {
		p.Seed = *g.Seed
	} else {
		p.Seed = uint64(time.Now().UnixNano())
	}
	if g.N != nil && *g.N != 1 {
		return Request{}, "n", fmt.Errorf("n = %d: Forge generates one choice per request", *g.N)
	}
	maxTokens := defaultMax
	if g.MaxTokens != nil {
		if *g.MaxTokens < 0 {
			return Request{}, "max_tokens", fmt.Errorf("max_tokens = %d: want 0 or more", *g.MaxTokens)
		}
		maxTokens = *g.MaxTokens
	}
	smp, err := unit11.NewSampler(s.tok.VocabSize(), p)
	if err != nil {
		return Request{}, "", err
	}
	// An empty prompt, or one longer than the context, is the
	// scheduler's to refuse.
	return Request{Prompt: narrow(ids), Sampler: smp, MaxTokens: maxTokens, StopTokens: s.opt.StopTokens}, "", nil
}

// decode reads a JSON body of at most MaxBody bytes into v, answering
// the client itself when it cannot.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	body := http.MaxBytesReader(w, r.Body, s.opt.MaxBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooBig):
			apiError(w, http.StatusRequestEntityTooLarge, "request_too_large", "invalid_request_error", "", fmt.Sprintf("the body is over %d bytes", s.opt.MaxBody))
		case errors.As(err, &typeErr):
			field := strings.TrimPrefix(typeErr.Field, "genFields.") // the shared fields' struct is no part of the API
			apiError(w, http.StatusBadRequest, "invalid_type", "invalid_request_error", field, fmt.Sprintf("%s: want %s, not a JSON %s", field, typeErr.Type, typeErr.Value))
		case errors.Is(err, io.EOF):
			apiError(w, http.StatusBadRequest, "invalid_json", "invalid_request_error", "", "an empty body: want a JSON object")
		default:
			apiError(w, http.StatusBadRequest, "invalid_json", "invalid_request_error", "", "the body is not valid JSON: "+err.Error())
		}
		return false
	}
	return true
}

// fieldError is a request field that is missing or of the wrong type,
// with the error code the API gives it.
type fieldError struct{ code, msg string }

// stringOrOne reads a field that is a string or an array of one string.
func stringOrOne(raw json.RawMessage, name string) (string, *fieldError) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", &fieldError{"missing_required_parameter", name + " is missing"}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) == 1 {
		return list[0], nil
	}
	return "", &fieldError{"invalid_type", name + ": want a string (or an array of one string)"}
}

// stopStrings reads "stop": absent, null, a string or an array of up to
// 4; ok is false for anything else.
func stopStrings(raw json.RawMessage) (stops []string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	if json.Unmarshal(raw, &stops) != nil || len(stops) > 4 {
		return nil, false
	}
	return stops, true
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	apiError(w, http.StatusMethodNotAllowed, "method_not_allowed", "invalid_request_error", "", "use "+allow)
}

// apiError answers with the OpenAI API's error object.
func apiError(w http.ResponseWriter, status int, code, typ, param, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// narrow copies token ids into the int32s a sequence keeps.
func narrow(ids []int) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = int32(id)
	}
	return out
}

// widen copies token ids back into ints.
func widen(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
