// Records llama.cpp's view of unit10's conformance models: the prompt's token
// ids, 32 greedy tokens, and the top-10 logits before each of them, into
// unit10/testdata/llamacpp-models.json. llama.cpp is the independent
// reference: it reads the files and runs the models with its own code.
// A model with a NAME.long.json beside it (genmodels writes them for the
// long-context models) is instead teacher-forced on that file's token ids
// in one evaluation (batches of 512, as llama.cpp's default), and its top 10
// recorded at that file's positions.
//
// With --kv f16 as a third argument, the short models run with an F16 KV
// cache instead (llama.cpp's default), and only their greedy tokens and
// top 10 are written: the record of unit10/testdata/llamacpp-f16cache.json.
//
// Usage (from the repository root): see ci/ggufref/README.md.
import {getLlama} from "node-llama-cpp";
import {createHash} from "node:crypto";
import {existsSync, readFileSync, writeFileSync, readdirSync} from "node:fs";

const [modelsDir, outPath, kvFlag, kvValue] = process.argv.slice(2);
if (kvFlag !== undefined && (kvFlag !== "--kv" || !["f16", "f32"].includes(kvValue))) {
	console.error("usage: node record.mjs MODELS_DIR [OUT.json] [--kv f16|f32]");
	process.exit(2);
}
const kv = (kvValue ?? "f32").toUpperCase();
const prompt = "The quick brown fox jumps over the lazy dog. Numbers: 12345, and a question?";
const steps = 32;
const llama = await getLlama({gpu: false, build: "never"});

const models = [];
const long = [];
for (const file of readdirSync(modelsDir).filter((f) => f.endsWith(".gguf")).sort()) {
	const path = `${modelsDir}/${file}`;
	const sha256 = createHash("sha256").update(readFileSync(path)).digest("hex");
	const model = await llama.loadModel({modelPath: path, gpuLayers: 0});
	const longPath = path.replace(/\.gguf$/, ".long.json");
	if (existsSync(longPath)) { // a long-context model: F32 only
		if (kv === "F32") long.push({file, sha256, ...await recordLong(model, JSON.parse(readFileSync(longPath, "utf8")))});
		await model.dispose();
		continue;
	}
	const context = await model.createContext({
		contextSize: 128, batchSize: 128, sequences: 1, threads: 1, flashAttention: false,
		experimentalKvCacheKeyType: kv, experimentalKvCacheValueType: kv,
	});
	const sequence = context.getSequence();
	let tokens = Array.from(model.tokenize(prompt, false));
	if (model.tokens.shouldPrependBosToken && model.tokens.bos != null) {
		tokens = [model.tokens.bos, ...tokens];
	}
	const promptIds = tokens.slice();
	const generated = [];
	const top = [];
	const want = {generateNext: {logits: {filter: {tokens: [], includeTop: 10}}}};
	let input = tokens.map((t, i) => (i === tokens.length - 1 ? [t, want] : t));
	for (let step = 0; step < steps; step++) {
		const results = await sequence.controlledEvaluate(input);
		const next = results[results.length - 1].next;
		const entries = [...next.logits.entries()].slice(0, 10);
		top.push(entries.map(([id, logit]) => [id, logit]));
		const best = entries[0][0]; // sorted high to low; ties keep the lower id first
		generated.push(best);
		input = [[best, want]];
	}
	models.push({file, sha256, prompt_ids: promptIds, greedy: generated, top10: top});
	console.log(`${file}: prompt ${promptIds.length} tokens, greedy ${generated.slice(0, 8).join(" ")} …`);
	await context.dispose();
	await model.dispose();
}
const out = {
	source: `llama.cpp via node-llama-cpp 3.22.1 (@node-llama-cpp/linux-x64 3.22.1), CPU, 1 thread, ${kv} KV cache, no flash attention`,
	prompt, steps, models, long,
};
writeFileSync(outPath ?? new URL("../../unit10/testdata/llamacpp-models.json", import.meta.url), JSON.stringify(out, null, 1) + "\n");

// recordLong teacher-forces a long-context model on spec.tokens and returns
// llama.cpp's top 10 after each of spec.positions.
async function recordLong(model, spec) {
	const context = await model.createContext({
		contextSize: spec.context, batchSize: 512, sequences: 1, threads: 1, flashAttention: false,
		experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32",
	});
	const want = {generateNext: {logits: {filter: {tokens: [], includeTop: 10}}}};
	const at = new Set(spec.positions);
	const results = await context.getSequence().controlledEvaluate(spec.tokens.map((t, i) => (at.has(i) ? [t, want] : t)));
	const top10 = spec.positions.map((p) => [...results[p].next.logits.entries()].slice(0, 10).map(([id, logit]) => [id, logit]));
	console.log(`long: ${spec.tokens.length} tokens, top 10 at ${spec.positions.length} positions`);
	await context.dispose();
	return {tokens: spec.tokens, positions: spec.positions, top10};
}
