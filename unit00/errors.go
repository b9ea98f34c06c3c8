package unit00

// InputError is an error found in external input (a file, a request, a flag),
// carrying where it was found so the message can point at it.
type InputError struct {
	Source string // the input's name, e.g. a file path; may be empty
	Offset int64  // byte offset of the bad value in the input
	Field  string // what was being read, e.g. "tensor 3: n_dims"
	Err    error  // the cause; usually wraps one of the sentinel errors
}

// Error formats the error as "SOURCE: FIELD at byte OFFSET: ERR", leaving out
// "SOURCE: " when Source is empty.
func (e *InputError) Error() string {
	panic("TODO(0.2): write InputError.Error, see docs/unit00.md")
}

// Unwrap returns the cause, so errors.Is and errors.As see through an InputError.
func (e *InputError) Unwrap() error {
	panic("TODO(0.2): write InputError.Unwrap, see docs/unit00.md")
}

// InputErrorf returns an *InputError whose cause wraps kind (one of the
// sentinel errors: ErrTruncated, ErrInvalid or ErrUnsupported, so that
// errors.Is(err, kind) holds) with a formatted detail: its text reads
// "DETAIL: KIND".
func InputErrorf(source string, offset int64, field string, kind error, format string, args ...any) error {
	panic("TODO(0.2): write InputErrorf, see docs/unit00.md")
}
