#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// Peer benchmark: parse a local safetensors file or Hugging Face model folder
// with @huggingface/hub's parseSafetensorsMetadata and print a JSON summary
// comparable to `quantaudit --format json --summary PATH`.
//
// parseSafetensorsMetadata only reads from a Hub repository over HTTP (it has
// no local-file mode). It does accept a custom `fetch`, so this script passes
// a small fetch shim that answers the Hub's URLs
// (`<hub>/<repo>/{resolve,raw}/<rev>/<path>`, HEAD and ranged GET) from the
// local folder. The parsing code measured is the library's own; the shim adds
// one open/read/close per request (the library makes a `Range: bytes=0-0`
// probe plus one or two range reads per file).
//
//   node hf-safetensors.mjs PATH                    FILE.safetensors or a folder
//   node hf-safetensors.mjs --iterations N PATH     add in-process mean time
//   node hf-safetensors.mjs --import-only           load the modules and exit
//   node hf-safetensors.mjs --check QA.json PATH    compare with a full
//                                                   quantaudit JSON report
import { openSync, readSync, closeSync, fstatSync, statSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseSafetensorsMetadata } from "@huggingface/hub";

const HUB = "http://local.invalid";
const REPO = "local/model";

function usage() {
	console.error("usage: node hf-safetensors.mjs [--iterations N] [--check QA.json] PATH");
	process.exit(2);
}

let iterations = 0;
let check = null;
let target = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === "--iterations") iterations = Number(argv[++i]);
	else if (argv[i] === "--check") check = argv[++i];
	else if (argv[i] === "--import-only") process.exit(0); // start-up baseline
	else if (target === null) target = argv[i];
	else usage();
}
if (!target || !(iterations >= 0)) usage();

const isDir = statSync(target).isDirectory();
const root = isDir ? target : dirname(target);
const relPath = isDir ? undefined : basename(target);

/** fetch() replacement serving `${HUB}/${REPO}/(resolve|raw)/<rev>/<path>` from `root`. */
async function localFetch(input, init = {}) {
	const url = new URL(typeof input === "string" ? input : (input.href ?? input.url));
	const m = url.pathname.match(/^\/local\/model\/(?:resolve|raw)\/[^/]+\/(.+)$/);
	const notFound = () => new Response(null, { status: 404, headers: { "X-Error-Code": "EntryNotFound" } });
	if (!m) return notFound();
	const rel = decodeURIComponent(m[1]);
	if (rel.split("/").includes("..")) return notFound();
	let fd;
	try {
		fd = openSync(join(root, rel), "r");
	} catch {
		return notFound();
	}
	try {
		const size = fstatSync(fd).size;
		const etag = `"${size}"`;
		if ((init.method ?? "GET") === "HEAD")
			return new Response(null, { status: 200, headers: { "Content-Length": String(size), ETag: etag } });
		const hdrs = new Headers(init.headers ?? {});
		const range = hdrs.get("range")?.match(/^bytes=(\d+)-(\d*)$/);
		let start = 0;
		let end = size - 1;
		if (range) {
			start = Number(range[1]);
			if (range[2] !== "") end = Math.min(Number(range[2]), size - 1);
		}
		const len = Math.max(0, end - start + 1);
		const buf = Buffer.alloc(len);
		let got = 0;
		while (got < len) {
			const n = readSync(fd, buf, got, len - got, start + got);
			if (n === 0) break;
			got += n;
		}
		const headers = { "Content-Length": String(got), ETag: etag, "Accept-Ranges": "bytes" };
		if (range) headers["Content-Range"] = `bytes ${start}-${start + got - 1}/${size}`;
		return new Response(buf.subarray(0, got), { status: range ? 206 : 200, headers });
	} finally {
		closeSync(fd);
	}
}

async function summarize() {
	const r = await parseSafetensorsMetadata({
		repo: REPO,
		hubUrl: HUB,
		path: relPath,
		computeParametersCount: true,
		fetch: localFetch,
	});
	const headers = r.sharded ? r.headers : { [relPath ?? "model.safetensors"]: r.header };
	const all = [];
	for (const [file, h] of Object.entries(headers))
		for (const [name, info] of Object.entries(h)) if (name !== "__metadata__") all.push([file, name, info.data_offsets[0]]);
	return {
		tool: "@huggingface/hub parseSafetensorsMetadata",
		path: target,
		sharded: r.sharded,
		files: Object.keys(headers).length,
		tensors: all.length,
		params: Object.values(r.parameterCount ?? {}).reduce((a, b) => a + b, 0),
		params_by_dtype: r.parameterCount,
		_all: all,
	};
}

function print(s) {
	const { _all, ...out } = s;
	return JSON.stringify(out);
}

const first = await summarize();

if (iterations > 0) {
	for (let i = 0; i < 3; i++) print(await summarize());
	let sink = 0;
	const t0 = performance.now();
	for (let i = 0; i < iterations; i++) sink += print(await summarize()).length;
	const t1 = performance.now();
	first.inprocess_iterations = iterations;
	first.inprocess_ms_per_parse = Number(((t1 - t0) / iterations).toFixed(4));
}

const mismatches = [];
if (check) {
	// Not timed: the hub returns data offsets relative to the data section;
	// read each file's 8-byte header length to make them absolute.
	const qa = JSON.parse(readFileSync(check, "utf8"));
	const inp = qa.inputs[0];
	const qt = inp.tensors ?? [];
	const cmp = (what, a, b) => {
		if (a !== b) mismatches.push(`${what}: @huggingface/hub ${a} vs quantaudit ${b}`);
	};
	cmp("tensor count", first.tensors, qt.length);
	cmp("params", first.params, inp.model?.params);
	const hdrLen = {};
	for (const [file] of first._all) {
		if (hdrLen[file] !== undefined) continue;
		const fd = openSync(join(root, file), "r");
		const b = Buffer.alloc(8);
		readSync(fd, b, 0, 8, 0);
		closeSync(fd);
		hdrLen[file] = 8 + Number(b.readBigUInt64LE(0));
	}
	const qaMap = new Map(qt.map((t) => [`${basename(t.file)}\u0000${t.name}`, t.offset]));
	let bad = 0;
	for (const [file, name, rel] of first._all) {
		const abs = hdrLen[file] + rel;
		const q = qaMap.get(`${basename(file)}\u0000${name}`);
		if (q !== abs) {
			if (bad < 5) mismatches.push(`tensor ${file}:${name}: @huggingface/hub offset ${abs} vs quantaudit ${q}`);
			bad++;
		}
	}
	if (bad > 5) mismatches.push(`... ${bad} tensors differ in all`);
	// first/last tensor by offset, reported for the record
	const byOff = first._all.map(([f, n, rel]) => [f, n, hdrLen[f] + rel]).sort((a, b) => a[0].localeCompare(b[0]) || a[2] - b[2]);
	if (byOff.length) {
		first.first_tensor = { file: byOff[0][0], name: byOff[0][1], offset: byOff[0][2] };
		const l = byOff[byOff.length - 1];
		first.last_tensor = { file: l[0], name: l[1], offset: l[2] };
	}
	first.check = { against: check, ok: mismatches.length === 0, mismatches };
}

console.log(print(first));
process.exit(mismatches.length ? 1 : 0);
