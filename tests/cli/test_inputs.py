# SPDX-License-Identifier: MIT
"""Every input form the resolver (formats/input.c qa_input_resolve) accepts,
end to end through the quantaudit binary, built the way users have them:
each layout is made in a scratch folder from the generated fixtures
($QA_FIXTURES) by hard links (or sparse copies), never by quantaudit.

1. A Hugging Face cache repo folder as huggingface_hub writes it:
   models--org--name/blobs/<hash> (sha256 for LFS files, the git blob sha1
   for small ones), snapshots/<commit>/<file> as relative links into
   ../../blobs/, refs/main holding the commit without a newline, and a
   second snapshot behind refs/v2. The folder (with or without a trailing
   slash), --revision v2, --revision <commit>, an unknown revision.
2. An Ollama store ($OLLAMA_MODELS): manifests/registry.ollama.ai/library/
   <name>/<tag> (schemaVersion 2, docker manifest v2, layers with their
   real sha256 digest and size) and blobs/sha256-<hex>; the manifest path,
   name:tag, bare name (latest), a namespaced hf.co/<org>/<repo>:<tag>, a
   projector layer, unknown names and tags.
3. Git LFS pointer files (git-lfs docs/spec.md) named as models, and a
   checkpoint folder whose shards are pointers.
4. An HTML page saved as a model, an empty file.
5. A FIFO as a path, as a shard, and `-` with a FIFO on standard input:
   an error at once, never a hang.
6. A folder of GGUF files as people keep them: two quants, a split set and
   an mmproj projector (a clip GGUF written here): one input per model,
   the projector counted with each, its tensor bytes in GPU 0's weights.
7. model.safetensors.index.json, config.json or one shard given as the
   path: the whole set with its folder's config.json (docs/formats.md).
8. A split GGUF with a part missing and a config-only folder: fit refuses
   (fit_error, exit 3) and says what is missing.

Every expected value (names, counts, byte sizes, architectures, exit codes
of the --help contract) is worked out here from the files themselves.
"""
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

# The exit codes of `quantaudit --help` (src/cli/cli.c exit_text).
EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_UNRECOGNIZED, EXIT_SYSTEM = 3, 4

INPUT_C = "formats/input.c"

# ---- independent readers -------------------------------------------------

# GGML type: (block bytes, block elements), ggml.c type_traits.
GGML_TYPES = {0: (4, 1), 1: (2, 1), 2: (18, 32), 3: (20, 32), 6: (22, 32),
              7: (24, 32), 8: (34, 32), 9: (36, 32), 10: (84, 256),
              11: (110, 256), 12: (144, 256), 13: (176, 256),
              14: (210, 256), 15: (292, 256), 30: (2, 1)}


def gguf_read(path):
    """The architecture, tensor count and per-tensor bytes of a GGUF file,
    read here from its header (gguf docs: header, key/values, tensor
    infos)."""
    with open(path, "rb") as f:
        def rd(fmt):
            size = struct.calcsize("<" + fmt)
            return struct.unpack("<" + fmt, f.read(size))

        def rd_str():
            (n,) = rd("Q")
            return f.read(n).decode("utf-8")

        scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f",
                  7: "?", 10: "Q", 11: "q", 12: "d"}

        def rd_val(t):
            if t == 8:
                return rd_str()
            if t == 9:
                (et, n) = rd("IQ")
                return [rd_val(et) for _ in range(n)]
            return rd(scalar[t])[0]

        magic = f.read(4)
        assert magic == b"GGUF", path
        (version, n_tensors, n_kv) = rd("IQQ")
        kv = {}
        for _ in range(n_kv):
            key = rd_str()
            (t,) = rd("I")
            kv[key] = rd_val(t)
        tensors = []
        for _ in range(n_tensors):
            name = rd_str()
            (nd,) = rd("I")
            dims = rd("Q" * nd)
            (typ, _off) = rd("IQ")
            elements = 1
            for d in dims:
                elements *= d
            block_bytes, block_elems = GGML_TYPES[typ]
            tensors.append((name, elements // block_elems * block_bytes,
                            elements))
    return dict(arch=kv.get("general.architecture"), kv=kv,
                tensors=tensors)


def st_header(path):
    """The tensors of a safetensors file: {name: (dtype, shape, bytes)}."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        head = json.loads(f.read(n))
    head.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"],
                v["data_offsets"][1] - v["data_offsets"][0])
            for k, v in head.items()}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_sha1(path):
    """The git object id of a file: how the Hub (and so huggingface_hub's
    blobs/ folder) names a file that is not stored in LFS."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# ---- building layouts ----------------------------------------------------

