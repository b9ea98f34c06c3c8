#!/usr/bin/env bash
# Forge's engine against llama.cpp on this machine and one model: builds
# bin/llm, writes a TinyLlama-shaped Q4_0 model if it is missing, runs
# `llm bench --json` and bench.mjs with the same settings, and prints a
# Markdown table. See ci/llamabench/README.md. Not part of make test.
#
# Settings (environment): MODEL, THREADS (1,2), P (512), N (128), D (0:
# llama-bench's depths, a comma list such as 0,1024,4096), R (3), KV (the
# KV cache type of both engines: f16, as llama.cpp's default, f32 or q8_0),
# FA (1: llama.cpp with flash attention, as Forge always is; q8_0 needs
# it), GO (go).
set -euo pipefail

cd "$(dirname "$0")/../.."
MODEL=${MODEL:-/tmp/forge-bench-tinyllama-q4_0.gguf}
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
if [ ! -s "$MODEL" ]; then
	echo "writing $MODEL" >&2
	bin/llm gen --shape tinyllama-1.1b --type q4_0 --vocab spm --seed 1 -o "$MODEL"
fi
if [ ! -e ci/llamabench/node_modules ]; then
	echo "installing node-llama-cpp into ci/llamabench/node_modules" >&2
	(cd ci/llamabench && npm install --omit=optional --ignore-scripts --no-audit --no-fund)
fi

out=$(mktemp -d /tmp/forge-llamabench.XXXXXX)
echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (anything busy skews both engines)" >&2

echo "Forge: bin/llm bench -m $MODEL -p $P -n $N -d $D -t $THREADS -r $R -ctk $KV -ctv $KV --json" >&2
bin/llm bench -m "$MODEL" -p "$P" -n "$N" -d "$D" -t "$THREADS" -r "$R" -ctk "$KV" -ctv "$KV" --json | tee "$out/forge.jsonl" >&2

echo "llama.cpp: node ci/llamabench/bench.mjs $MODEL --threads $THREADS -p $P -n $N -d $D -r $R --kv $KV ${fa[*]}" >&2
node ci/llamabench/bench.mjs "$MODEL" --threads "$THREADS" -p "$P" -n "$N" -d "$D" -r "$R" --kv "$KV" "${fa[@]}" | tee "$out/llamacpp.jsonl" >&2

echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg); raw results in $out" >&2
echo
"$GO" run ./ci/llamabench/table "$out/forge.jsonl" "$out/llamacpp.jsonl"
