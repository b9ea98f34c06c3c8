package unit13

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
)

// chatCase is a conversation rendered by a real model's template with
// Python's Jinja2 set up as Hugging Face transformers sets it up
// (testdata/chat/gen_cases.py): the prompt Forge must render, or the
// template's refusal.
type chatCase struct {
	Template            string    `json:"template"`
	What                string    `json:"what"`
	Messages            []Message `json:"messages"`
	AddGenerationPrompt bool      `json:"add_generation_prompt"`
	BOS                 string    `json:"bos_token"`
	EOS                 string    `json:"eos_token"`
	Want                *string   `json:"want"`
	Error               string    `json:"error"`
}

func chatCases(t *testing.T) []chatCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "chat", "cases.json"))
	require.NoError(t, err)
	var cs []chatCase
	require.NoError(t, json.Unmarshal(b, &cs))
	require.NotEmpty(t, cs)
	return cs
}

func chatSource(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "chat", name+".jinja"))
	require.NoError(t, err)
	return string(b)
}

// today is the date Llama 3.2's template writes (strftime_now), where
// the expected prompts have the day they were made.
func today(want string) string {
	return strings.ReplaceAll(want, "Today Date: 27 Nov 2026", "Today Date: "+time.Now().Format("02 Jan 2006"))
}

// TestC13_5_RealTemplates: the chat templates of TinyLlama 1.1B Chat,
// Llama 3.2 Instruct, Qwen2.5 Instruct, Mistral Nemo Instruct and Phi-3
// mini render every conversation exactly as transformers renders it, and
// refuse what they refuse.
func TestC13_5_RealTemplates(t *testing.T) {
	for _, c := range chatCases(t) {
		ct, err := NewChatTemplate(chatSource(t, c.Template), c.BOS, c.EOS)
		require.NoError(t, err, "%s's template", c.Template)
		got, err := ct.Render(c.Messages, c.AddGenerationPrompt)
		what := c.Template + ", " + c.What
		if c.Want == nil {
			require.ErrorIs(t, err, unit00.ErrInvalid, "%s: the template refuses it: %s", what, c.Error)
			require.ErrorContains(t, err, c.Error, "%s: the template's own message", what)
			continue
		}
		require.NoError(t, err, what)
		require.Equal(t, today(*c.Want), got, "%s (add_generation_prompt %v)", what, c.AddGenerationPrompt)
	}
}