def place(src, dst):
    """dst becomes src's content: a hard link, else a sparse copy (the
    generated models are mostly holes)."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)
        return
    except OSError:
        pass
    size = os.path.getsize(src)
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        pos = 0
        while pos < size:
            try:
                data = os.lseek(fi.fileno(), pos, os.SEEK_DATA)
            except OSError:
                break
            hole = os.lseek(fi.fileno(), data, os.SEEK_HOLE)
            fi.seek(data)
            fo.seek(data)
            left = hole - data
            while left:
                chunk = fi.read(min(left, 1 << 20))
                fo.write(chunk)
                left -= len(chunk)
            pos = hole
        fo.truncate(size)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def gguf_bytes(kvs, tensors, alignment=32):
    """A GGUF v3 file: kvs is [(key, type, value)], tensors
    [(name, dims, ggml type)] with their data zero-filled."""
    def s(x):
        b = x.encode()
        return struct.pack("<Q", len(b)) + b

    def val(t, v):
        if t == 8:
            return s(v)
        if t == 9:
            et, items = v
            return (struct.pack("<IQ", et, len(items)) +
                    b"".join(val(et, i) for i in items))
        return struct.pack("<" + {4: "I", 6: "f", 7: "?", 10: "Q"}[t], v)

    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)))
    for key, t, v in kvs:
        out += s(key) + struct.pack("<I", t) + val(t, v)
    offset, sizes = 0, []
    for name, dims, typ in tensors:
        elements = 1
        for d in dims:
            elements *= d
        block_bytes, block_elems = GGML_TYPES[typ]
        nbytes = elements // block_elems * block_bytes
        out += s(name) + struct.pack("<I", len(dims))
        out += struct.pack("<" + "Q" * len(dims), *dims)
        out += struct.pack("<IQ", typ, offset)
        sizes.append(nbytes)
        offset += (nbytes + alignment - 1) // alignment * alignment
    out += b"\0" * ((-len(out)) % alignment)
    for nbytes in sizes:
        out += b"\0" * nbytes + b"\0" * ((-nbytes) % alignment)
    return bytes(out)


def clip_projector():
    """A small vision projector GGUF as llama.cpp's mmproj converter writes
    it (tools/mtmd/clip-impl.h keys, general.architecture "clip", v.* and
    mm.* tensors): 2 ViT blocks of width 64 and a 2-layer MLP projector
    into a 2048-wide text model."""
    F32, F16, STR, U32, BOOL, ARR = 6, 1, 8, 4, 7, 9
    n, ff, proj, patch, image = 64, 256, 2048, 14, 56
    kvs = [("general.architecture", STR, "clip"),
           ("general.name", STR, "Sample Vision Projector"),
           ("general.file_type", U32, 1),
           ("clip.has_text_encoder", BOOL, False),
           ("clip.has_vision_encoder", BOOL, True),
           ("clip.projector_type", STR, "mlp"),
           ("clip.vision.image_size", U32, image),
           ("clip.vision.patch_size", U32, patch),
           ("clip.vision.embedding_length", U32, n),
           ("clip.vision.feed_forward_length", U32, ff),
           ("clip.vision.projection_dim", U32, proj),
           ("clip.vision.block_count", U32, 2),
           ("clip.vision.attention.head_count", U32, 4),
           ("clip.vision.attention.layer_norm_epsilon", F32, 1e-6),
           ("clip.vision.image_mean", ARR, (F32, [0.5, 0.5, 0.5])),
           ("clip.vision.image_std", ARR, (F32, [0.5, 0.5, 0.5]))]
    fp16, fp32 = 1, 0
    tensors = [("v.patch_embd.weight", [patch, patch, 3, n], fp16),
               ("v.position_embd.weight", [n, (image // patch) ** 2], fp16)]
    for b in range(2):
        p = f"v.blk.{b}."
        for m in ("attn_q", "attn_k", "attn_v", "attn_out"):
            tensors += [(p + m + ".weight", [n, n], fp16),
                        (p + m + ".bias", [n], fp32)]
        tensors += [(p + "ln1.weight", [n], fp32), (p + "ln1.bias", [n], fp32),
                    (p + "ffn_up.weight", [n, ff], fp16),
                    (p + "ffn_up.bias", [ff], fp32),
                    (p + "ffn_down.weight", [ff, n], fp16),
                    (p + "ffn_down.bias", [n], fp32),
                    (p + "ln2.weight", [n], fp32), (p + "ln2.bias", [n], fp32)]
    tensors += [("v.post_ln.weight", [n], fp32), ("v.post_ln.bias", [n], fp32),
                ("mm.0.weight", [n, proj], fp16), ("mm.0.bias", [proj], fp32),
                ("mm.2.weight", [proj, proj], fp16),
                ("mm.2.bias", [proj], fp32)]
    return gguf_bytes(kvs, tensors)


LFS_OID = "4d7a2146" * 8


def lfs_pointer(size):
    # git-lfs docs/spec.md: the canonical pointer, keys sorted, LF endings.
    return (f"version https://git-lfs.github.com/spec/v1\n"
            f"oid sha256:{LFS_OID}\nsize {size}\n")


HTML_PAGE = ("<!DOCTYPE html>\n<html class=\"\" lang=\"en\">\n<head>\n"
             "<meta charset=\"utf-8\" />\n<title>model.safetensors · "
             "org/model at main</title>\n</head>\n<body></body>\n</html>\n")


# ---- the checks ----------------------------------------------------------

def main():
    binary = sys.argv[1]
    fixtures = env_path("QA_FIXTURES")
    qa = Checker()
    fx = lambda *p: os.path.join(fixtures, *p)  # noqa: E731

    # Keep the scratch folder on the fixtures' file system so the multi-GB
    # sparse models are hard links, not copies.
    with tempfile.TemporaryDirectory(prefix="qa-inputs-",
                                     dir=os.path.dirname(fixtures)) as tmp:
        env = dict(os.environ)
        # Ollama lookups must not reach the user's own stores.
        env["HOME"] = os.path.join(tmp, "home")
        env["OLLAMA_MODELS"] = os.path.join(tmp, "ollama")
        os.makedirs(env["HOME"])
        os.environ.update(env)
        ctx = dict(qa=qa, bin=binary, fx=fx, tmp=tmp)
        hf_cache(ctx)
        ollama(ctx)
        lfs(ctx)
        html_and_empty(ctx)
        fifo(ctx)
        gguf_folder(ctx)
        st_index(ctx)
        incomplete(ctx)
        named_twice(ctx)
    qa.finish()


def named_twice(c):
    """A shell glob names every part of a split set, or every shard: one
    model, audited once (src/engine/audit.c repeats_earlier)."""
    qa, q, fx = c["qa"], c["bin"], c["fx"]
    d = fx("gguf", "split")
    parts = sorted(os.path.join(d, n) for n in os.listdir(d)
                   if n.endswith(".gguf"))
    code, doc, err = run_json(q, ["inspect"] + parts)
    ins = doc.get("inputs", [])
    qa.check(len(parts) == 3 and len(ins) == 1 and
             len(ins[0].get("files", [])) == 3,
             f"split parts named one by one: {len(ins)} inputs for "
             f"{len(parts)} parts (src/engine/audit.c)")
    sample = fx("sample", "sample-llama-3.2-1b-Q4_K_M.gguf")
    code, doc, err = run_json(q, ["inspect", sample, parts[1], sample])
    paths = [i.get("path") for i in doc.get("inputs", [])]
    qa.check(len(paths) == 2 and paths[0] == sample,
             f"sample, a part, the sample again: inputs {paths}")


def fit_json(binary, args):
    """`quantaudit fit --format json ARGS` (qa_common.run_json only keeps
    inspect, tensors, check and rules first)."""
    code, out, err = run(binary, ["fit", "--format", "json"] + args)
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError as e:
        raise AssertionError(f"invalid JSON from fit {args}: {e}\n{out[:500]}")


def only_input(qa, doc, what, src=INPUT_C):
    ins = doc.get("inputs", [])
    qa.check(len(ins) == 1, f"{what}: {len(ins)} inputs, want 1 ({src})")
    return ins[0] if ins else {}


def n_tensors(inp):
    return sum(f.get("tensors", 0) for f in inp.get("files", [])
               if f.get("role") != "mmproj")


def codes(inp):
    return {f["code"] for f in inp.get("findings", [])}


# 1 ---------------------------------------------------------------------------

def hf_cache(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    cache = os.path.join(tmp, "hub")
    repo = os.path.join(cache, "models--LiquidAI--LFM2-1.2B")
    main_commit = "5e3d4ef2f4bb5a7f7b0de5ef9e5a2d0d6a1a7c31"
    v2_commit = "a9c0f1e2d3b4a5968778695a4b3c2d1e0f9a8b7c"
    main_src, v2_src = fx("hub", "lfm2-1.2b"), fx("hub", "kimi-k2-like")

    def snapshot(commit, src):
        for name in sorted(os.listdir(src)):
            path = os.path.join(src, name)
            # LFS files are stored under their sha256, small files
            # under their git blob id (huggingface_hub file_download.py
            # names blobs by the etag the Hub returns).
            blob = (sha256_file(path) if name.endswith(".safetensors")
                    else git_blob_sha1(path))
            place(path, os.path.join(repo, "blobs", blob))
            link = os.path.join(repo, "snapshots", commit, name)
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(os.path.join("..", "..", "blobs", blob), link)

    snapshot(main_commit, main_src)
    snapshot(v2_commit, v2_src)
    write(os.path.join(repo, "refs", "main"), main_commit)
    write(os.path.join(repo, "refs", "v2"), v2_commit)
    # files the Hub does not have are remembered as empty files here
    write(os.path.join(repo, ".no_exist", main_commit,
                       "generation_config.json"), "")

    def facts(src):
        cfg = json.load(open(os.path.join(src, "config.json")))
        return cfg["model_type"], sum(
            len(st_header(os.path.join(src, n)))
            for n in os.listdir(src) if n.endswith(".safetensors"))

    for label, args, src, commit, rev in (
            ("folder", [repo], main_src, main_commit, "main"),
            ("folder/", [repo + "/"], main_src, main_commit, "main"),
            ("--revision main", ["--revision", "main", repo], main_src,
             main_commit, "main"),
            ("--revision v2", ["--revision", "v2", repo], v2_src, v2_commit,
             "v2"),
            ("--revision <commit>", ["--revision", v2_commit, repo], v2_src,
             v2_commit, v2_commit)):
        arch, count = facts(src)
        code, doc, err = run_json(q, ["inspect", "--summary"] + args)
        what = f"HF cache {label}"
        qa.check(code == EXIT_PASS, f"{what}: exit {code}, want 0 ({INPUT_C} "
                 f"is_hf_cache_repo/hf_cache_snapshot): {err.strip()}")
        inp = only_input(qa, doc, what)
        snap = os.path.join("snapshots", commit)
        qa.check(snap in inp.get("path", ""),
                 f"{what}: input path {inp.get('path')!r} is not the "
                 f"snapshot {snap} ({INPUT_C} hf_cache_snapshot)")
        source = inp.get("source", "")
        qa.check("LiquidAI/LFM2-1.2B" in source and f"revision {rev}" in source
                 and commit[:12] in source,
                 f"{what}: source {source!r} does not name the repo "
                 f"LiquidAI/LFM2-1.2B, revision {rev} and commit "
                 f"{commit[:12]} ({INPUT_C} hf_cache_snapshot)")
        qa.check(inp.get("model", {}).get("architecture") == arch,
                 f"{what}: architecture "
                 f"{inp.get('model', {}).get('architecture')}"
                 f", want {arch} from the snapshot's config.json "
                 f"(formats/hf_config.c through {INPUT_C})")
        qa.check(n_tensors(inp) == count,
                 f"{what}: {n_tensors(inp)} tensors, want {count} from the "
                 f"safetensors headers")
        # the same facts as the plain folder the snapshot was made from
        _, plain, _ = run_json(q, ["inspect", "--summary", src])
        pin = plain["inputs"][0]
        qa.check(pin["model"]["architecture"] == inp.get("model", {}).get(
            "architecture") and n_tensors(pin) == n_tensors(inp) and
                 pin["model"]["bytes"] == inp.get("model", {}).get("bytes"),
                 f"{what}: model facts differ from auditing {src} itself")
        qa.check(not codes(inp) - codes(pin),
                 f"{what}: findings {sorted(codes(inp) - codes(pin))} that "
                 f"the plain folder does not have (links into blobs/ are "
                 f"read as files: src/core/source.c posix_list)")

    # The snapshot folder itself is a plain checkpoint folder.
    code, doc, _ = run_json(q, ["inspect", "--summary",
                                os.path.join(repo, "snapshots", main_commit)])
    inp = only_input(qa, doc, "HF snapshot folder")
    qa.check(code == EXIT_PASS and "source" not in inp and
             inp.get("model", {}).get("architecture") == facts(main_src)[0],
             f"HF snapshot folder: exit {code}, source "
             f"{inp.get('source')!r}: want exit 0, the config's architecture "
             f"and no cache note ({INPUT_C} resolve_dir)")

    for rev in ("v9", "0" * 40, "../refs/main"):
        code, out, err = run(q, ["--revision", rev, repo])
        qa.check(code == EXIT_UNRECOGNIZED and f"'{rev}'" in err and
                 os.path.basename(repo) in err,
                 f"HF cache --revision {rev}: exit {code} ({err.strip()!r}); "
                 f"want 3 and a message naming the revision "
                 f"({INPUT_C} hf_cache_snapshot)")
        qa.check(out == "", f"HF cache --revision {rev}: a report was "
                 f"written for a revision that is not there")


# 2 ---------------------------------------------------------------------------

def ollama(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    store = os.environ["OLLAMA_MODELS"]
    model_src = fx("gguf", "valid-llama-q8_0.gguf")
    proj_data = clip_projector()
    proj_src = os.path.join(tmp, "clip-projector.gguf")
    write(proj_src, proj_data)

    def blob(path=None, data=None):
        if path is not None:
            digest = sha256_file(path)
            place(path, os.path.join(store, "blobs", "sha256-" + digest))
            return digest, os.path.getsize(path)
        digest = hashlib.sha256(data).hexdigest()
        write(os.path.join(store, "blobs", "sha256-" + digest), data)
        return digest, len(data)

    def layer(media, dg):
        return {"mediaType": media, "digest": "sha256:" + dg[0],
                "size": dg[1]}

    model = blob(model_src)
    proj = blob(proj_src)
    template = blob(data=b"{{ .System }}\n{{ .Prompt }}")
    params = blob(data=b'{"stop":["<|eot_id|>"]}')
    config = blob(data=json.dumps({"model_format": "gguf",
                                   "model_family": "llama",
                                   "file_type": "Q8_0"}).encode())

    def manifest(path, layers):
        doc = {"schemaVersion": 2,
               "mediaType":
               "application/vnd.docker.distribution.manifest.v2+json",
               "config": layer(
                   "application/vnd.docker.container.image.v1+json", config),
               "layers": layers}
        write(os.path.join(store, "manifests", path), json.dumps(doc))

    base = [layer("application/vnd.ollama.image.model", model),
            layer("application/vnd.ollama.image.template", template),
            layer("application/vnd.ollama.image.params", params)]
    lib = "registry.ollama.ai/library/"
    manifest(lib + "tinyllama/1b-q8_0", base)
    manifest(lib + "tinyllama/latest", base)
    manifest(lib + "tinyvision/latest",
             [base[0], layer("application/vnd.ollama.image.projector", proj)]
             + base[1:])
    manifest("hf.co/sample-org/TinyLlama-GGUF/Q8_0", base)
    # an interrupted pull: the manifest names a blob that is not there
    manifest(lib + "broken/latest",
             [layer("application/vnd.ollama.image.model",
                    ("ab" * 32, 1234))])

    src = gguf_read(model_src)
    model_blob = os.path.join(store, "blobs", "sha256-" + model[0])
    mpath = os.path.join(store, "manifests", lib, "tinyllama", "1b-q8_0")
    for label, arg, name in (
            ("manifest path", mpath, mpath),
            ("name:tag", "tinyllama:1b-q8_0", "tinyllama:1b-q8_0"),
            ("bare name", "tinyllama", "tinyllama"),
            ("namespaced hf.co name", "hf.co/sample-org/TinyLlama-GGUF:Q8_0",
             "hf.co/sample-org/TinyLlama-GGUF:Q8_0")):
        what = f"Ollama {label}"
        code, doc, err = run_json(q, ["inspect", "--summary", arg])
        qa.check(code == EXIT_PASS, f"{what}: exit {code}, want 0 ({INPUT_C} "
                 f"resolve_ollama_name/resolve_ollama_manifest): "
                 f"{err.strip()}")
        inp = only_input(qa, doc, what)
        files = [f.get("path") for f in inp.get("files", [])]
        # the model blob, then the small layers read beside it
        # (formats/ollama.c qa_ollama_annotate)
        side = [os.path.join(store, "blobs", "sha256-" + d[0])
                for d in (template, params)]
        qa.check(files == [model_blob] + side,
                 f"{what}: files {files}, want the model blob {model_blob} "
                 f"and the template and params blobs")
        qa.check(inp.get("path") == name,
                 f"{what}: input named {inp.get('path')!r}, want {name!r}")
        source = inp.get("source", "")
        qa.check(f"sha256-{model[0]}" in source and "Ollama" in source,
                 f"{what}: source {source!r} does not name the blob "
                 f"sha256-{model[0]} ({INPUT_C} resolve_ollama_manifest)")
        m = inp.get("model", {})
        qa.check(m.get("architecture") == src["arch"] and
                 n_tensors(inp) == len(src["tensors"]),
                 f"{what}: {m.get('architecture')}/{n_tensors(inp)} tensors, "
                 f"want {src['arch']}/{len(src['tensors'])} from the blob")
        qa.check("projector" not in inp,
                 f"{what}: a projector without a projector layer")

    # a projector layer is counted with the model
    code, doc, err = run_json(q, ["inspect", "--summary", "tinyvision"])
    inp = only_input(qa, doc, "Ollama projector layer")
    pj = inp.get("projector", {})
    ptens = gguf_read(proj_src)["tensors"]
    pbytes = sum(t[1] for t in ptens)
    qa.check(code == EXIT_PASS and
             pj.get("file") == os.path.join(store, "blobs",
                                            "sha256-" + proj[0])
             and pj.get("bytes") == pbytes and pj.get("tensors") == len(ptens),
             f"Ollama projector layer: exit {code}, projector {pj}; want the "
             f"blob sha256-{proj[0]} with {len(ptens)} tensors of {pbytes} "
             f"bytes ({INPUT_C} resolve_ollama_manifest, load_mmproj)")
    qa.check("projector" in inp.get("source", ""),
             f"Ollama projector layer: source {inp.get('source')!r} does not "
             f"say the projector layer is counted")

    for label, arg in (("unknown name:tag", "nosuchmodel:7b"),
                       ("unknown tag", "tinyllama:70b"),
                       ("unknown bare name", "nosuchmodel")):
        code, out, err = run(q, [arg])
        qa.check(code == EXIT_UNRECOGNIZED and arg in err and "Ollama" in err
                 and store in err,
                 f"Ollama {label}: exit {code} ({err.strip()!r}); want 3 "
                 f"and a message naming {arg} and the store {store} "
                 f"({INPUT_C} qa_input_resolve)")
    # a path that is a file name is not looked up in the store
    code, out, err = run(q, ["nosuchmodel-Q4_K_M.gguf"])
    qa.check(code == EXIT_SYSTEM and "No such file" in err and
             "Ollama" not in err,
             f"missing nosuchmodel-Q4_K_M.gguf: exit {code} "
             f"({err.strip()!r}); want 4, no such file, and no Ollama "
             f"lookup ({INPUT_C} not_found)")
    # a projector layer whose blob the store lacks: not counted, and said
    manifest(lib + "tinyvision/no-projector-blob",
             [base[0], layer("application/vnd.ollama.image.projector",
                             ("cd" * 32, 4096))])
    code, doc, err = run_json(q, ["inspect", "--summary",
                                  "tinyvision:no-projector-blob"])
    inp = only_input(qa, doc, "Ollama projector blob missing")
    said = [f.get("message", "") for f in inp.get("findings", [])
            if f.get("code") == "QA1403"]
    qa.check(code == EXIT_FAIL and "projector" not in inp and
             any("cd" * 32 in m and "not counted" in m for m in said),
             f"Ollama projector blob missing: exit {code}, QA1403 {said}; "
             f"want 1 and a finding naming the blob sha256-{'cd' * 32} as "
             f"not counted ({INPUT_C} load_mmproj)")
    code, out, err = run(q, ["broken"])
    qa.check(code != EXIT_PASS and "ab" * 32 in err,
             f"Ollama manifest without its blob: exit {code} "
             f"({err.strip()!r}); want an error naming the missing blob "
             f"({INPUT_C} resolve_ollama_manifest)")


# 3 ---------------------------------------------------------------------------

def lfs_message_ok(err):
    return "Git LFS pointer" in err and "git lfs pull" in err


def lfs(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    d = os.path.join(tmp, "lfs")
    for name in ("model.gguf", "model.safetensors"):
        path = os.path.join(d, name)
        write(path, lfs_pointer(12345))
        code, out, err = run(q, [path])
        qa.check(code == EXIT_UNRECOGNIZED and lfs_message_ok(err) and
                 "12345" in err,
                 f"LFS pointer {name}: exit {code} ({err.strip()!r}); want 3, "
                 f"'Git LFS pointer', its size 12345 and `git lfs pull` "
                 f"({INPUT_C} not_a_model)")

    # A clone without `git lfs pull`: config.json and the index are real
    # (small files are not in LFS), every shard a pointer.
    src = fx("hub", "granite-4.0-h-micro")
    clone = os.path.join(tmp, "lfs-clone")
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if name.endswith(".safetensors"):
            write(os.path.join(clone, name),
                  lfs_pointer(os.path.getsize(path)))
        else:
            place(path, os.path.join(clone, name))
    for label, arg in (("folder", clone),
                       ("index", os.path.join(
                           clone, "model.safetensors.index.json")),
                       ("shard", os.path.join(
                           clone, "model-00001-of-00002.safetensors"))):
        for cmd in (["inspect"], ["fit", "--gpus", "2x16G"]):
            code, out, err = run(q, cmd + [arg])
            qa.check(code == EXIT_UNRECOGNIZED and lfs_message_ok(err),
                     f"LFS clone, {label}, {cmd[0]}: exit {code} "
                     f"({err.strip()[:300]!r}); want 3 and a message saying "
                     f"the shards are Git LFS pointers and to run "
                     f"`git lfs pull` ({INPUT_C} qa_input_load)")
            qa.check("QA1202" not in err + out and "QA1302" not in err + out,
                     f"LFS clone, {label}, {cmd[0]}: the pointers are "
                     f"reported as broken safetensors headers instead of "
                     f"LFS pointers ({INPUT_C})")

    # A folder of GGUF files, one of them still a pointer: the others are
    # audited, the pointer is named.
    mixed = os.path.join(tmp, "lfs-gguf")
    place(fx("gguf", "valid-llama-q8_0.gguf"),
          os.path.join(mixed, "tiny-Q8_0.gguf"))
    write(os.path.join(mixed, "tiny-Q4_K_M.gguf"), lfs_pointer(20000000))
    code, doc, err = run_json(q, ["inspect", "--summary", mixed])
    paths = [i.get("path") for i in doc.get("inputs", [])]
    qa.check(code == EXIT_UNRECOGNIZED and
             paths == [os.path.join(mixed, "tiny-Q8_0.gguf")] and
             "tiny-Q4_K_M.gguf" in err and lfs_message_ok(err),
             f"GGUF folder with one LFS pointer: exit {code}, inputs {paths}, "
             f"{err.strip()!r}; want 3, the real GGUF audited and the pointer "
             f"named as a Git LFS pointer ({INPUT_C} load_file)")


# 4 ---------------------------------------------------------------------------

def html_and_empty(c):
    qa, q, tmp = c["qa"], c["bin"], c["tmp"]
    d = os.path.join(tmp, "saved")
    for name in ("model.gguf", "model.safetensors"):
        path = os.path.join(d, name)
        write(path, HTML_PAGE)
        code, out, err = run(q, [path])
        qa.check(code == EXIT_UNRECOGNIZED and "HTML page" in err and
                 path in err,
                 f"HTML saved as {name}: exit {code} ({err.strip()!r}); want "
                 f"3 and 'HTML page' ({INPUT_C} not_a_model)")
    for name in ("empty.gguf", "empty.safetensors"):
        path = os.path.join(d, name)
        write(path, "")
        code, out, err = run(q, [path])
        qa.check(code == EXIT_UNRECOGNIZED and "empty file" in err,
                 f"empty {name}: exit {code} ({err.strip()!r}); want 3 and "
                 f"'empty file' ({INPUT_C} not_a_model)")
    # in a checkpoint folder: the page in place of the weights is named
    ck = os.path.join(tmp, "saved-ckpt")
    write(os.path.join(ck, "config.json"),
          open(c["fx"]("hub", "lfm2-1.2b", "config.json")).read())
    write(os.path.join(ck, "model.safetensors"), HTML_PAGE)
    code, out, err = run(q, [ck])
    qa.check(code == EXIT_UNRECOGNIZED and "HTML page" in err,
             f"checkpoint folder with an HTML model.safetensors: exit {code} "
             f"({err.strip()[:300]!r}); want 3 and 'HTML page' "
             f"({INPUT_C} qa_input_load)")


# 5 ---------------------------------------------------------------------------

def timed(q, args, stdin=None, limit=20):
    start = time.monotonic()
    try:
        p = subprocess.run([q] + args, stdin=stdin, capture_output=True,
                           timeout=limit)
    except subprocess.TimeoutExpired:
        return None, "", "", limit
    return (p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace"), time.monotonic() - start)


def fifo(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    d = os.path.join(tmp, "fifo")
    os.makedirs(d)
    path = os.path.join(d, "model.gguf")
    os.mkfifo(path)
    for cmd in (["inspect"], ["fit", "--gpus", "16G"]):
        code, out, err, secs = timed(q, cmd + [path])
        qa.check(code is not None,
                 f"FIFO {cmd[0]}: still running after {secs} s: opening a "
                 f"FIFO waits for a writer (src/core/source.c O_NONBLOCK, "
                 f"{INPUT_C})")
        qa.check(code == EXIT_UNRECOGNIZED and "FIFO" in err,
                 f"FIFO {cmd[0]}: exit {code} ({err.strip()!r}); want 3 and "
                 f"a message saying it is a FIFO ({INPUT_C} "
                 f"qa_input_resolve)")
    # `-` with a FIFO that nobody writes to on standard input
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, out, err, secs = timed(q, ["-"], stdin=fd)
    finally:
        os.close(fd)
    qa.check(code == EXIT_USAGE and "standard input" in err,
             f"'-': exit {code} after {secs:.1f} s ({err.strip()!r}); want 2 "
             f"at once, saying models are read by path ({INPUT_C} "
             f"qa_input_resolve)")
    # a shard that is a FIFO: the set is read without it, never waited on
    ck = os.path.join(tmp, "fifo-ckpt")
    src = fx("hub", "granite-4.0-h-micro")
    for name in os.listdir(src):
        if name != "model-00002-of-00002.safetensors":
            place(os.path.join(src, name), os.path.join(ck, name))
    os.mkfifo(os.path.join(ck, "model-00002-of-00002.safetensors"))
    for arg in (ck, os.path.join(ck, "model.safetensors.index.json")):
        code, out, err, secs = timed(q, [arg])
        qa.check(code is not None and code != EXIT_PASS,
                 f"FIFO shard, {os.path.basename(arg)}: exit {code} after "
                 f"{secs:.1f} s; want a quick error, not a pass or a hang")


# 6 ---------------------------------------------------------------------------

def gguf_folder(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    d = os.path.join(tmp, "gguf-folder")
    q4 = os.path.join(d, "Llama-3.2-1B-Instruct-Q4_K_M.gguf")
    q8 = os.path.join(d, "Llama-3.2-1B-Instruct-Q8_0.gguf")
    place(fx("sample", "sample-llama-3.2-1b-Q4_K_M.gguf"), q4)
    place(fx("gguf", "valid-llama-q8_0.gguf"), q8)
    split_dir = fx("gguf", "split")
    parts = sorted(os.listdir(split_dir))
    for name in parts:
        place(os.path.join(split_dir, name), os.path.join(d, name))
    mmproj = os.path.join(d, "mmproj-Llama-3.2-1B-Instruct-F16.gguf")
    write(mmproj, clip_projector())
    ptens = gguf_read(mmproj)["tensors"]
    pbytes = sum(t[1] for t in ptens)

    models = [os.path.join(d, parts[0]), q4, q8]  # sorted by name
    want_tensors = {q4: len(gguf_read(q4)["tensors"]),
                    q8: len(gguf_read(q8)["tensors"]),
                    models[0]: sum(len(gguf_read(os.path.join(d, p))
                                       ["tensors"]) for p in parts)}

    code, doc, err = run_json(q, ["inspect", "--summary", d])
    ins = doc.get("inputs", [])
    paths = [i.get("path") for i in ins]
    qa.check(code == EXIT_PASS, f"GGUF folder: exit {code}, want 0: "
             f"{err.strip()}")
    qa.check(sorted(paths) == sorted(models),
             f"GGUF folder: inputs {paths}, want one per model {models} "
             f"(the split set once, the projector not an input: {INPUT_C} "
             f"resolve_dir)")
    for inp in ins:
        p = inp.get("path")
        what = f"GGUF folder, {os.path.basename(p or '?')}"
        pj = inp.get("projector", {})
        qa.check(pj.get("file") == mmproj and pj.get("bytes") == pbytes and
                 pj.get("tensors") == len(ptens),
                 f"{what}: projector {pj}, want {mmproj} with {len(ptens)} "
                 f"tensors of {pbytes} bytes ({INPUT_C} pick_mmproj, "
                 f"load_mmproj)")
        qa.check(n_tensors(inp) == want_tensors.get(p),
                 f"{what}: {n_tensors(inp)} model tensors, want "
                 f"{want_tensors.get(p)}")
        qa.check("QA1402" not in codes(inp) and "QA1403" not in codes(inp),
                 f"{what}: {sorted(codes(inp))}: a folder of GGUF files needs "
                 f"no config.json ({INPUT_C} resolve_dir)")

    code, doc, err = fit_json(q, ["--gpus", "16G", d])
    ins = {i.get("path"): i for i in doc.get("inputs", [])}
    qa.check(code == EXIT_PASS and sorted(ins) == sorted(models),
             f"GGUF folder fit --gpus 16G: exit {code}, inputs {sorted(ins)}: "
             f"{err.strip()}")
    for p, inp in ins.items():
        fit = inp.get("fit") or {}
        qa.check(fit.get("engine") == "llama.cpp" and
                 fit.get("verdict") == "fits",
                 f"GGUF folder fit, {os.path.basename(p)}: engine "
                 f"{fit.get('engine')}, verdict {fit.get('verdict')}; want "
                 f"llama.cpp (the default for GGUF) and fits "
                 f"(src/fit/fit_run.c qa_fit_default_engine)")
    # The projector goes whole on GPU 0: the weights there are the model's
    # plus the projector's tensor bytes.
    for p in (q4, q8):
        _, alone, _ = fit_json(q, ["--gpus", "16G", p])
        a = ((alone["inputs"][0].get("fit") or {}).get("devices") or [{}])[0]
        b = ((ins.get(p, {}).get("fit") or {}).get("devices") or [{}])[0]
        diff = b.get("weights_bytes", 0) - a.get("weights_bytes", 0)
        qa.check(diff == pbytes,
                 f"GGUF folder fit, {os.path.basename(p)}: GPU 0 weights grow "
                 f"by {diff} bytes with the projector beside it, want its "
                 f"{pbytes} tensor bytes (src/fit/fit_llamacpp.c, "
                 f"{INPUT_C} load_mmproj)")

    # Two projectors: the F16 one is counted, and the report says so.
    d2 = os.path.join(tmp, "gguf-two-projectors")
    place(q8, os.path.join(d2, os.path.basename(q8)))
    write(os.path.join(d2, "mmproj-model-BF16.gguf"), clip_projector())
    write(os.path.join(d2, "mmproj-model-f16.gguf"), clip_projector())
    code, doc, err = run_json(q, ["inspect", "--summary", d2])
    inp = only_input(qa, doc, "GGUF folder with two projectors")
    qa.check(inp.get("projector", {}).get("file") ==
             os.path.join(d2, "mmproj-model-f16.gguf") and
             "2 projectors" in inp.get("source", ""),
             f"GGUF folder with two projectors: projector "
             f"{inp.get('projector', {}).get('file')}, source "
             f"{inp.get('source')!r}; want the f16 one and a note "
             f"({INPUT_C} pick_mmproj)")

    # A projector still an LFS pointer: the model is audited, and the
    # report says the projector is not counted and why.
    d4 = os.path.join(tmp, "gguf-pointer-projector")
    place(q8, os.path.join(d4, os.path.basename(q8)))
    write(os.path.join(d4, "mmproj-model-f16.gguf"),
          lfs_pointer(len(clip_projector())))
    code, doc, err = run_json(q, ["inspect", "--summary", d4])
    inp = only_input(qa, doc, "GGUF folder with an LFS pointer projector")
    said = [f.get("message", "") for f in inp.get("findings", [])
            if f.get("code") == "QA1403"]
    qa.check(code == EXIT_FAIL and "projector" not in inp and
             any(lfs_message_ok(m) for m in said),
             f"GGUF folder with an LFS pointer projector: exit {code}, QA1403 "
             f"{said}; want 1 and the projector named as a Git LFS pointer "
             f"({INPUT_C} load_mmproj)")

    # A projector alone is audited as a GGUF of its own.
    d3 = os.path.join(tmp, "gguf-projector-only")
    write(os.path.join(d3, "mmproj-model-f16.gguf"), clip_projector())
    code, doc, err = run_json(q, ["inspect", "--summary", d3])
    inp = only_input(qa, doc, "projector alone")
    qa.check(code == EXIT_PASS and inp.get("model", {}).get(
        "architecture") == "clip" and n_tensors(inp) == len(ptens),
             f"projector alone: exit {code}, "
             f"{inp.get('model', {}).get('architecture')}"
             f", {n_tensors(inp)} tensors; want 0, clip, {len(ptens)} "
             f"({INPUT_C} resolve_dir)")


# 7 ---------------------------------------------------------------------------

def st_index(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    src = fx("hub", "granite-4.0-h-micro")
    d = os.path.join(tmp, "granite-4.0-h-micro")
    for name in os.listdir(src):
        place(os.path.join(src, name), os.path.join(d, name))
    arch = json.load(open(os.path.join(d, "config.json")))["model_type"]
    shards = sorted(n for n in os.listdir(d) if n.endswith(".safetensors"))
    heads = [st_header(os.path.join(d, s)) for s in shards]
    count = sum(len(h) for h in heads)
    nbytes = sum(t[2] for h in heads for t in h.values())
    index = json.load(open(os.path.join(d, "model.safetensors.index.json")))
    qa.check(index["metadata"]["total_size"] == nbytes,
             "granite fixture: the index total_size is not the shards' sum "
             "(fixtures/gen/gen_hub.c)")

    for label, arg in (("index", os.path.join(
            d, "model.safetensors.index.json")),
            ("config.json", os.path.join(d, "config.json")),
            ("shard 2 of 2", os.path.join(d, shards[-1])),
            ("folder", d)):
        what = f"{label} as the path"
        code, doc, err = run_json(q, ["inspect", "--summary", arg])
        inp = only_input(qa, doc, what)
        m = inp.get("model", {})
        names = sorted(os.path.basename(f["path"])
                       for f in inp.get("files", []))
        qa.check(code == EXIT_PASS and m.get("architecture") == arch,
                 f"{what}: exit {code}, architecture {m.get('architecture')}; "
                 f"want 0 and {arch} from the folder's config.json "
                 f"(formats/st_set.c load_side_beside, {INPUT_C})")
        qa.check(names == sorted(["config.json",
                                  "model.safetensors.index.json"] + shards),
                 f"{what}: files {names}, want config.json, the index and "
                 f"both shards (docs/formats.md: any shard or the index "
                 f"loads the whole set)")
        qa.check(n_tensors(inp) == count and m.get("bytes") == nbytes,
                 f"{what}: {n_tensors(inp)} tensors, {m.get('bytes')} bytes; "
                 f"want {count} and {nbytes} from the shard headers")
        qa.check(not codes(inp), f"{what}: findings {sorted(codes(inp))} on "
                 f"a complete download")

        code, doc, err = fit_json(q, ["--gpus", "2x16G", arg])
        inp = only_input(qa, doc, what + ", fit")
        fit = inp.get("fit") or {}
        qa.check(code in (EXIT_PASS, EXIT_FAIL) and "fit_error" not in inp and
                 fit.get("engine") == "vllm" and
                 len(fit.get("devices", [])) == 2,
                 f"{what}, fit --gpus 2x16G: exit {code}, engine "
                 f"{fit.get('engine')}, "
                 f"{len(fit.get('devices', []))} devices, "
                 f"fit_error {inp.get('fit_error')!r}; want a vLLM fit over "
                 f"2 GPUs ({err.strip()[:200]})")


# 8 ---------------------------------------------------------------------------

def incomplete(c):
    qa, q, fx, tmp = c["qa"], c["bin"], c["fx"], c["tmp"]
    src = fx("gguf", "split-missing")
    d = os.path.join(tmp, "split-missing")
    present = sorted(os.listdir(src))
    for name in present:
        place(os.path.join(src, name), os.path.join(d, name))
    # the set's count from the names; the absent part is the one not there
    count = int(present[0].split("-of-")[1].split(".")[0])
    prefix = present[0].split("-00001-of-")[0]
    missing = [f"{prefix}-{k:05d}-of-{count:05d}.gguf"
               for k in range(1, count + 1)
               if f"{prefix}-{k:05d}-of-{count:05d}.gguf" not in present]
    qa.check(missing == ["tiny-00002-of-00003.gguf"],
             f"split-missing fixture holds {present}")

    for arg in (d, os.path.join(d, present[-1])):
        what = f"split set without part 2 ({os.path.basename(arg)})"
        code, doc, err = fit_json(q, ["--gpus", "16G", arg])
        inp = only_input(qa, doc, what)
        fit = inp.get("fit")
        qa.check(code == EXIT_UNRECOGNIZED,
                 f"{what}: fit exit {code}, want 3 (not sizeable)")
        qa.check(not fit and "missing" in inp.get("fit_error", ""),
                 f"{what}: fit {fit}, fit_error {inp.get('fit_error')!r}: a "
                 f"fit over part of the weights must be refused "
                 f"(src/fit/fit_run.c qa_fit_run)")
        said = inp.get("fit_error", "") + " ".join(
            f.get("message", "") + " " + f.get("file", "")
            for f in inp.get("findings", []))
        qa.check("QA1101" in codes(inp) and
                 ("part 2 of 3" in said or missing[0] in said),
                 f"{what}: the report does not name the missing part "
                 f"{missing[0]} (formats/gguf_split.c)")
        code, out, err = run(q, ["fit", "--gpus", "16G", arg])
        qa.check(code == EXIT_UNRECOGNIZED and " fits" not in out and
                 "missing" in out and "missing" not in err,
                 f"{what}: text fit exit {code}; want 3, no 'fits', the "
                 f"reason in the report and said once (src/cli/cli.c run)")

    ck = os.path.join(tmp, "config-only")
    place(fx("hub", "lfm2-1.2b", "config.json"),
          os.path.join(ck, "config.json"))
    for arg in (ck, os.path.join(ck, "config.json")):
        what = f"config-only folder ({os.path.basename(arg)})"
        code, doc, err = fit_json(q, ["--gpus", "16G", arg])
        inp = only_input(qa, doc, what)
        qa.check(code == EXIT_UNRECOGNIZED and not inp.get("fit") and
                 "no weights" in inp.get("fit_error", ""),
                 f"{what}: fit exit {code}, fit {inp.get('fit')}, fit_error "
                 f"{inp.get('fit_error')!r}; want 3 and a refusal saying "
                 f"there are no weights (src/fit/fit_run.c)")
        qa.check("QA1403" in codes(inp) and
                 inp.get("model", {}).get("architecture") == "lfm2",
                 f"{what}: findings {sorted(codes(inp))}, architecture "
                 f"{inp.get('model', {}).get('architecture')}; want QA1403 "
                 f"and lfm2 from config.json")


if __name__ == "__main__":
    main()
