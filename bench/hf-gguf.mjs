#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// Peer benchmark: parse one local GGUF header with @huggingface/gguf and print
// a JSON summary comparable to `quantaudit --format json --summary FILE`.
//
//   node hf-gguf.mjs FILE...                parse each once, print one
//                                           summary line per file (the
//                                           many-files-in-one-process form)
//   node hf-gguf.mjs --iterations N FILE    parse N times in-process (after 3
//                                           warm-up parses) and add the mean
//                                           in-process time per parse
//   node hf-gguf.mjs --import-only          load the modules and exit
//                                           (start-up baseline)
//   node hf-gguf.mjs --check QA.json FILE   also compare with a full
//                                           (non --summary) quantaudit JSON
//                                           report of FILE; prints each
//                                           mismatch, exits 1 if any
//
// Offsets: @huggingface/gguf reports tensor offsets relative to the data
// section (tensorDataOffset); quantaudit reports absolute file offsets, so
// the summary adds tensorDataOffset. Key count: @huggingface/gguf's metadata
// object includes three pseudo-keys (version, tensor_count, kv_count), which
// are subtracted.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { gguf } from "@huggingface/gguf";

const PSEUDO_KEYS = ["version", "tensor_count", "kv_count"];

function usage() {
	console.error("usage: node hf-gguf.mjs [--iterations N] [--check QA.json] FILE | FILE...");
	process.exit(2);
}

let iterations = 0;
let check = null;
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === "--iterations") iterations = Number(argv[++i]);
	else if (argv[i] === "--check") check = argv[++i];
	else if (argv[i] === "--import-only") process.exit(0); // start-up baseline
	else files.push(argv[i]);
}
if (!files.length || !(iterations >= 0) || (files.length > 1 && (iterations || check))) usage();
const file = files[0];

async function summarize(path) {
	const r = await gguf(path, { allowLocalFile: true, computeParametersCount: true });
	const base = r.tensorDataOffset;
	const t = r.tensorInfos;
	return {
		tool: "@huggingface/gguf",
		path,
		version: r.metadata.version,
		keys: Object.keys(r.metadata).length - PSEUDO_KEYS.length,
		tensors: t.length,
		params: r.parameterCount,
		data_offset: Number(base),
		first_tensor: t.length ? { name: t[0].name, offset: Number(base + t[0].offset) } : null,
		last_tensor: t.length ? { name: t[t.length - 1].name, offset: Number(base + t[t.length - 1].offset) } : null,
		// kept for --check, not printed
		_all: t.map((x) => [x.name, Number(base + x.offset)]),
	};
}

function print(s) {
	const { _all, ...out } = s;
	return JSON.stringify(out);
}

if (files.length > 1) {
	let bad = 0;
	for (const f of files) {
		try {
			console.log(print(await summarize(f)));
		} catch (e) {
			console.error(`${f}: ${e.message}`);
			bad = 1;
		}
	}
	process.exit(bad);
}

const first = await summarize(file);

if (iterations > 0) {
	for (let i = 0; i < 3; i++) print(await summarize(file));
	let sink = 0;
	const t0 = performance.now();
	for (let i = 0; i < iterations; i++) sink += print(await summarize(file)).length;
	const t1 = performance.now();
	first.inprocess_iterations = iterations;
	first.inprocess_ms_per_parse = Number(((t1 - t0) / iterations).toFixed(4));
	first._sink = sink > 0;
}

let mismatches = [];
if (check) {
	const qa = JSON.parse(readFileSync(check, "utf8"));
	const inp = qa.inputs[0];
	const qt = inp.tensors ?? [];
	const qfile = inp.files.find((f) => f.format === "gguf") ?? inp.files[0];
	const cmp = (what, a, b) => {
		if (a !== b) mismatches.push(`${what}: @huggingface/gguf ${a} vs quantaudit ${b}`);
	};
	cmp("tensor count", first.tensors, qt.length);
	cmp("key count", first.keys, Object.keys(inp.metadata ?? {}).length);
	cmp("params", first.params, inp.model?.params);
	if (qt.length && qfile.data_offset !== undefined) cmp("data offset", first.data_offset, qfile.data_offset);
	if (first.tensors && qt.length) {
		cmp("first tensor name", first.first_tensor.name, qt[0].name);
		cmp("first tensor offset", first.first_tensor.offset, qt[0].offset);
		cmp("last tensor name", first.last_tensor.name, qt[qt.length - 1].name);
		cmp("last tensor offset", first.last_tensor.offset, qt[qt.length - 1].offset);
		// every tensor, in file order
		let bad = 0;
		const n = Math.min(first._all.length, qt.length);
		for (let i = 0; i < n; i++) {
			const [name, off] = first._all[i];
			if (name !== qt[i].name || off !== qt[i].offset) {
				if (bad < 5)
					mismatches.push(`tensor #${i}: @huggingface/gguf ${name}@${off} vs quantaudit ${qt[i].name}@${qt[i].offset}`);
				bad++;
			}
		}
		if (bad > 5) mismatches.push(`... ${bad} tensors differ in all`);
	}
	first.check = { against: check, ok: mismatches.length === 0, mismatches };
}

delete first._sink;
console.log(print(first));
process.exit(mismatches.length ? 1 : 0);
