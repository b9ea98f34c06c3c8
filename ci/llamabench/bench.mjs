// Measures llama.cpp's prompt processing (pp) and text generation (tg)
// speed on one GGUF file, the way llama-bench does, and prints one JSON
// object per test and thread count in the format of `llm bench --json`, so
// that run.sh can put the two engines side by side. See README.md.
//
//	node bench.mjs MODEL.gguf [--threads 1,2] [-p 512] [-n 128] [-d 0,1024] [-r 3] [--kv f16|f32|q8_0] [--fa]
//
// pp: -p tokens evaluated as one batch into an empty sequence (logits of
// the last one only, as llama-bench asks for). tg: after a short prompt, -n
// tokens evaluated one at a time, one decode step each, with their logits
// and a greedy pick; the tokens fed in are fixed ids, not the picks. Each
// test runs once to warm up, then -r times; tps is the mean of the -r
// runs' tokens per second and tps_stddev their sample standard deviation.
// -d (llama-bench's depth) runs each test again after that many tokens in
// the sequence, filled untimed once per thread count and depth and erased
// back to after each run, and names it as llama-bench does ("pp512 @
// d1024"); at depth 0 tg still follows its short untimed prompt.
//
// stdout has only the JSON lines; llama.cpp's warnings and the notes below
// go to stderr.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const usage = "usage: node bench.mjs MODEL.gguf [--threads 1,2] [-p 512] [-n 128] [-d 0,1024] [-r 3] [--kv f16|f32|q8_0] [--fa]";
const promptLen = 8; // tokens before the timed tg steps, evaluated untimed

function parseArgs(argv) {
	const o = {model: null, threads: [1], p: 512, n: 128, depths: [0], r: 3, kv: "f16", fa: false};
	const int = (s, min) => {
		const v = Number(s);
		if (!Number.isInteger(v) || v < min) fail(`bad number ${JSON.stringify(s)}`);
		return v;
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const val = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
		if (a === "--threads" || a === "-t") o.threads = val().split(",").map((s) => int(s, 1));
		else if (a === "-p") o.p = int(val(), 0);
		else if (a === "-n") o.n = int(val(), 0);
		else if (a === "-d") o.depths = val().split(",").map((s) => int(s, 0));
		else if (a === "-r") o.r = int(val(), 1);
		else if (a === "--kv") o.kv = val().toLowerCase();
		else if (a === "--fa") o.fa = true;
		else if (a === "-h" || a === "--help") fail(null);
		else if (a.startsWith("-") || o.model != null) fail(`unexpected argument ${a}`);
		else o.model = a;
	}
	if (o.model == null) fail("no model given");
	if (o.p === 0 && o.n === 0) fail("nothing to measure: -p and -n are both 0");
	if (!["f16", "f32", "q8_0"].includes(o.kv)) fail("--kv must be f16, f32 or q8_0");
	if (o.kv === "q8_0" && !o.fa) fail("--kv q8_0 needs --fa: llama.cpp quantizes the V cache only with flash attention");
	return o;
}

function fail(msg) {
	if (msg) console.error(`bench.mjs: ${msg}`);
	console.error(usage);
	process.exit(2);
}

const note = (msg) => console.error(`# ${msg}`);

// Token ids to feed: BOS first when the model wants one, then a fixed
// spread over the vocabulary (what they are does not change the work).
function tokenIds(model, count) {
	const vocab = model.fileInfo.metadata.tokenizer.ggml.tokens.length;
	const ids = [];
	if (model.tokens.shouldPrependBosToken && model.tokens.bos != null) ids.push(model.tokens.bos);
	for (let i = 1; ids.length < count; i++) ids.push(3 + ((i * 7919) % (vocab - 3)));
	return ids;
}

// fill leaves exactly the first n of ids in the sequence, untimed: the
// ones after them erased, the missing ones evaluated. Every test feeds
// the same ids from their start, so the sequence always holds a prefix of
// them.
async function fill(seq, ids, n) {
	const have = seq.nextTokenIndex;
	if (have > n) await seq.eraseContextTokenRanges([{start: n, end: have}]);
	else if (have < n) await seq.controlledEvaluate(ids.slice(have, n));
}

// pp: one batch of tokens after the sequence's first `depth` ids; returns
// tokens/s.
async function promptProcessing(seq, ids, depth, n) {
	await fill(seq, ids, depth);
	const tokens = ids.slice(depth, depth + n);
	const last = tokens.length - 1;
	const input = tokens.map((t, i) => (i === last ? [t, {generateNext: {token: true}}] : t));
	const start = performance.now();
	await seq.controlledEvaluate(input);
	return tokens.length / ((performance.now() - start) / 1000);
}

// tg: the first `prefix` ids untimed, then one decode step per token;
// returns tokens/s.
async function textGeneration(seq, ids, prefix, n) {
	await fill(seq, ids, prefix - 1);
	const tokens = ids.slice(prefix, prefix + n);
	const steps = seq.evaluate(ids.slice(prefix - 1, prefix), {temperature: 0, yieldEogToken: true});
	await steps.next(); // evaluates the prefix's last id
	const start = performance.now();
	for (const t of tokens) await steps.next(t); // evaluates t, in place of the pick
	const seconds = (performance.now() - start) / 1000;
	await steps.return();
	return tokens.length / seconds;
}

