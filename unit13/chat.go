package unit13

// ChatTemplate turns a conversation into a model's prompt: a compiled
// Jinja template, as a GGUF file's tokenizer.chat_template carries it.
type ChatTemplate struct {
	// Your fields (see docs/unit13.md, 13.5).
}

// NewChatTemplate compiles src, a Jinja chat template, for a vocabulary
// whose BOS and EOS tokens read bos and eos (the template's bos_token and
// eos_token). A template that does not compile is an error wrapping
// unit00.ErrInvalid.
func NewChatTemplate(src, bos, eos string) (*ChatTemplate, error) {
	panic("TODO(13.5): write NewChatTemplate, see docs/unit13.md")
}

// Render returns the prompt of msgs, ended by the assistant's header when
// addGenerationPrompt. A conversation the template refuses (its
// raise_exception) is an error wrapping unit00.ErrInvalid with the
// template's message.
func (c *ChatTemplate) Render(msgs []Message, addGenerationPrompt bool) (string, error) {
	panic("TODO(13.5): write ChatTemplate.Render, see docs/unit13.md")
}
