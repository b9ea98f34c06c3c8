package unit13

// Entry is one sequence's part of a batched step (Runner.Step): its last N
// positions, which Seq.Append has added and whose keys and values the step
// computes. A decode step's entry has N = 1, its sampled token appended; a
// prompt's entry holds a chunk of its tokens.
type Entry struct {
	Seq *Seq
	N   int
}

// MaxStepTokens bounds the tokens of a step (NewRunner's maxTokens):
// llama.cpp's largest default batch is 2,048 tokens, and a step of many
// more would only hold scratch memory.
const MaxStepTokens = 1 << 16
