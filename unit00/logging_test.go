package unit00

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestC0_3_ParseLevel(t *testing.T) {
	good := []struct {
		in   string
		want slog.Level
	}{
		{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError},
		{"DEBUG", slog.LevelDebug}, {"Info", slog.LevelInfo}, {"WaRn", slog.LevelWarn}, {"ERROR", slog.LevelError},
	}
	for _, tc := range good {
		lvl, err := ParseLevel(tc.in)
		if err != nil || lvl != tc.want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v, nil", tc.in, lvl, err, tc.want)
		}
	}
	for _, in := range []string{"", "trace", "warning", "fatal", "debug ", "1"} {
		lvl, err := ParseLevel(in)
		if lvl != 0 {
			t.Errorf("ParseLevel(%q) returned level %v with its error; return the zero Level, as Go functions return zero values beside an error", in, lvl)
		}
		if err == nil {
			t.Errorf("ParseLevel(%q) returned no error; only debug, info, warn and error are levels", in)
			continue
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseLevel(%q) error %q does not wrap ErrInvalid", in, err)
		}
		if !strings.Contains(err.Error(), `"`+in+`"`) {
			t.Errorf("ParseLevel(%q) error %q does not quote the input (%q)", in, err, `"`+in+`"`)
		}
		for _, name := range []string{"debug", "info", "warn", "error"} {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("ParseLevel(%q) error %q does not list the valid level %q", in, err, name)
			}
		}
	}
}

func TestC0_3_NewLogger(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(&buf, "warn")
	if err != nil {
		t.Fatalf("NewLogger(w, %q): %v", "warn", err)
	}
	log.Debug("dropped-debug")
	log.Info("dropped-info")
	log.Warn("kept-warn", "layer", 3)
	log.Error("kept-error")
	out := buf.String()
	for _, dropped := range []string{"dropped-debug", "dropped-info"} {
		if strings.Contains(out, dropped) {
			t.Errorf("a logger at level warn wrote a record below warn (%s):\n%s", dropped, out)
		}
	}
	for _, kept := range []string{"level=WARN msg=kept-warn layer=3", "level=ERROR msg=kept-error"} {
		if !strings.Contains(out, kept) {
			t.Errorf("a logger at level warn did not write %q as a text (key=value) record:\n%s", kept, out)
		}
	}
	if !log.Enabled(context.Background(), slog.LevelWarn) || log.Enabled(context.Background(), slog.LevelInfo) {
		t.Errorf("a logger at level warn must be enabled for warn and not for info")
	}

	buf.Reset()
	dbg, err := NewLogger(&buf, "DEBUG")
	if err != nil {
		t.Fatalf("NewLogger(w, %q): %v", "DEBUG", err)
	}
	dbg.Debug("seen")
	if !strings.Contains(buf.String(), "level=DEBUG msg=seen") {
		t.Errorf("a logger at level debug did not write a debug record: %q", buf.String())
	}

	l, err := NewLogger(&buf, "loud")
	if err == nil || l != nil {
		t.Errorf("NewLogger(w, %q) = %v, %v; want nil and an error", "loud", l, err)
	} else if !errors.Is(err, ErrInvalid) {
		t.Errorf("NewLogger(w, %q) error %q does not wrap ErrInvalid", "loud", err)
	}
}
