package unit13

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ServerOptions configure a Server.
type ServerOptions struct {
	Model    string // the name /v1/models reports and answers carry; "forge" if empty
	APIKey   string // when set, every route but /health wants "Authorization: Bearer APIKey"
	MaxBody  int64  // the largest request body in bytes (413 past it); 1 MiB if ≤ 0
	MaxQueue int    // requests in flight past which a new one gets 503; no limit if ≤ 0
	// StopTokens end every request: the model's EOS and end-of-turn
	// tokens. Nil: the tokenizer's EOS (none if it has none).
	StopTokens []int
	// Chat renders the messages of /v1/chat/completions into a prompt;
	// nil: that route answers 400, the model has no chat template.
	Chat *ChatTemplate
	// WriteTimeout is the most one write of an answer may wait for the
	// client to read: past it the client is cut off and its request
	// canceled, so a stalled client holds no slot. 0: DefaultWriteTimeout;
	// negative: no limit.
	WriteTimeout time.Duration
}

// DefaultWriteTimeout is ServerOptions.WriteTimeout's default.
const DefaultWriteTimeout = 30 * time.Second

// LatencyBuckets are the upper bounds, in seconds, of the time-to-first-
// token and time-per-output-token histograms of /metrics: 1 ms doubling
// to 32.768 s.
var LatencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 16)
