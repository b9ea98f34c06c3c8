package unit11

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmforge/forge/unit04"
)

// pushAll pushes the bytes of text, one token per byte (or per chunk of
// the sizes given, cycled), and returns the pieces, whether it stopped,
// and the flushed tail.
func pushAll(ts *TextStream, ids [256]int, text string) (pieces []string, stopped bool) {
	for i := 0; i < len(text) && !stopped; i++ {
		var piece string
		piece, stopped = ts.Push(ids[text[i]])
		pieces = append(pieces, piece)
	}
	if !stopped {
		pieces = append(pieces, ts.Flush())
	}
	return pieces, stopped
}

// TestC11_4_WholeCharacters: text made of byte tokens, where every
// multi-byte character spans tokens, comes out in valid UTF-8 pieces.
func TestC11_4_WholeCharacters(t *testing.T) {
	tok := gpt2(t)
	ids := byteTokens(t, tok)
	for _, text := range []string{"héllo wörld", "日本語のテキスト", "emoji 🙂🚀 end", "a€b", "ok"} {
		pieces, stopped := pushAll(NewTextStream(tok, nil, nil), ids, text)
		if stopped {
			t.Fatalf("%q: the stream stopped with no stop strings", text)
		}
		for i, p := range pieces {
			if !utf8.ValidString(p) {
				t.Fatalf("%q: piece %d is %q, not valid UTF-8: hold back a character's first bytes until its last arrives", text, i, p)
			}
		}
		if got := strings.Join(pieces, ""); got != text {
			t.Fatalf("%q: the pieces join to %q", text, got)
		}
	}
}

// TestC11_4_StopStrings: the text before the first stop string comes out,
// the stop string and what follows do not, and nothing that may begin a
// stop string is shown before it is known not to.
func TestC11_4_StopStrings(t *testing.T) {
	tok := gpt2(t)
	ids := byteTokens(t, tok)
	cases := []struct {
		text    string
		stops   []string
		want    string // all the text shown
		stopped bool
	}{
		{"hello world", []string{"wor"}, "hello ", true},
		{"hello world", []string{"xyz"}, "hello world", false},
		{"hello world", []string{"world!"}, "hello world", false}, // a prefix that never completes is flushed
		{"hello world", []string{"lo w", "ell"}, "h", true},       // the earliest wins
		{"hello world", []string{"wor", "xyz"}, "hello ", true},   // a stop string that never appears changes nothing
		{"stop at once", []string{"stop"}, "", true},
		{"aaab", []string{"aab"}, "a", true},    // the match starts inside held-back text
		{"xab", []string{"ab", "b"}, "x", true}, // both complete with the same token: the earlier start wins
		{"xab", []string{"b", "ab"}, "x", true},
		{"café crème", []string{"é c"}, "caf", true},
		{"日本語です", []string{"語で"}, "日本", true},
		{"line\n\nnext", []string{"\n\n"}, "line", true},
		{"x", []string{""}, "x", false}, // an empty stop string is ignored
	}
	for _, tc := range cases {
		ts := NewTextStream(tok, nil, tc.stops)
		var shown strings.Builder
		stopped := false
		for i := 0; i < len(tc.text) && !stopped; i++ {
			var piece string
			piece, stopped = ts.Push(ids[tc.text[i]])
			shown.WriteString(piece)
			for _, s := range tc.stops {
				if s != "" && !stopped && strings.Contains(tc.text[:i+1], s) {
					t.Fatalf("%q with stops %q: %q pushed and the stream has not stopped", tc.text, tc.stops, tc.text[:i+1])
				}
			}
			if !strings.HasPrefix(tc.want, shown.String()) {
				t.Fatalf("%q with stops %q: after %q pushed, %q is shown; want only a beginning of %q (text that may begin a stop string waits)", tc.text, tc.stops, tc.text[:i+1], shown.String(), tc.want)
			}
		}
		if !stopped {
			shown.WriteString(ts.Flush())
		} else {
			// The stream is over: more tokens show nothing and say so.
			if piece, again := ts.Push(ids['z']); piece != "" || !again {
				t.Fatalf("%q with stops %q: Push after the stop returned %q, %v; want \"\", true (a stopped stream stays stopped)", tc.text, tc.stops, piece, again)
			}
			if more := ts.Flush(); more != "" {
				t.Fatalf("%q with stops %q: Flush after the stop returned %q; want nothing", tc.text, tc.stops, more)
			}
		}
		if more := ts.Flush(); more != "" {
			t.Fatalf("%q with stops %q: a second Flush returned %q; want nothing (the first one ended the stream)", tc.text, tc.stops, more)
		}
		if shown.String() != tc.want || stopped != tc.stopped {
			t.Fatalf("%q with stops %q: shown %q, stopped %v; want %q, %v", tc.text, tc.stops, shown.String(), stopped, tc.want, tc.stopped)
		}
	}
}

