package unit04

import (
	"io"
)

// LoadVocab reads the tokenizer metadata of the GGUF file at path. An
// error opening the file is returned wrapped, naming the path, so that
// errors.Is finds its cause (fs.ErrNotExist for a missing file).
func LoadVocab(path string) (*Vocab, error) {
	panic("TODO(4.6): write LoadVocab, see docs/unit04.md")
}

// ReadVocab reads the header and metadata of a GGUF file of size bytes from
// r and returns its vocabulary; it stops before the tensor infos, so it
// reads a model file's first few megabytes, not its weights. Every count and
// length is checked against the bytes left before it is used, so a corrupt
// or hostile file gets an error naming the field and its byte offset
// (wrapping unit00.ErrTruncated, ErrInvalid or ErrUnsupported), never a
// panic or a huge allocation. source names the input in errors. A token id
// (bos, eos, unknown) may be stored in any integer type; a negative one, or
// one past int32, is ErrInvalid at the start of its entry, as a tokenizer
// key's value of the wrong type is.
func ReadVocab(r io.Reader, size int64, source string) (*Vocab, error) {
	panic("TODO(4.6): write ReadVocab, see docs/unit04.md")
}
