package unit04

import (
	"strings"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/tiktoken-go/tokenizer"

	"github.com/llmforge/forge/bosses"
)

// The boss "byte for byte": on the whole corpus the ids agree exactly with
// llama.cpp (GPT-2 and Phi-3 vocabularies) and with tiktoken-go (GPT-2's
// r50k and cl100k, Llama 3's pattern), text survives the round trip, and
// encoding is at least as fast as tiktoken-go's.

// cl100k builds a Tokenizer over tiktoken's cl100k_base: its tokens, read
// back from tiktoken-go, ranked by id, split by Llama 3's pattern.
func cl100k(t testing.TB) (*Tokenizer, tiktoken.Codec) {
	t.Helper()
	codec, err := tiktoken.Get(tiktoken.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	toks := make([]string, 100256)
	for id := range toks {
		s, err := codec.Decode([]uint{uint(id)})
		if err != nil {
			t.Fatalf("cl100k token %d: %v", id, err)
		}
		toks[id] = ToByteLevel([]byte(s))
	}
	tk, err := New(&Vocab{Model: "gpt2", Pre: "llama-bpe", Tokens: toks, BOS: -1, EOS: -1, UNK: -1})
	if err != nil {
		t.Fatal(err)
	}
	return tk, codec
}

func r50k(t testing.TB) tiktoken.Codec {
	t.Helper()
	codec, err := tiktoken.Get(tiktoken.R50kBase)
	if err != nil {
		t.Fatal(err)
	}
	return codec
}

func tiktokenIDs(t testing.TB, c tiktoken.Codec, s string) []int {
	ids, _, err := c.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// agreement counts the corpus strings on which our ids equal a reference's.
func agreement(t *testing.T, name string, tk *Tokenizer, texts []string, want func(string) []int) {
	t.Helper()
	bad := 0
	for _, s := range texts {
		if got, w := tk.Encode(s, EncodeOptions{}), want(s); !sameIDs(got, w) {
			if bad++; bad <= 3 {
				t.Errorf("%s: Encode(%q)\n got %v\nwant %v (%s)", name, s, got, w, firstDiff(got, w))
			}
		}
	}
	t.Logf("%s: %d of %d strings agree", name, len(texts)-bad, len(texts))
}

func TestBoss4_ByteForByte(t *testing.T) {
	texts := corpus(t)
	gpt2, phi3 := newTokenizer(t, "gpt-2"), newTokenizer(t, "phi-3")
	for _, ref := range []struct {
		name string
		tk   *Tokenizer
	}{{"gpt-2", gpt2}, {"phi-3", phi3}} {
		cases := llamaCpp(t, ref.name)
		byText := map[string][]int{}
		for _, c := range cases {
			byText[c.Text] = c.IDs
		}
		agreement(t, "llama.cpp "+ref.name, ref.tk, texts, func(s string) []int { return byText[s] })
	}
	r50 := r50k(t)
	agreement(t, "tiktoken r50k", gpt2, texts, func(s string) []int { return tiktokenIDs(t, r50, s) })
	cl, codec := cl100k(t)
	agreement(t, "tiktoken cl100k", cl, texts, func(s string) []int { return tiktokenIDs(t, codec, s) })

	for _, s := range texts {
		for name, tk := range map[string]*Tokenizer{"gpt-2": gpt2, "cl100k": cl, "phi-3": phi3} {
			if name == "phi-3" && strings.Contains(s, "\u2581") {
				continue
			}
			if got := tk.Decode(tk.Encode(s, EncodeOptions{})); got != s {
				t.Errorf("%s: Decode(Encode(%q)) = %q", name, s, got)
			}
		}
	}
}

// FuzzRoundTrip checks, on arbitrary input, that encoding never panics,
// that valid UTF-8 comes back unchanged, and that GPT-2 ids agree with
// tiktoken-go's r50k (go test -fuzz FuzzRoundTrip ./unit04).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "hello world", "ied 4 ½ months", "👨‍👩‍👧‍👦", "\xff\xfe", "  \n\tx", "it's 123456"} {
		f.Add(s)
	}
	gpt2, phi3 := newTokenizer(f, "gpt-2"), newTokenizer(f, "phi-3")
	r50 := r50k(f)
	f.Fuzz(func(t *testing.T, s string) {
		g := gpt2.Encode(s, EncodeOptions{})
		p := phi3.Encode(s, EncodeOptions{ParseSpecial: true})
		if !utf8.ValidString(s) {
			return // invalid input: it must only not panic
		}
		if got := gpt2.Decode(g); got != s {
			t.Fatalf("gpt-2: Decode(Encode(%q)) = %q", s, got)
		}
		if !strings.Contains(s, "\u2581") && !strings.Contains(s, "<") {
			if got := phi3.Decode(p); got != s {
				t.Fatalf("phi-3: Decode(Encode(%q)) = %q", s, got)
			}
		}
		if want := tiktokenIDs(t, r50, s); !sameIDs(g, want) {
			t.Fatalf("gpt-2 vs tiktoken r50k on %q: %v vs %v", s, g, want)
		}
	})
}

// BenchmarkBoss4_ByteForByte reports encoding throughput over the whole
// corpus relative to tiktoken-go's on the same strings, for r50k (our
// tokenizer built from the GPT-2 GGUF) and cl100k (built from tiktoken's
// tokens), timed back to back (PairedRatio), and our absolute speed.
func BenchmarkBoss4_ByteForByte(b *testing.B) {
	texts := corpus(b)
	gpt2 := newTokenizer(b, "gpt-2")
	cl, clCodec := cl100k(b)
	r50 := r50k(b)
	rounds := 15
	if testing.Short() {
		rounds = 7
	}
	encodeAll := func(tk *Tokenizer) func() {
		return func() {
			for _, s := range texts {
				tk.Encode(s, EncodeOptions{})
			}
		}
	}
	tiktokenAll := func(c tiktoken.Codec) func() {
		return func() {
			for _, s := range texts {
				c.Encode(s)
			}
		}
	}
	bytes := 0
	for _, s := range texts {
		bytes += len(s)
	}
	for b.Loop() {
		b.ReportMetric(bosses.PairedRatio(rounds, encodeAll(gpt2), tiktokenAll(r50)), "x-tiktoken-r50k")
		b.ReportMetric(bosses.PairedRatio(rounds, encodeAll(cl), tiktokenAll(clCodec)), "x-tiktoken-cl100k")
		b.ReportMetric(float64(bytes)/1e6/timed(encodeAll(gpt2)), "MB/s-gpt2")
	}

}

// timed returns the fastest of five runs of f, in seconds.
func timed(f func()) float64 {
	best := 0.0
	for range 5 {
		d := bosses.Seconds(f)
		if best == 0 || d < best {
			best = d
		}
	}
	return best
}
