package unit10

import (
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
)

// Model is a loaded GGUF model: the file (whose mapping the quantized
// weights point into), the transformer and the tokenizer.
type Model struct {
	File      *File
	Model     *unit05.Model
	Tokenizer *unit04.Tokenizer
}

// Load opens a GGUF model file and makes it ready for its first token:
// hyper-parameters, weights bound in place, tokenizer, and the model's
// scratch for maxSeq positions (the file's context length when maxSeq ≤
// 0). p may be nil. On any error the file is closed again.
func Load(path string, maxSeq int, p *unit03.Pool) (*Model, error) {
	panic("TODO(10.4): write Load, see docs/unit10.md")
}

// Close releases the file. The model must not be used afterwards: its
// quantized weights point into the released mapping.
func (m *Model) Close() error {
	panic("TODO(10.4): write Model.Close, see docs/unit10.md")
}
