package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rooflineLine matches a row of the roofline table: threads, test, MB,
// Gop, op/byte, GB/s, Gop/s.
var rooflineLine = regexp.MustCompile(`^\|\s+(\d+) \|\s+(.+?) \|\s+([\d.]+) \|\s+([\d.]+) \|\s+([\d.]+) \|\s+([\d.]+) \|\s+([\d.]+) \|$`)

func TestBenchRoofline(t *testing.T) {
	path := tinyModel(t)
	r := llm("bench", "-m", path, "-p", "16", "-n", "4", "-d", "0,512", "-t", "1", "-r", "1", "--roofline")
	require.Equal(t, 0, r.status, "stderr %q", r.stderr)
	assert.NotContains(t, r.stdout, "roofline", "the roofline is a note: it goes to stderr")
	rows := map[string][]float64{}
	for _, line := range strings.Split(r.stderr, "\n") {
		m := rooflineLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var v []float64
		for _, s := range m[3:] {
			f, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err)
			v = append(v, f)
		}
		rows[m[2]] = v
	}
	require.Len(t, rows, 4, "a row for pp16, tg4, pp16 @ d512, tg4 @ d512 in:\n%s", r.stderr)
	pp, tg, ppDeep, tgDeep := rows["pp16"], rows["tg4"], rows["pp16 @ d512"], rows["tg4 @ d512"]
	// The tiny model (4 layers of width 256, FFN 768, Q8_0, a vocabulary of
	// 50,257): a pass reads its weights once, 17 MB, a prompt or a step
	// alike; at depth 512 attention reads 1 MB of cache more and does 34
	// Mop more per token.
	assert.InDelta(t, pp[0], tg[0], 0.1*tg[0], "a prompt and a step read the same weights: MB per pass")
	// Per token the layers do 6.3 Mop, and a pass's one row of logits 25.7
	// Mop (50,257 × 256): pp16 is 26 + 16·6.3 = 126 Mop, a step 32.
	assert.Greater(t, pp[1], 3*tg[1], "16 tokens through the layers do more than 3 times a step's operations")
	assert.Greater(t, pp[2], 3*tg[2], "so a prompt's intensity is above a step's")
	assert.Greater(t, ppDeep[1], pp[1], "at depth 512 attention has more positions to score")
	assert.Greater(t, tgDeep[0], tg[0], "and more of the cache to read")
	for name, v := range rows {
		assert.Greater(t, v[3], 0.0, "%s: a positive bandwidth", name)
		assert.InDelta(t, v[1]/v[0]*1e3, v[2], 0.02*v[2]+0.01, "%s: op/byte is Gop over MB", name)
	}

	moe := filepath.Join(t.TempDir(), "moe.gguf")
	ok(t, "gen", "--shape", "mixtral-tiny", "--type", "q8_0", "--seed", "2", "-o", moe)
	r = llm("bench", "-m", moe, "-p", "8", "-n", "2", "-t", "1", "-r", "1", "--roofline")
	require.Equal(t, 0, r.status, "stderr %q", r.stderr)
	assert.Contains(t, r.stderr, "no roofline for this model", "a mixture of experts has no cost model: a note, not a failure")
}
