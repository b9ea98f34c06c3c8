package unit13

// The Jinja engine 13.5 renders chat templates with (see docs/unit13.md);
// imported here so that the module stays required while your chat.go is
// a stub.
import _ "github.com/ardanlabs/jinja"

// Message is one turn of a conversation: its role ("system", "user" or
// "assistant") and its text.
type Message struct {
	Role, Content string
}

// ChatTemplates are the chat templates `llm serve --chat-template NAME`
// offers, by name, for a model whose GGUF file carries none (or the
// wrong one). Each renders a conversation of system, user and assistant
// messages as its family of models was trained on; none knows tools.
var ChatTemplates = map[string]string{
	// chatml: Qwen2 and Qwen2.5, and many fine-tunes (without Qwen's
	// default system message).
	"chatml": `{%- for message in messages %}
{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\n' }}
{%- endif %}`,
	// llama3: Llama 3 and later (without 3.1's dated system header).
	"llama3": `{{- bos_token }}
{%- for message in messages %}
{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}`,
	// zephyr: TinyLlama 1.1B Chat and Zephyr.
	"zephyr": `{%- for message in messages %}
{{- '<|' + message['role'] + '|>\n' + message['content'] + eos_token + '\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|assistant|>\n' }}
{%- endif %}`,
	// mistral: Mistral's [INST] format (as Mistral Nemo): the system
	// message goes in front of the last user message, and roles must
	// alternate.
	"mistral": `{%- if messages[0]['role'] == 'system' %}
{%- set system_message = messages[0]['content'] %}
{%- set loop_messages = messages[1:] %}
{%- else %}
{%- set loop_messages = messages %}
{%- endif %}
{%- for message in loop_messages %}
{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}
{{- raise_exception('After the optional system message, conversation roles must alternate user/assistant/user/assistant/...') }}
{%- endif %}
{%- endfor %}
{{- bos_token }}
{%- for message in loop_messages %}
{%- if message['role'] == 'user' and loop.last and system_message is defined %}
{{- '[INST]' + system_message + '\n\n' + message['content'] + '[/INST]' }}
{%- elif message['role'] == 'user' %}
{{- '[INST]' + message['content'] + '[/INST]' }}
{%- else %}
{{- message['content'] + eos_token }}
{%- endif %}
{%- endfor %}`,
	// phi3: Phi-3 mini (system messages are dropped, as its own
	// template drops them).
	"phi3": `{{- bos_token }}
{%- for message in messages %}
{%- if message['role'] == 'user' %}
{{- '<|user|>\n' + message['content'] + '<|end|>\n<|assistant|>\n' }}
{%- elif message['role'] == 'assistant' %}
{{- message['content'] + '<|end|>\n' }}
{%- endif %}
{%- endfor %}`,
}