function meanStddev(xs) {
	const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
	const sd = xs.length < 2 ? 0 : Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
	return [mean, sd];
}

const round2 = (x) => Math.round(x * 100) / 100;

const opts = parseArgs(process.argv.slice(2));
let perfLines = []; // llama.cpp's llama_perf_context_print lines, while printTimings runs
const llama = await getLlama({
	gpu: false, build: "never", maxThreads: 0, logLevel: LlamaLogLevel.warn,
	logger: (level, msg) => {
		if (msg.includes("llama_perf_context_print")) perfLines.push(msg);
		else if (level === LlamaLogLevel.warn || level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) {
			console.error(`llama.cpp: ${msg.trimEnd()}`);
		}
	},
});
const model = await llama.loadModel({modelPath: opts.model, gpuLayers: 0});
const kvType = opts.kv.toUpperCase();
note(`llama.cpp ${llama.llamaCppRelease.release} (node-llama-cpp prebuilt, CPU): ${llama.systemInfo.trim()}`);
note(`${opts.model}: ${model.typeDescription}, ${(model.size / 2 ** 20).toFixed(0)} MiB; KV cache ${opts.kv}, flash attention ${opts.fa ? "on" : "off"}`);

const maxDepth = Math.max(...opts.depths);
const ids = tokenIds(model, maxDepth + Math.max(opts.p, promptLen + opts.n));

for (const threads of opts.threads) {
	const context = await model.createContext({
		// One spare cell: node-llama-cpp splits a batch that would fill the
		// context to its last cell (it keeps room to shift the context).
		contextSize: maxDepth + Math.max(opts.p, promptLen + opts.n) + 1,
		batchSize: Math.max(opts.p, promptLen, maxDepth),
		sequences: 1,
		threads: {ideal: threads, min: threads},
		flashAttention: opts.fa,
		experimentalKvCacheKeyType: kvType,
		experimentalKvCacheValueType: kvType,
		performanceTracking: true,
	});
	const seq = context.getSequence();
	const tests = [];
	for (const d of opts.depths) {
		const at = d > 0 ? ` @ d${d}` : "";
		if (opts.p > 0) tests.push({name: `pp${opts.p}${at}`, n: opts.p, depth: d, run: () => promptProcessing(seq, ids, d, opts.p)});
		if (opts.n > 0) tests.push({name: `tg${opts.n}${at}`, n: opts.n, depth: d, run: () => textGeneration(seq, ids, d > 0 ? d : promptLen, opts.n)});
	}
	let tgWallMs = 0; // wall time of all tg steps, warm-up included, for the overhead note
	for (const test of tests) {
		const warm = await test.run();
		const runs = [];
		for (let i = 0; i < opts.r; i++) runs.push(await test.run());
		if (test.name.startsWith("tg")) tgWallMs += [warm, ...runs].reduce((a, tps) => a + (1000 * test.n) / tps, 0);
		const [mean, sd] = meanStddev(runs);
		note(`${threads} thread(s), ${test.name}: ${runs.map((x) => x.toFixed(2)).join(", ")} t/s (warm-up ${warm.toFixed(2)})`);
		console.log(JSON.stringify({
			model: opts.model, threads, test: test.name, n_tokens: test.n, n_depth: test.depth,
			type_k: opts.kv, type_v: opts.kv, tps: round2(mean), tps_stddev: round2(sd), engine: "llama.cpp",
		}));
	}
	if (context.currentThreads !== threads) note(`warning: llama.cpp ran ${context.currentThreads} threads, not ${threads}`);

	// Node's share of a tg step: wall time per step against llama.cpp's own
	// time for single-token batches (its "eval time": from the start of
	// llama_decode until the logits are read), which counts exactly the tg
	// steps (the prompts and pp batches are "prompt eval"). The difference
	// is node-llama-cpp, the greedy pick and the hops between node's main
	// thread and the decoding thread.
	if (opts.n > 0) {
		perfLines = [];
		llama.logLevel = LlamaLogLevel.info;
		await context.printTimings();
		llama.logLevel = LlamaLogLevel.warn;
		const m = perfLines.join("\n").match(/\beval time =\s*([\d.]+) ms \/\s*(\d+) runs/);
		if (m && Number(m[2]) > 0) {
			// Each tg run also evaluates its prefix's last id alone, untimed.
			const steps = (opts.r + 1) * (opts.n + 1) * opts.depths.length;
			const wall = tgWallMs / steps, inside = Number(m[1]) / Number(m[2]);
			note(`${threads} thread(s), tg: ${wall.toFixed(3)} ms/token wall, ${inside.toFixed(3)} ms/token inside llama_decode ` +
				`(${m[2]} of ${steps} steps): node overhead ${(1000 * (wall - inside)).toFixed(0)} µs/token (${(100 * (1 - inside / wall)).toFixed(1)}%)`);
		}
	}
	await context.dispose();
}
await model.dispose();
await llama.dispose();
