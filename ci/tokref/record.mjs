// Records llama.cpp's token ids for every string of unit04/testdata/corpus.json
// with each vocabulary in unit04/testdata, into unit04/testdata/llamacpp-<vocab>.json.
// llama.cpp is the independent reference: it tokenizes with its own C++ code.
//
// Usage (from the repository root): see ci/tokref/README.md.
import {getLlama} from "node-llama-cpp";
import {readFileSync, writeFileSync} from "node:fs";

const testdata = new URL("../../unit04/testdata/", import.meta.url);
const corpus = JSON.parse(readFileSync(new URL("corpus.json", testdata), "utf8"));
const llama = await getLlama({gpu: false, build: "never"});

for (const vocab of ["gpt-2", "phi-3"]) {
	const model = await llama.loadModel({
		modelPath: new URL(`ggml-vocab-${vocab}.gguf`, testdata).pathname,
		vocabOnly: true,
		gpuLayers: 0,
	});
	const cases = corpus.map((text) => {
		const c = {text, ids: Array.from(model.tokenize(text, false))};
		if (text.includes("<")) {
			// With special tokens parsed, as a chat template's text is.
			c.special_ids = Array.from(model.tokenize(text, true));
		}
		return c;
	});
	const out = {
		source: "llama.cpp via node-llama-cpp 3.22.1 (@node-llama-cpp/linux-x64 3.22.1), tokenize(text, specialTokens), no BOS",
		vocab: `ggml-vocab-${vocab}.gguf`,
		cases,
	};
	writeFileSync(new URL(`llamacpp-${vocab}.json`, testdata), JSON.stringify(out, null, 1) + "\n");
	console.log(`llamacpp-${vocab}.json: ${cases.length} strings`);
	await model.dispose();
}