// TestC11_4_StopBeforeAPartialCharacter: a token can end a stop string and
// begin a character in the same bytes (GPT-2's " \xe2\x80" is a space and
// the first two bytes of "“" or "—"). The stream stops at the stop string;
// the unfinished character after it is part of what is dropped, so Flush
// after the stop returns nothing, not those two bytes.
func TestC11_4_StopBeforeAPartialCharacter(t *testing.T) {
	tok := gpt2(t)
	ids := byteTokens(t, tok)
	spaceQuote := -1 // the token of the bytes " \xe2\x80"
	for id := range tok.VocabSize() {
		if string(tok.TokenBytes(id)) == " \xe2\x80" {
			spaceQuote = id
			break
		}
	}
	if spaceQuote < 0 {
		t.Fatal(`the GPT-2 vocabulary has no token " \xe2\x80"`)
	}
	ts := NewTextStream(tok, nil, []string{"said "})
	var shown strings.Builder
	stopped := false
	for _, b := range []byte("He said") {
		piece, stop := ts.Push(ids[b])
		shown.WriteString(piece)
		stopped = stopped || stop
	}
	piece, stop := ts.Push(spaceQuote)
	shown.WriteString(piece)
	if stopped || !stop || shown.String() != "He " {
		t.Fatalf(`"He said" then " \xe2\x80" with the stop string "said ": shown %q, stopped early %v, stopped at the last token %v; want "He ", false, true`, shown.String(), stopped, stop)
	}
	if more := ts.Flush(); more != "" {
		t.Fatalf(`Flush after the stop string "said " returned %q; want nothing: the unfinished character after a stop string is dropped with it, and a stopped stream has nothing left`, more)
	}
	if more := ts.Flush(); more != "" {
		t.Fatalf("a second Flush after the stop returned %q; want nothing", more)
	}
}

// continuation is the text generated tokens add after the prompt's.
func continuation(tok *unit04.Tokenizer, prompt, gen []int) string {
	return strings.TrimPrefix(tok.Decode(append(append([]int(nil), prompt...), gen...)), tok.Decode(prompt))
}

