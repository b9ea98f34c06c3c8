package unit13

import (
	"fmt"

	"github.com/ardanlabs/jinja"

	"github.com/llmforge/forge/unit00"
)

// ChatTemplate turns a conversation into a model's prompt: a compiled
// Jinja template, as a GGUF file's tokenizer.chat_template carries it.
type ChatTemplate struct {
	tmpl     *jinja.Template
	bos, eos string
}

// NewChatTemplate compiles src, a Jinja chat template, for a vocabulary
// whose BOS and EOS tokens read bos and eos (the template's bos_token and
// eos_token). A template that does not compile is an error wrapping
// unit00.ErrInvalid.
func NewChatTemplate(src, bos, eos string) (*ChatTemplate, error) {
	t, err := jinja.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("unit13: the chat template: %v: %w", err, unit00.ErrInvalid)
	}
	return &ChatTemplate{tmpl: t, bos: bos, eos: eos}, nil
}

// Render returns the prompt of msgs, ended by the assistant's header when
// addGenerationPrompt. A conversation the template refuses (its
// raise_exception) is an error wrapping unit00.ErrInvalid with the
// template's message.
func (c *ChatTemplate) Render(msgs []Message, addGenerationPrompt bool) (string, error) {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	out, err := c.tmpl.Render(map[string]any{
		"messages":              list,
		"add_generation_prompt": addGenerationPrompt,
		"bos_token":             c.bos,
		"eos_token":             c.eos,
	})
	if err != nil {
		return "", fmt.Errorf("unit13: the chat template refuses the conversation: %v: %w", err, unit00.ErrInvalid)
	}
	return out, nil
}
