package unit00

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// ParseLevel returns the slog level named by s: "debug", "info", "warn" or
// "error", in any letter case. Anything else is an error that quotes s, lists
// the valid names and wraps ErrInvalid.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error: %w", s, ErrInvalid)
}

// NewLogger returns a logger that writes text records (slog's key=value
// format) to w and drops every record below the level named by level.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	lvl, err := ParseLevel(level)
	if err != nil {
		return nil, err
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
}