// TestC11_4_AfterThePrompt: the stream continues the prompt's text. With
// a SentencePiece vocabulary a word's token carries its leading space
// (▁time), which a text's very first token drops but a continuation keeps:
// "Once upon a" + "▁time" reads "Once upon a time", not "Once upon atime".
func TestC11_4_AfterThePrompt(t *testing.T) {
	v, err := unit04.LoadVocab(filepath.Join("..", "unit04", "testdata", "ggml-vocab-phi-3.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := unit04.New(v)
	if err != nil {
		t.Fatal(err)
	}
	full := tok.Encode("Once upon a time there was a café", unit04.EncodeOptions{AddSpecial: true})
	for cut := 2; cut < len(full); cut++ {
		prompt, gen := full[:cut], full[cut:]
		want := continuation(tok, prompt, gen)
		ts := NewTextStream(tok, prompt, nil)
		var got strings.Builder
		for _, id := range gen {
			piece, _ := ts.Push(id)
			got.WriteString(piece)
		}
		got.WriteString(ts.Flush())
		if got.String() != want {
			t.Fatalf("after the prompt %q the tokens %v stream as %q, want %q: prime the decoder with the prompt, so the continuation keeps its leading space", tok.Decode(prompt), gen, got.String(), want)
		}
	}
}

func TestC11_4_Run(t *testing.T) {
	tok := gpt2(t)
	c := tinyConfig(tok.VocabSize(), 96)
	prompt := tok.Encode("Once upon a time", unit04.EncodeOptions{})
	p := DefaultParams()
	p.Seed = 7
	var pieces []string
	var seen []int // the caller's own OnToken must still see every token
	res, err := Run(context.Background(), newSession(t, c, 6), newSampler(t, c.Vocab, p), tok, prompt, nil,
		Options{MaxTokens: 40, OnToken: func(id int) bool { seen = append(seen, id); return true }},
		func(s string) error { pieces = append(pieces, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != fmt.Sprint(res.Tokens) {
		t.Fatalf("Run called the caller's OnToken with %v; want every generated token, %v: wrap it, do not replace it", seen, res.Tokens)
	}
	for i, s := range pieces {
		if s == "" || !utf8.ValidString(s) {
			t.Fatalf("emitted piece %d is %q: pieces are non-empty, whole characters", i, s)
		}
	}
	if want := continuation(tok, prompt, res.Tokens); res.Text != strings.Join(pieces, "") || res.Text != want || len(res.Tokens) != 40 || res.Stop != StopLength {
		t.Fatalf("Run: Text %q, %d tokens, stop %v; the pieces join to %q and the tokens continue the prompt's text with %q; want all three equal, 40 tokens, StopLength",
			res.Text, len(res.Tokens), res.Stop, strings.Join(pieces, ""), want)
	}
	// Run again with a stop string taken from the middle of that text: the
	// same draws (same seed) up to it, then a stop.
	text := res.Text
	if len(text) < 12 {
		t.Fatalf("the test model produced only %q", text)
	}
	start := len(text) / 2
	for !utf8.RuneStart(text[start]) {
		start++
	}
	end := start + 1
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	stop := text[start : end+min(3, len(text)-end)]
	stop = strings.ToValidUTF8(stop, "")
	want := text[:strings.Index(text, stop)]
	res2, err := Run(context.Background(), newSession(t, c, 6), newSampler(t, c.Vocab, p), tok, prompt, []string{stop}, Options{MaxTokens: 40},
		func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res2.Text != want || res2.Stop != StopString {
		t.Fatalf("Run with stop string %q: Text %q, stop %v; want %q, StopString", stop, res2.Text, res2.Stop, want)
	}
	completes := 1 // the token whose text completes the stop string
	for !strings.Contains(continuation(tok, prompt, res.Tokens[:completes]), stop) {
		completes++
	}
	if fmt.Sprint(res2.Tokens) != fmt.Sprint(res.Tokens[:completes]) {
		t.Fatalf("Run with stop string %q generated %d tokens; want the %d up to the one that completes it: stop generating at the stop string", stop, len(res2.Tokens), completes)
	}
	// Run again with a stop string that the text's last character begins
	// but that never comes: that character is held back to the end, and
	// must still be emitted when generation stops at MaxTokens.
	last, _ := utf8.DecodeLastRuneInString(text)
	never := string(last) + "\x00never"
	pieces = nil
	res3, err := Run(context.Background(), newSession(t, c, 6), newSampler(t, c.Vocab, p), tok, prompt, []string{never}, Options{MaxTokens: 40},
		func(s string) error { pieces = append(pieces, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res3.Text != text || strings.Join(pieces, "") != text || res3.Stop != StopLength {
		t.Fatalf("Run with the stop string %q, which the text's last character %q begins: Text %q, emitted %q, stop %v; want all of %q and StopLength: when generation ends, emit what was held back",
			never, last, res3.Text, strings.Join(pieces, ""), res3.Stop, text)
	}
	// The same run with an emit that fails on that last, flushed piece:
	// Run must return its error.
	boom := errors.New("the client went away at the end")
	calls := 0
	_, err = Run(context.Background(), newSession(t, c, 6), newSampler(t, c.Vocab, p), tok, prompt, []string{never}, Options{MaxTokens: 40},
		func(string) error {
			if calls++; calls == len(pieces) {
				return boom
			}
			return nil
		})
	if !errors.Is(err, boom) {
		t.Fatalf("Run whose emit fails on the piece flushed at the end: error %v, want that emit error", err)
	}
}

func TestC11_4_RunErrors(t *testing.T) {
	tok := gpt2(t)
	c := tinyConfig(tok.VocabSize(), 96)
	prompt := tok.Encode("Once upon a time", unit04.EncodeOptions{})
	boom := errors.New("the client went away")
	n := 0
	res, err := Run(context.Background(), newSession(t, c, 6), newSampler(t, c.Vocab, DefaultParams()), tok, prompt, nil, Options{MaxTokens: 40},
		func(string) error {
			if n++; n == 2 {
				return boom
			}
			return nil
		})
	if !errors.Is(err, boom) || len(res.Tokens) >= 40 {
		t.Fatalf("Run whose emit fails on the second piece: %v after %d tokens; want that error, and generation stopped", err, len(res.Tokens))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	res, err = Run(ctx, newSession(t, c, 6), newSampler(t, c.Vocab, DefaultParams()), tok, prompt, nil, Options{MaxTokens: 40},
		func(string) error {
			calls++
			cancel()
			return nil
		})
	if !errors.Is(err, context.Canceled) || res.Stop != StopCanceled || calls != 1 {
		t.Fatalf("Run canceled from the first emit: %v, stop %v, %d emits; want context.Canceled, StopCanceled, and no second emit", err, res.Stop, calls)
	}
}
