#!/usr/bin/env bash
# Forge's engine against llama.cpp on this machine: builds bin/llm, writes
# the models it measures if they are missing (llm gen), runs `llm bench
# --json` and bench.mjs with the same settings on each, and prints one
# Markdown table. See ci/llamabench/README.md. Not part of make test.
#
# Settings (environment): MODELS (a space-separated list of
# SHAPE:TYPE[:VOCAB] for llm gen, VOCAB the vocabulary's size padded to a
# real model's; by default the table of the README: TinyLlama 1.1B in
# Q4_0, Q8_0 and Q4_K_M, Llama 3.2 1B in Q4_K_M with its 128,256 tokens,
# Qwen2.5 0.5B in Q4_K_M and Q8_0 with its 151,936), MODEL (one file
# instead, as it is), THREADS (1,2), P (512),
# N (128), D (0: llama-bench's depths, a comma list such as 0,4096), R
# (3), KV (the KV cache type of both engines: f16, as llama.cpp's default,
# f32 or q8_0), FA (1: llama.cpp with flash attention, as Forge always is;
# q8_0 needs it), GO (go).
set -euo pipefail

cd "$(dirname "$0")/../.."
MODELS=${MODELS:-tinyllama-1.1b:q4_0 tinyllama-1.1b:q8_0 tinyllama-1.1b:q4_k_m llama-3.2-1b:q4_k_m:128256 qwen2.5-0.5b:q4_k_m:151936 qwen2.5-0.5b:q8_0:151936}
MODEL=${MODEL:-}
THREADS=${THREADS:-1,2}
P=${P:-512}
N=${N:-128}
D=${D:-0}
R=${R:-3}
KV=${KV:-f16}
FA=${FA:-0}
GO=${GO:-go}
fa=()
if [ "$FA" = 1 ]; then fa=(--fa); fi

make engine >&2
files=()
if [ -n "$MODEL" ]; then
	files=("$MODEL")
else
	for m in $MODELS; do
		IFS=: read -r shape type vocab <<<"$m"
		f=/tmp/forge-bench-$shape-$type${vocab:+-v$vocab}.gguf
		if [ ! -s "$f" ]; then
			echo "writing $f" >&2
			bin/llm gen --shape "$shape" --type "$type" --vocab spm ${vocab:+--vocab-size "$vocab"} --seed 1 -o "$f" >&2
		fi
		files+=("$f")
	done
fi
if [ ! -e ci/llamabench/node_modules ]; then
	echo "installing node-llama-cpp into ci/llamabench/node_modules" >&2
	(cd ci/llamabench && npm install --omit=optional --ignore-scripts --no-audit --no-fund)
fi

out=$(mktemp -d /tmp/forge-llamabench.XXXXXX)
echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (anything busy skews both engines)" >&2

for f in "${files[@]}"; do
	echo "Forge: bin/llm bench -m $f -p $P -n $N -d $D -t $THREADS -r $R -ctk $KV -ctv $KV --json" >&2
	bin/llm bench -m "$f" -p "$P" -n "$N" -d "$D" -t "$THREADS" -r "$R" -ctk "$KV" -ctv "$KV" --json | tee -a "$out/forge.jsonl" >&2
	echo "llama.cpp: node ci/llamabench/bench.mjs $f --threads $THREADS -p $P -n $N -d $D -r $R --kv $KV ${fa[*]}" >&2
	node ci/llamabench/bench.mjs "$f" --threads "$THREADS" -p "$P" -n "$N" -d "$D" -r "$R" --kv "$KV" "${fa[@]}" | tee -a "$out/llamacpp.jsonl" >&2
done

echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg); raw results in $out" >&2
echo
"$GO" run ./ci/llamabench/table "$out/forge.jsonl" "$out/llamacpp.jsonl"