// TestC13_5_Builtins: the templates --chat-template names render what
// the real ones render: zephyr as TinyLlama's, mistral as Mistral Nemo's,
// phi3 as Phi-3's, chatml as Qwen2.5's when a system message is given,
// llama3 as Llama 3.2's without its dated header.
func TestC13_5_Builtins(t *testing.T) {
	real := map[string]string{"zephyr": "tinyllama", "mistral": "mistral-nemo", "phi3": "phi3", "chatml": "qwen2.5", "llama3": "llama3.2"}
	require.Len(t, ChatTemplates, len(real), "the built-in templates")
	checked := map[string]int{}
	for _, c := range chatCases(t) {
		for name, of := range real {
			if of != c.Template {
				continue
			}
			ct, err := NewChatTemplate(ChatTemplates[name], c.BOS, c.EOS)
			require.NoError(t, err, "the built-in %s", name)
			got, err := ct.Render(c.Messages, c.AddGenerationPrompt)
			what := name + " against " + of + ", " + c.What
			if c.Want == nil {
				require.ErrorIs(t, err, unit00.ErrInvalid, what)
				continue
			}
			require.NoError(t, err, what)
			want := *c.Want
			switch name {
			case "chatml":
				if c.Messages[0].Role != "system" {
					continue // Qwen2.5 adds its own system message
				}
			case "llama3":
				if c.Messages[0].Role != "system" {
					continue // Llama 3.2 writes an empty system message
				}
				want = strings.Replace(want, "Cutting Knowledge Date: December 2023\nToday Date: 27 Nov 2026\n\n", "", 1)
			}
			require.Equal(t, want, got, "%s (add_generation_prompt %v)", what, c.AddGenerationPrompt)
			checked[name]++
		}
	}
	for name := range real {
		require.Positive(t, checked[name], "conversations checked against %s", name)
	}
	ct, err := NewChatTemplate(ChatTemplates["chatml"], "", "")
	require.NoError(t, err)
	got, err := ct.Render([]Message{{"user", "Hi"}}, true)
	require.NoError(t, err)
	require.Equal(t, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", got, "chatml without a system message")
}

func TestC13_5_BadTemplate(t *testing.T) {
	_, err := NewChatTemplate("{% for m in messages %}{{ m.content }}", "<s>", "</s>")
	require.ErrorIs(t, err, unit00.ErrInvalid, "a for without endfor")
	_, err = NewChatTemplate("{{ messages[0] ", "<s>", "</s>")
	require.ErrorIs(t, err, unit00.ErrInvalid, "an unclosed expression")
	ct, err := NewChatTemplate(`{{ raise_exception("no system messages, please") }}`, "<s>", "</s>")
	require.NoError(t, err)
	_, err = ct.Render([]Message{{"user", "hi"}}, true)
	require.ErrorIs(t, err, unit00.ErrInvalid)
	require.ErrorContains(t, err, "no system messages, please")
	ct, err = NewChatTemplate(`{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}|{{ messages | length }}|{{ messages[1].role }}:{{ messages[1]['content'] }}`, "<B>", "<E>")
	require.NoError(t, err)
	got, err := ct.Render([]Message{{"system", "s"}, {"assistant", "a b"}}, false)
	require.NoError(t, err)
	require.Equal(t, "<B>|<E>|False|2|assistant:a b", got, "the template's variables")
}

// chatServed is a server of a small random model over Phi-3's vocabulary
// (whose chat markers are control tokens) with Phi-3's own template.
func chatServed(t *testing.T, opt ServerOptions, su setup) *served {
	t.Helper()
	su.vocab, su.chat = "ggml-vocab-phi-3.gguf", chatSource(t, "phi3")
	return newServedWith(t, opt, su)
}

// chatIDs is the prompt a chat request must run: the template's text with
// its control tokens read as tokens, and one BOS, the tokenizer's.
func (s *served) chatIDs(msgs []Message) []int {
	s.t.Helper()
	ct, err := NewChatTemplate(chatSource(s.t, "phi3"), "<s>", "<|endoftext|>")
	require.NoError(s.t, err)
	text, err := ct.Render(msgs, true)
	require.NoError(s.t, err)
	require.True(s.t, strings.HasPrefix(text, "<s>"), "Phi-3's template writes BOS: %q", text)
	ids := s.tok.Encode(strings.TrimPrefix(text, "<s>"), unit04.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	require.Equal(s.t, 1, strings.Count(text, "<s>"))
	return ids
}

func TestC13_5_Chat(t *testing.T) {
	s := chatServed(t, ServerOptions{}, setup{})
	msgs := []Message{{"system", "Be brief."}, {"user", "Hello!"}, {"assistant", "Hi."}, {"user", "How are you?"}}
	ids := s.chatIDs(msgs)
	require.Equal(t, s.tok.BOS(), ids[0], "one BOS first")
	require.NotEqual(t, s.tok.BOS(), ids[1], "one BOS, not two")
	require.Contains(t, ids, 32010, "<|user|> is Phi-3's control token 32010, not its letters")
	want := greedyIDs(t, s.m, s.tok, ids, 8).Text
	params := openai.ChatCompletionNewParams{Model: "forge", Messages: []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("Be brief."), openai.UserMessage("Hello!"), openai.AssistantMessage("Hi."), openai.UserMessage("How are you?"),
	}, MaxTokens: openai.Int(8), Temperature: openai.Float(0)}
	res, err := s.cli.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	require.Len(t, res.Choices, 1)
	require.Equal(t, want, res.Choices[0].Message.Content, "a greedy chat completion against one session's greedy text")
	require.Equal(t, "assistant", string(res.Choices[0].Message.Role))
	require.Equal(t, "length", res.Choices[0].FinishReason)
	require.Equal(t, "chat.completion", string(res.Object))
	require.True(t, strings.HasPrefix(res.ID, "chatcmpl-"), res.ID)
	require.Equal(t, int64(len(ids)), res.Usage.PromptTokens)
	require.Equal(t, int64(8), res.Usage.CompletionTokens)
	require.Equal(t, int64(len(ids)+8), res.Usage.TotalTokens)

	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := s.cli.Chat.Completions.NewStreaming(context.Background(), params)
	var text strings.Builder
	finish, role := "", ""
	usage := int64(0)
	for stream.Next() {
		c := stream.Current()
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.Delta.Role != "" {
				role = ch.Delta.Role
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
		usage = max(usage, c.Usage.CompletionTokens)
	}
	require.NoError(t, stream.Err())
	require.Equal(t, want, text.String(), "the streamed deltas")
	require.Equal(t, "assistant", role)
	require.Equal(t, "length", finish)
	require.Equal(t, int64(8), usage)

	// max_completion_tokens, the newer name, wins over max_tokens.
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{}
	params.MaxCompletionTokens = openai.Int(3)
	res, err = s.cli.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	require.Equal(t, int64(3), res.Usage.CompletionTokens, "max_completion_tokens 3")

	// Without either, a chat runs to the end of its context (128).
	params = openai.ChatCompletionNewParams{Model: "forge", Messages: params.Messages, Temperature: openai.Float(0)}
	res, err = s.cli.Chat.Completions.New(context.Background(), params)
	require.NoError(t, err)
	require.Equal(t, int64(128-len(ids)+1), res.Usage.CompletionTokens, "a chat without a limit, to the end of the context")
	require.Equal(t, "length", res.Choices[0].FinishReason)
	s.waitFreed("after chats")
}

// TestC13_5_ChatForms: content as an array of text parts and the
// developer role (system's newer name) read as a string and system.
func TestC13_5_ChatForms(t *testing.T) {
	s := chatServed(t, ServerOptions{}, setup{})
	want, _, _ := s.chat(`{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello!"}], "max_tokens": 5, "temperature": 0}`)
	require.Equal(t, greedyIDs(t, s.m, s.tok, s.chatIDs([]Message{{"system", "Be brief."}, {"user", "Hello!"}}), 5).Text, want)
	got, _, _ := s.chat(`{"messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo!"}]}], "max_tokens": 5, "temperature": 0}`)
	require.Equal(t, want, got, "developer for system, and text parts")
	got, _, _ = s.chat(`{"messages": [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": null}, {"role": "user", "content": "Go on"}], "max_tokens": 5, "temperature": 0, "tools": []}`)
	require.Equal(t, greedyIDs(t, s.m, s.tok, s.chatIDs([]Message{{"user", "Hello!"}, {"assistant", ""}, {"user", "Go on"}}), 5).Text, got, "an assistant message with null content, and no tools")
	s.waitFreed("after chats")

	// A template that honours add_generation_prompt: the prompt ends with
	// the assistant's header.
	ml := newServedWith(t, ServerOptions{}, setup{vocab: "ggml-vocab-phi-3.gguf", chat: ChatTemplates["chatml"]})
	ids := ml.tok.Encode("<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n", unit04.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	status, _, body := ml.do("POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": "Hello!"}], "max_tokens": 5, "temperature": 0}`, "")
	require.Equal(t, 200, status, "%s", body)
	var res struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	require.NoError(t, json.Unmarshal(body, &res), "%s", body)
	require.Equal(t, len(ids), res.Usage["prompt_tokens"], "the prompt with the generation prompt")
	require.Equal(t, greedyIDs(t, ml.m, ml.tok, ids, 5).Text, res.Choices[0].Message.Content)
}

// chat asks for a chat completion with a raw JSON body and returns its
// content, finish reason and generated token count.
func (s *served) chat(body string) (content, finish string, tokens int) {
	s.t.Helper()
	status, _, b := s.do("POST", "/v1/chat/completions", body, "")
	require.Equal(s.t, 200, status, "%s: %s", body, b)
	var res struct {
		Object  string `json:"object"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	require.NoError(s.t, json.Unmarshal(b, &res), "%s", b)
	require.Equal(s.t, "chat.completion", res.Object)
	require.Len(s.t, res.Choices, 1, "%s", b)
	require.Equal(s.t, 0, res.Choices[0].Index)
	require.Equal(s.t, "assistant", res.Choices[0].Message.Role)
	return res.Choices[0].Message.Content, res.Choices[0].FinishReason, res.Usage["completion_tokens"]
}

// TestC13_5_ChatStop: Phi-3's end of turn, <|end|>, among the server's
// stop tokens ends a chat ("stop", not counted, not shown).
func TestC13_5_ChatStop(t *testing.T) {
	base := chatServed(t, ServerOptions{}, setup{})
	msgs := []Message{{"user", "Hello!"}}
	first := greedyIDs(t, base.m, base.tok, base.chatIDs(msgs), 4).Tokens
	const end = 32007 // <|end|>
	s := chatServed(t, ServerOptions{StopTokens: []int{base.tok.EOS(), end}}, setup{weights: func(w *unit05.Weights) { swapRows(w, first[0], end) }})
	content, finish, n := s.chat(`{"messages": [{"role": "user", "content": "Hello!"}], "max_tokens": 4, "temperature": 0}`)
	require.Equal(t, "stop", finish, "a chat whose first token is <|end|> (content %q)", content)
	require.Equal(t, 0, n)
	require.Equal(t, "", content)
}

// TestC13_5_ChatStreamFormat: a streamed chat read as raw bytes: a first
// chunk with the assistant's role, deltas with content, a last chunk
// with an empty delta and the finish reason, the usage, and [DONE].
func TestC13_5_ChatStreamFormat(t *testing.T) {
	s := chatServed(t, ServerOptions{}, setup{})
	status, hdr, body := s.do("POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4, "temperature": 0, "stream": true, "stream_options": {"include_usage": true}}`, "")
	require.Equal(t, 200, status, "%s", body)
	require.Equal(t, "text/event-stream", hdr.Get("Content-Type"))
	events := strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n")
	require.Equal(t, "data: [DONE]", events[len(events)-1])
	type chunk struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Index        int               `json:"index"`
			Delta        map[string]string `json:"delta"`
			FinishReason *string           `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	var cs []chunk
	for i, ev := range events[:len(events)-1] {
		require.True(t, strings.HasPrefix(ev, "data: {"), "event %d: %q", i, ev)
		var c chunk
		require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &c), "event %d", i)
		require.Equal(t, "chat.completion.chunk", c.Object, "event %d", i)
		require.True(t, strings.HasPrefix(c.ID, "chatcmpl-"), "event %d: id %q", i, c.ID)
		if len(cs) > 0 {
			require.Equal(t, cs[0].ID, c.ID, "event %d: one id for the whole stream", i)
		}
		cs = append(cs, c)
	}
	require.GreaterOrEqual(t, len(cs), 3)
	require.Equal(t, map[string]string{"role": "assistant", "content": ""}, cs[0].Choices[0].Delta, "the first chunk names the role")
	require.Equal(t, 0, cs[0].Choices[0].Index, "the first chunk's choice index")
	require.Nil(t, cs[0].Choices[0].FinishReason)
	var text strings.Builder
	for i, c := range cs[1 : len(cs)-2] {
		require.Len(t, c.Choices, 1, "chunk %d", i+1)
		require.Equal(t, 0, c.Choices[0].Index)
		require.Nil(t, c.Choices[0].FinishReason, "chunk %d", i+1)
		require.NotEmpty(t, c.Choices[0].Delta["content"], "chunk %d: a delta has some content", i+1)
		require.NotContains(t, c.Choices[0].Delta, "role", "chunk %d: the role comes once", i+1)
		text.WriteString(c.Choices[0].Delta["content"])
	}
	last := cs[len(cs)-2]
	require.Empty(t, last.Choices[0].Delta, "the last chunk's delta is empty")
	require.NotNil(t, last.Choices[0].FinishReason)
	require.Equal(t, "length", *last.Choices[0].FinishReason)
	require.Empty(t, cs[len(cs)-1].Choices, "the usage chunk has no choices")
	require.Equal(t, 4, cs[len(cs)-1].Usage["completion_tokens"])
	require.Equal(t, greedyIDs(t, s.m, s.tok, s.chatIDs([]Message{{"user", "Hi"}}), 4).Text, text.String())
}

// TestC13_5_ChatBadRequests: every bad chat request gets its status and
// an error object naming the field and the kind of mistake.
func TestC13_5_ChatBadRequests(t *testing.T) {
	s := chatServed(t, ServerOptions{}, setup{})
	cases := []struct {
		what, method, body string
		status             int
		param, code        string
	}{
		{"no messages", "POST", `{"max_tokens": 3}`, 400, "messages", "invalid_value"},
		{"empty messages", "POST", `{"messages": []}`, 400, "messages", "invalid_value"},
		{"messages of the wrong type", "POST", `{"messages": "hi"}`, 400, "messages", "invalid_type"},
		{"a tool message", "POST", `{"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "42"}]}`, 400, "messages[1].role", "invalid_value"},
		{"no role", "POST", `{"messages": [{"content": "hi"}]}`, 400, "messages[0].role", "invalid_value"},
		{"no content", "POST", `{"messages": [{"role": "user"}]}`, 400, "messages[0].content", "invalid_type"},
		{"tools of the wrong type", "POST", `{"messages": [{"role": "user", "content": "hi"}], "tools": 7}`, 400, "tools", "invalid_type"},
		{"content of the wrong type", "POST", `{"messages": [{"role": "user", "content": 5}]}`, 400, "messages[0].content", "invalid_type"},
		{"an image part", "POST", `{"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]}`, 400, "messages[0].content", "invalid_type"},
		{"a text part without text", "POST", `{"messages": [{"role": "user", "content": [{"type": "text"}]}]}`, 400, "messages[0].content", "invalid_type"},
		{"tools", "POST", `{"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "f"}}]}`, 400, "tools", "invalid_value"},
		{"max_tokens < 0", "POST", `{"messages": [{"role": "user", "content": "hi"}], "max_tokens": -2}`, 400, "max_tokens", "invalid_value"},
		{"n = 3", "POST", `{"messages": [{"role": "user", "content": "hi"}], "n": 3}`, 400, "n", "invalid_value"},
		{"an unknown model", "POST", `{"model": "nope", "messages": [{"role": "user", "content": "hi"}]}`, 404, "model", "model_not_found"},
		{"malformed JSON", "POST", `{"messages": [`, 400, "", "invalid_json"},
		{"GET", "GET", ``, 405, "", "method_not_allowed"},
	}
	for _, tc := range cases {
		status, _, body := s.do(tc.method, "/v1/chat/completions", tc.body, "")
		require.Equal(t, tc.status, status, "%s: status (body %s)", tc.what, body)
		var e apiErr
		require.NoError(t, json.Unmarshal(body, &e), "%s: %s", tc.what, body)
		require.NotEmpty(t, e.Error.Message, tc.what)
		require.Equal(t, tc.code, e.Error.Code, "%s: code (body %s)", tc.what, body)
		if tc.param == "" {
			require.Nil(t, e.Error.Param, "%s: param", tc.what)
		} else {
			require.NotNil(t, e.Error.Param, "%s: param (body %s)", tc.what, body)
			require.Equal(t, tc.param, *e.Error.Param, "%s: param", tc.what)
		}
	}
	// A conversation the template refuses.
	m := newServedWith(t, ServerOptions{}, setup{vocab: "ggml-vocab-llama-spm.gguf", chat: ChatTemplates["mistral"]})
	status, _, body := m.do("POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}`, "")
	require.Equal(t, 400, status, "two user messages in a row for Mistral's template: %s", body)
	require.Contains(t, string(body), "alternate", "the template's own message: %s", body)
	// A model without a chat template.
	none := newServed(t, ServerOptions{})
	status, _, body = none.do("POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": "hi"}]}`, "")
	require.Equal(t, 400, status, "%s", body)
	require.Contains(t, string(body), "no_chat_template")
	require.Contains(t, string(body), "--chat-template", "the error says how to give one")
	s.waitFreed("after bad chats")
}
