package unit00

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// here returns "unit00/FILE:LINE" for the line after the one that calls it,
// FILE being the calling test file: the tests put the call under test on
// that line.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("unit00/%s:%d", file[strings.LastIndexAny(file, `/\`)+1:], line+1)
}

func TestC0_2_Check(t *testing.T) {
	t.Run("true does nothing", func(t *testing.T) {
		if v, panicked := oracle.Panics(func() { Check(true, "fine") }); panicked {
			t.Fatalf("Check(true, ...) panicked with %v; it must do nothing when the condition holds", v)
		}
	})
	t.Run("false panics at the caller", func(t *testing.T) {
		var where string
		v, panicked := oracle.Panics(func() {
			where = here()
			Check(false, "rows must be positive")
		})
		if !panicked {
			t.Fatal("Check(false, ...) did not panic")
		}
		want := "check failed at " + where + ": rows must be positive"
		if fmt.Sprint(v) != want {
			t.Errorf("Check(false, ...) panicked with\n  %q\nwant\n  %q\n(the location must be Check's caller, found with runtime.Caller)", v, want)
		}
	})
	t.Run("Checkf formats", func(t *testing.T) {
		var where string
		v, panicked := oracle.Panics(func() {
			where = here()
			Checkf(2 > 3, "want %d > %d", 2, 3)
		})
		want := "check failed at " + where + ": want 2 > 3"
		if !panicked || fmt.Sprint(v) != want {
			t.Errorf("Checkf(false, %q, 2, 3) panicked=%v with %q, want a panic with %q", "want %d > %d", panicked, v, want)
		}
		if v, panicked := oracle.Panics(func() { Checkf(true, "x %d", 1) }); panicked {
			t.Errorf("Checkf(true, ...) panicked with %v", v)
		}
	})
}

func TestC0_2_InputError(t *testing.T) {
	t.Run("Error", func(t *testing.T) {
		e := &InputError{Source: "model.gguf", Offset: 1234, Field: "tensor 3: n_dims", Err: ErrInvalid}
		if got, want := e.Error(), "model.gguf: tensor 3: n_dims at byte 1234: invalid value"; got != want {
			t.Errorf("Error()\n got %q\nwant %q", got, want)
		}
		e.Source = ""
		if got, want := e.Error(), "tensor 3: n_dims at byte 1234: invalid value"; got != want {
			t.Errorf("Error() with no Source\n got %q\nwant %q", got, want)
		}
	})
	t.Run("errors.Is and errors.As see through wrapping", func(t *testing.T) {
		var err error = &InputError{Source: "a.bin", Offset: 8, Field: "count", Err: fmt.Errorf("need 8 bytes, have 3: %w", ErrTruncated)}
		err = fmt.Errorf("loading model: %w", err)
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("errors.Is(%q, ErrTruncated) = false: InputError must unwrap to its cause", err)
		}
		if errors.Is(err, ErrInvalid) {
			t.Errorf("errors.Is(%q, ErrInvalid) = true, want false", err)
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.Offset != 8 || ie.Field != "count" {
			t.Errorf("errors.As(%q, *InputError) did not find the InputError with Offset 8, Field count", err)
		}
	})
	t.Run("InputErrorf", func(t *testing.T) {
		err := InputErrorf("m.gguf", 40, "n_tensors", ErrInvalid, "%d tensors in a %d-byte file", 1<<40, 100)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("InputErrorf returned %T, want *InputError", err)
		}
		if ie.Source != "m.gguf" || ie.Offset != 40 || ie.Field != "n_tensors" {
			t.Errorf("InputErrorf fields = {%q %d %q}, want {m.gguf 40 n_tensors}", ie.Source, ie.Offset, ie.Field)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("InputErrorf(..., ErrInvalid, ...) does not wrap ErrInvalid: %v", err)
		}
		want := "m.gguf: n_tensors at byte 40: 1099511627776 tensors in a 100-byte file: invalid value"
		if err.Error() != want {
			t.Errorf("InputErrorf(...).Error()\n got %q\nwant %q", err.Error(), want)
		}
	})
}
