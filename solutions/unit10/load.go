package unit10

import (
	"fmt"

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
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	m, err := bind(f, maxSeq, p)
	if err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

func bind(f *File, maxSeq int, p *unit03.Pool) (*Model, error) {
	c, err := LoadConfig(f, maxSeq)
	if err != nil {
		return nil, err
	}
	w, err := LoadWeights(f, c)
	if err != nil {
		return nil, err
	}
	model, err := unit05.NewModel(c, w, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.source, err)
	}
	v, err := LoadVocab(f)
	if err != nil {
		return nil, err
	}
	tok, err := unit04.New(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.source, err) // unit04 does not know the file
	}
	return &Model{File: f, Model: model, Tokenizer: tok}, nil
}

// Close releases the file. The model must not be used afterwards: its
// quantized weights point into the released mapping.
func (m *Model) Close() error { return m.File.Close() }
