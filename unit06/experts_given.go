// Package unit06 is the mixture of experts: a feed-forward block made of
// many experts of which each token uses only a few. The router (6.1)
// chooses a token's experts and weighs them, one token's sparse block
// (6.2) reads only the chosen experts' weights, a prompt's block (6.3)
// groups its tokens by expert so that each expert runs one matrix product,
// and seeded random weights (6.4) make whole MoE models that unit05's
// forward pass runs end to end.
//
// Read docs/unit06.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit06

import "github.com/llmforge/forge/unit05"

// MaxExperts is the most experts a layer may have, as in llama.cpp.
const MaxExperts = 512

// Choice is one expert the router chose for a token, and the weight of
// that expert's output in the token's result.
type Choice struct {
	Expert int
	Weight float32
}

// Weights are one layer's mixture-of-experts weights, named after their
// GGUF tensors (blk.N.ffn_gate_inp.weight, …). Every matrix is stored
// [out, in], as in unit05.
type Weights struct {
	// Router is Experts × Dim: ffn_gate_inp. Its rows give each expert's
	// logit for a token.
	Router unit05.Matrix
	// Gate[e] and Up[e] are FFN × Dim and Down[e] is Dim × FFN: expert e's
	// slices of the 3-D tensors ffn_gate_exps, ffn_up_exps and
	// ffn_down_exps. Every expert has the same FFN width.
	Gate, Up, Down []unit05.Matrix
	// Used is k, the number of experts each token runs
	// ({arch}.expert_used_count).
	Used int
	// Renormalize divides the k chosen probabilities by their sum, so the
	// weights add up to 1: Mixtral (GGUF architecture llama) and
	// Qwen3-MoE. Qwen2-MoE and OLMoE use the probabilities as they are.
	Renormalize bool

	// The shared expert, which every token runs besides its chosen ones
	// (Qwen2-MoE); all nil when the layer has none. SharedGateInp (Dim:
	// ffn_gate_inp_shexp) gates its output by σ(SharedGateInp·x);
	// SharedGate and SharedUp are SharedFFN × Dim (ffn_gate_shexp,
	// ffn_up_shexp) and SharedDown is Dim × SharedFFN (ffn_down_shexp).
	SharedGateInp                    []float32
	SharedGate, SharedUp, SharedDown unit05.Matrix
}

// Config holds a model's expert hyper-parameters, the values a GGUF file
// stores under {arch}.expert_*: what RandomWeights needs besides the
// unit05.Config of the rest of the model.
type Config struct {
	Experts     int  // experts per layer (expert_count), 1 to MaxExperts
	Used        int  // experts each token runs (expert_used_count), 1 to Experts
	FFN         int  // hidden width of one expert (expert_feed_forward_length)
	Renormalize bool // the k weights are divided by their sum (Mixtral)
	SharedFFN   int  // hidden width of the shared expert; 0: none
}
