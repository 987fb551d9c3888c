# SPDX-License-Identifier: MIT
"""Hostile input through the quantaudit binary (issue 11, docs/security.md).

1. The findings cap: hostile/findings-flood.gguf (fixtures/gen/gen_hostile.c)
   holds 10,000 bools of 2 before a template injection and a tensor past
   the end of the file. In every format `check` exits 1, lists both errors
   and says how many findings of each severity were counted but not listed
   (JSON findings_dropped, SARIF notifications and run properties, JUnit
   properties and system-err, Markdown and text lines, stderr). A disabled
   rule is neither listed nor counted; the others are.
2. Terminal and CI-log injection: a GGUF whose general.name, tensor names
   and file name carry ESC ] 52 (clipboard), ESC [2J, CR, C1 controls,
   bidi overrides and "\\n::error::", a Hugging Face folder with the same
   in config.json strings, safetensors tensor names and metadata,
   tokenizer strings and file names, and a tar whose member names carry
   it, are run through every command and format; the raw bytes of stdout
   and stderr hold no control character, no C1 or bidi control, no line
   starting with "::" (GitHub trims blanks first) and no "##[" (nor
   "##vso[").
3. Symbolic links out of the model folder are not followed: a shard, a
   side file and the path given that point at a secret outside give
   QA1411 naming the link, and no output holds the secret's bytes, its
   first 8 bytes read as a header length, or its size. A Hugging Face
   cache snapshot (links to ../../blobs) still reads; --follow-symlinks
   reads the link.
4. Hostile input exits 1 or 3 with a finding or a message, never 4: a
   split part or shard that is a folder, an index naming a folder, a
   link loop given as the path, an Ollama manifest naming a blob that is
   not there, headers with huge counts and lengths, and files or folders
   whose permission bits forbid reading them (QA1412; run as nobody when
   the tests run as root, since root reads whatever the bits say).

Expected values are built here: the files byte by byte, the secret and
its derived numbers, the registry codes of the findings.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path  # noqa: E402

try:
    import jsonschema
except ImportError:
    jsonschema = None

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_UNRECOGNIZED, EXIT_SYSTEM = 0, 1, 2, 3, 4
FORMATS = ["text", "json", "markdown", "sarif", "junit"]


# Sanitizer reports seen (a build with -Db_sanitize=address,undefined
# exits 1 on an ASan error, which some checks below accept as a verdict).
SANITIZER = []


def sanitized(args, proc):
    if b"Sanitizer" in proc.stderr or b"runtime error:" in proc.stderr:
        SANITIZER.append((args, proc.stderr[-2000:]))


def run_raw(binary, args, cwd=None, env=None):
    """(exit code, stdout bytes, stderr bytes)."""
    proc = subprocess.run([binary] + args, capture_output=True, timeout=120,
                          cwd=cwd, env=env)
    sanitized(args, proc)
    return proc.returncode, proc.stdout, proc.stderr


# ---- raw-byte safety ------------------------------------------------------

C1 = re.compile(rb"\xc2[\x80-\x9f]")
BIDI = re.compile(rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\xd8\x9c|"
                  rb"\xe2\x80[\x8e\x8f]|\xe2\x80[\xa8\xa9]")
# .NET's TrimStart (GitHub's runner) trims every Unicode blank first
BLANKS = "\t\v\f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005" \
         "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def unsafe(raw):
    """What in raw bytes could drive a terminal or a CI log; [] if none."""
    bad = []
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad.append(f"invalid UTF-8 (a raw C1 or other byte): {e}")
    for b in set(raw):
        if (b < 0x20 and b != 0x0a) or b == 0x7f:
            bad.append(f"control byte 0x{b:02x}")
    if C1.search(raw):
        bad.append("C1 control")
    if BIDI.search(raw):
        bad.append("bidi control")
    text = raw.decode("utf-8", "replace")
    for line in text.split("\n"):
        if line.lstrip(BLANKS).startswith("::"):
            bad.append(f"line starting with '::': {line[:60]!r}")
    # the runner's legacy "##[command]" (anywhere in a line), Azure's
    # "##vso[", TeamCity's "##teamcity["
    if re.search(r"##[A-Za-z]*\[", text):
        bad.append("'##...[' (a legacy workflow command marker)")
    return bad


# ---- a GGUF writer ----------------------------------------------------------

def gstr(b):
    return struct.pack("<Q", len(b)) + b


def kv_str(k, v):
    return gstr(k) + struct.pack("<I", 8) + gstr(v)


def kv_u32(k, v):
    return gstr(k) + struct.pack("<I", 4) + struct.pack("<I", v)


def gguf(kvs, tensors, data):
    """GGUF v3: kvs (encoded), tensors [(name, [dims], type, offset)]."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs))
    for kv in kvs:
        out += kv
    for name, dims, typ, off in tensors:
        out += gstr(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", typ, off)
    out += b"\0" * ((-len(out)) % 32)
    return out + data


# C1 controls both as UTF-8 (U+009B CSI, U+0085 NEL) and as raw bytes
# (0x9b, which an 8-bit terminal takes as CSI)
EVIL = (b"\x1b]52;c;ZXZpbA==\x07\x1b[2J\r"
        b"\xc2\x9b31m\xc2\x85\x9b2J\xe2\x80\xaeexe.txt\xe2\x81\xa6"
        b"\n::error::pwned\n  ::add-mask::x ##[error]y\x7f")


def hostile_gguf(path):
    """A small llama-like GGUF with EVIL in general.name, the architecture
    name of a key, two tensor names and the chat template's label."""
    kvs = [kv_str(b"general.architecture", b"llama"),
           kv_str(b"general.name", b"model" + EVIL),
           kv_u32(b"llama.block_count", 1),
           kv_u32(b"llama.embedding_length", 4),
           kv_u32(b"llama.attention.head_count", 1),
           kv_u32(b"llama.context_length", 64),
           kv_str(b"tokenizer.chat_template." + EVIL, b"{{ x }}")]
    tensors = [(b"blk.0.attn_q.weight" + EVIL, [4, 4], 0, 0),
               (b"token_embd.weight", [4, 8], 0, 64),
               # a second name, and past the end of the file (a finding
               # whose message carries the name)
               (EVIL + b"output.weight", [4, 8], 0, 4096)]
    data = b"\0" * (64 + 128)
    with open(path, "wb") as f:
        f.write(gguf(kvs, tensors, data))


# EVIL as valid UTF-8 (its raw 0x9b byte as U+009B), for JSON files that
# must parse: safetensors headers and config.json are read as UTF-8.
EVIL_UTF8 = EVIL.replace(b"\x9b2J", b"\xc2\x9b2J").decode("utf-8")


def hostile_safetensors(path, tensors, meta):
    """A safetensors file of BF16 tensors [(name, shape)] and meta."""
    hdr = {"__metadata__": meta}
    off = 0
    for name, shape in tensors:
        size = 2
        for d in shape:
            size *= d
        hdr[name] = {"dtype": "BF16", "shape": shape,
                     "data_offsets": [off, off + size]}
        off += size
    h = json.dumps(hdr, ensure_ascii=False).encode("utf-8")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"\0" * off)


def hostile_hf_folder(d):
    """A Hugging Face folder with EVIL in config strings, tensor names,
    metadata, tokenizer strings and the names of broken files."""
    os.makedirs(d)
    e = EVIL_UTF8
    hostile_safetensors(
        os.path.join(d, "model.safetensors"),
        [("model.embed_tokens.weight", [8, 4]),
         ("model.layers.0.self_attn.q_proj.weight" + e, [4, 4]),
         (e + "lm_head.weight", [8, 4])],
        {"format": "pt", "note" + e: "v" + e})
    cfg = {"architectures": ["Llama" + e], "model_type": "llama" + e,
           "hidden_size": 4, "num_hidden_layers": 1,
           "num_attention_heads": 1, "vocab_size": 8,
           "torch_dtype": "bf" + e, "_name_or_path": e,
           "quantization_config": {"quant_method": "q" + e,
                                   "ignore": ["re:" + e]}}
    for name, doc in (("config.json", cfg),
                      ("tokenizer_config.json",
                       {"chat_template": "{{ x." + e + " }}",
                        "eos_token": e, "bos_token": {"content": e}})):
        with open(os.path.join(d, name), "wb") as f:
            f.write(json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    bad = EVIL.replace(b"/", b"_")
    for name, data in ((b"x" + bad + b".safetensors",
                        b"\x10" + b"\0" * 7 + b'{"a":1}'),
                       (b"model-00001-of-00002" + bad + b".safetensors",
                        b"junk")):
        with open(os.path.join(d.encode(), name), "wb") as f:
            f.write(data)
    return d


def hostile_tar(path, gguf_path):
    """A tar whose members (a GGUF, a link) are named with EVIL."""
    import io
    import tarfile
    data = open(gguf_path, "rb").read()
    e = EVIL.decode("utf-8", "surrogateescape")
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT,
                      encoding="utf-8", errors="surrogateescape") as t:
        for name in ("m" + e.replace("/", "_") + ".gguf", "model.gguf"):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
        ti = tarfile.TarInfo("link" + e.replace("/", "_"))
        ti.type = tarfile.SYMTYPE
        ti.linkname = "/etc/" + e
        t.addfile(ti)
    return path


# ---- 1 ----------------------------------------------------------------------

def check_flood(c, q, fx, tmp):
    rel = "hostile/findings-flood.gguf"
    path = os.path.join(fx, rel)
    if not os.path.exists(path):
        c.check(False, f"{rel} missing: the fixture generator did not run")
        return
    for fmt in FORMATS:
        # -v: the findings on stderr too (issue 35: without it a machine
        # format keeps stderr for what the report does not carry)
        code, out, err = run_raw(q, ["check", "--format", fmt, path] +
                                 ([] if fmt == "text" else ["-v"]))
        c.check(code == EXIT_FAIL, f"flood {fmt}: exit {code}, want 1 (the "
                "template injection and the tensor past EOF are errors)")
        text = out.decode("utf-8", "replace")
        for code_ in ("QA6001", "QA1028", "QA1010"):
            c.check(code_ in text, f"flood {fmt}: {code_} not listed")
        if fmt == "text":
            c.check("truncated: 9000 more findings were found but not "
                    "listed (9000 warnings;" in " ".join(text.split()),
                    f"flood text: no truncation line: {text[-600:]}")
            c.check("9000 more not listed" in text,
                    "flood text: verdict line lacks the count")
        elif fmt == "json":
            doc = json.loads(text)
            d = doc["inputs"][0].get("findings_dropped")
            c.check(d == {"total": 9000, "error": 0, "warning": 9000,
                          "info": 0, "rules": [
                              {"code": "QA1010", "id": "gguf-bad-bool",
                               "severity": "warning", "count": 9000}]},
                    f"flood json: findings_dropped {d}")
            if jsonschema:
                schema = json.load(open(os.path.join(
                    env_path("QA_SOURCE_ROOT"), "docs",
                    "quantaudit-1.schema.json")))
                errs = list(jsonschema.Draft202012Validator(schema)
                            .iter_errors(doc))
                c.check(not errs, f"flood json: schema: {errs[:1]}")
        elif fmt == "markdown":
            c.check("**Findings truncated:** 9000 more findings were found "
                    "but not listed (9000 warnings;" in text,
                    f"flood markdown: no truncation line")
        elif fmt == "sarif":
            doc = json.loads(text)
            run_ = doc["runs"][0]
            notes = run_["invocations"][0]["toolExecutionNotifications"]
            c.check(len(notes) == 1 and notes[0]["associatedRule"]["id"] ==
                    "QA1010" and notes[0]["properties"]["count"] == 9000 and
                    notes[0]["level"] == "warning",
                    f"flood sarif: notifications {notes}")
            c.check(run_["properties"].get("findingsDropped") ==
                    {"total": 9000, "error": 0, "warning": 9000, "info": 0},
                    f"flood sarif: run properties {run_['properties']}")
            if jsonschema:
                schema = json.load(open(os.path.join(
                    env_path("QA_SOURCE_ROOT"), "tests", "data",
                    "sarif-schema-2.1.0.json")))
                errs = list(jsonschema.Draft7Validator(schema)
                            .iter_errors(doc))
                c.check(not errs, f"flood sarif: schema: {errs[:1]}")
        elif fmt == "junit":
            root = ET.fromstring(out)
            suite = root.find("testsuite")
            props = {p.get("name"): p.get("value")
                     for p in suite.iter("property")}
            c.check(props.get("quantaudit.findings_dropped") == "9000" and
                    props.get("quantaudit.findings_dropped.warning") ==
                    "9000", f"flood junit: properties {props}")
            c.check("9000 more findings" in (suite.findtext("system-err")
                                             or ""),
                    "flood junit: no system-err truncation line")
            xsd = os.path.join(env_path("QA_SOURCE_ROOT"), "tests", "data",
                               "junit-10.xsd")
            if shutil.which("xmllint"):
                p = os.path.join(tmp, "flood.xml")
                open(p, "wb").write(out)
                x = subprocess.run(["xmllint", "--noout", "--schema", xsd, p],
                                   capture_output=True)
                c.check(x.returncode == 0, "flood junit: junit-10.xsd: "
                        f"{x.stderr.decode()[:300]}")
        if fmt != "text":
            e = err.decode("utf-8", "replace")
            c.check("QA6001" in e and "QA1028" in e,
                    f"flood {fmt}: stderr lacks the errors")
    # with --fail-on warning, stderr says the dropped warnings too
    code, out, err = run_raw(q, ["check", "--fail-on", "warning", "-f",
                                 "json", "-v", path])
    c.check(b"9000 more findings were found but not listed" in err,
            f"flood --fail-on warning: stderr {err[-300:]!r}")
    c.check(code == EXIT_FAIL, f"flood --fail-on warning: exit {code}")
    # junit counts the dropped warnings in the failure of their rule
    code, out, err = run_raw(q, ["check", "--fail-on", "warning", "-f",
                                 "junit", path])
    fail = [tc.find("failure") for tc in ET.fromstring(out).iter("testcase")
            if tc.get("name", "").startswith("QA1010")]
    c.check(fail and fail[0] is not None and
            fail[0].get("message", "").startswith("10000 findings"),
            f"flood junit --fail-on warning: {fail and fail[0].attrib}")
    # --disable the flooding rule: the errors still fail, nothing dropped
    code, out, err = run_raw(q, ["check", "--disable", "QA1010", "-f",
                                 "json", path])
    inp = json.loads(out)["inputs"][0]
    c.check(code == EXIT_FAIL and "findings_dropped" not in inp and
            {f["code"] for f in inp["findings"]} == {"QA6001", "QA1028"},
            f"flood --disable QA1010: exit {code}, "
            f"{[f['code'] for f in inp['findings']]}")
    # --disable the errors: the flood alone warns; its count stays
    code, out, err = run_raw(q, ["check", "--disable", "QA6001",
                                 "--disable", "QA1028", "-f", "json", path])
    inp = json.loads(out)["inputs"][0]
    c.check(code == EXIT_PASS and inp["verdict"] == "warn" and
            inp.get("findings_dropped", {}).get("warning") == 9000,
            f"flood --disable QA6001,QA1028: exit {code}, verdict "
            f"{inp['verdict']}, dropped {inp.get('findings_dropped')}")


# ---- 2 ----------------------------------------------------------------------

def check_injection(c, q, tmp):
    d = os.path.join(tmp, "inject")
    os.makedirs(d)
    name = b"m" + EVIL.replace(b"/", b"_") + b".gguf"
    path = os.path.join(d.encode(), name)
    hostile_gguf(path)
    sane = os.path.join(d, "sane.gguf")
    hostile_gguf(sane)
    runs = []
    for fmt in FORMATS:
        runs.append(["check", "--format", fmt])
        runs.append(["inspect", "--format", fmt])
    runs += [["tensors"], ["tensors", "--format", "json"],
             ["fit", "--gpus", "16G"], ["fit", "--gpus", "16G", "-f",
                                         "markdown"],
             ["fit", "--gpus", "16G", "-f", "json"],
             ["check", "--gpus", "16G"], ["check", "--fail-on", "info",
                                          "-f", "sarif"],
             ["check", "--fail-on", "info", "-f", "junit"],
             # the HTML page (its own checks: tests/cli/test_html.py)
             ["check", "-f", "html"], ["inspect", "-f", "html"],
             ["fit", "--gpus", "16G", "-f", "html"]]
    for args in runs:
        for target in (path, d.encode()):
            label = " ".join(args) + (" (file)" if target == path
                                      else " (folder)")
            proc = subprocess.run([q.encode()] + [a.encode() for a in args]
                                  + [target], capture_output=True,
                                  timeout=120)
            sanitized(args, proc)
            for stream, raw in (("stdout", proc.stdout),
                                ("stderr", proc.stderr)):
                bad = unsafe(raw)
                c.check(not bad, f"injection, {label}, {stream}: {bad}")
            c.check(proc.returncode in (EXIT_PASS, EXIT_FAIL,
                                        EXIT_UNRECOGNIZED),
                    f"injection, {label}: exit {proc.returncode}")
    # the same attacks in a Hugging Face folder (config.json strings,
    # safetensors tensor names and __metadata__, tokenizer strings, the
    # names of files beside them) and as archive member names
    hf = hostile_hf_folder(os.path.join(tmp, "inject-hf"))
    tar = hostile_tar(os.path.join(tmp, "inject.tar"), path)
    for target in (hf, tar):
        for args in runs:
            label = " ".join(args) + " " + os.path.basename(target)
            proc = subprocess.run([q] + args + [target],
                                  capture_output=True, timeout=120)
            sanitized(args, proc)
            for stream, raw in (("stdout", proc.stdout),
                                ("stderr", proc.stderr)):
                bad = unsafe(raw)
                c.check(not bad, f"injection, {label}, {stream}: {bad}")
            c.check(proc.returncode in (EXIT_PASS, EXIT_FAIL,
                                        EXIT_UNRECOGNIZED),
                    f"injection, {label}: exit {proc.returncode}")
    proc = subprocess.run([q, "tensors", hf], capture_output=True)
    c.check(b"model.layers.0.self_attn.q_proj.weight\\x1b]52;c;" in
            proc.stdout, f"injection: HF tensor name not shown escaped: "
            f"{proc.stdout[:600]!r}")
    # the text spelling shows what was there
    proc = subprocess.run([q.encode(), b"inspect", path],
                          capture_output=True)
    out = proc.stdout.decode("utf-8", "replace")
    c.check("\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\x0d" in out and
            "\\u009b31m\\u0085\\x9b2J\\u202e" in out and
            "\\x3a:error" in out,
            f"injection: escapes not shown in the text report: "
            f"{out[:400]!r}")
    # JSON decodes to the very bytes of the file (nothing lost)
    proc = subprocess.run([q.encode(), b"inspect", b"-f", b"json", path],
                          capture_output=True)
    doc = json.loads(proc.stdout)
    c.check(doc["inputs"][0]["model"]["name"] ==
            "model" + EVIL.decode("utf-8", "replace"),
            f"injection: JSON name {doc['inputs'][0]['model']['name']!r}")
    # the usage error echoes an argument escaped
    proc = subprocess.run([q.encode(), b"check", b"--format",
                           b"x\x1b[2J\n::error::y", sane],
                          capture_output=True)
    c.check(proc.returncode == EXIT_USAGE and not unsafe(proc.stderr),
            f"injection: usage error {proc.stderr!r}")


# ---- 3 ----------------------------------------------------------------------

# An odd size (4099 bytes), so that it cannot be mistaken for another
# number of the report.
SECRET = b"AKIA-TOP-SECRET-TOKEN-0123456789\n" + b"x" * 4066


def secret_leaks(raw):
    """The secret, or numbers derived from it, in raw output."""
    text = raw.decode("utf-8", "replace")
    leaks = []
    if b"AKIA" in raw or b"SECRET" in raw:
        leaks.append("the secret's bytes")
    n = int.from_bytes(SECRET[:8], "little")
    if str(n) in text or f"{n:,}" in text:
        leaks.append("its first 8 bytes as a header length")
    if re.search(r"(?<![0-9.,])(%d|%s)(?![0-9])" %
                 (len(SECRET), f"{len(SECRET):,}"), text):
        leaks.append("its size")
    if " ".join(f"{b:02x}" for b in SECRET[:4]) in text:
        leaks.append("its first bytes in hex")
    return leaks


def check_symlinks(c, q, fx, tmp):
    base = os.path.join(tmp, "links")
    secret_dir = os.path.join(base, "home", ".ssh")
    os.makedirs(secret_dir)
    secret = os.path.join(secret_dir, "id_ed25519")
    open(secret, "wb").write(SECRET)
    repo = os.path.join(base, "repo")
    shutil.copytree(os.path.join(fx, "st", "sharded"), repo)
    shard2 = "model-00002-of-00002.safetensors"
    os.remove(os.path.join(repo, shard2))
    os.symlink(os.path.join("..", "home", ".ssh", "id_ed25519"),
               os.path.join(repo, shard2))
    os.symlink(secret, os.path.join(repo, "tokenizer_config.json"))
    os.symlink(secret, os.path.join(repo, "extra.safetensors"))
    for target, label in ((repo, "folder"),
                          (os.path.join(repo, "model.safetensors.index.json"),
                           "index"),
                          (os.path.join(repo, "model-00001-of-00002"
                                        ".safetensors"), "shard 1"),
                          (os.path.join(repo, "extra.safetensors"),
                           "the link itself")):
        for fmt in FORMATS:
            code, out, err = run_raw(q, ["check", "-f", fmt, target])
            for stream, raw in (("stdout", out), ("stderr", err)):
                leaks = secret_leaks(raw)
                c.check(not leaks, f"symlinks, {label}, {fmt}, {stream}: "
                        f"{leaks}")
            c.check(code == EXIT_FAIL, f"symlinks, {label}, {fmt}: exit "
                    f"{code}, want 1 (QA1411)")
        code, out, err = run_raw(q, ["check", "-f", "json", target])
        inp = json.loads(out)["inputs"]
        got = [f for i in inp for f in i["findings"] if f["code"] == "QA1411"]
        named = {os.path.basename(f.get("file", "")) for f in got}
        want = ({shard2, "tokenizer_config.json", "extra.safetensors"}
                if label == "folder" else {"extra.safetensors"}
                if label == "the link itself" else {shard2})
        c.check(want <= named, f"symlinks, {label}: QA1411 names {named}, "
                f"want {want}")
        c.check(all("id_ed25519" in f["message"] and "not followed" in
                    f["message"] for f in got),
                f"symlinks, {label}: messages {[f['message'] for f in got]}")
        c.check(all(i["path"] and not os.path.isabs(i["path"]) or
                    i["path"].startswith(tmp) for i in inp),
                f"symlinks, {label}: paths")
    # --follow-symlinks reads what the link points at (the secret is not
    # a model: its first bytes become the header length)
    code, out, err = run_raw(q, ["check", "-f", "json", "--follow-symlinks",
                                 os.path.join(repo, "extra.safetensors")])
    c.check(secret_leaks(out) and "QA1411" not in out.decode(),
            "symlinks --follow-symlinks: the link was not read")
    # a link inside the folder, and a Hugging Face cache snapshot, read
    inner = os.path.join(base, "inner")
    os.makedirs(inner)
    shutil.copy(os.path.join(fx, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(inner, "real.gguf"))
    os.symlink("real.gguf", os.path.join(inner, "model.gguf"))
    code, out, err = run_raw(q, ["check", "-f", "json",
                                 os.path.join(inner, "model.gguf")])
    c.check(code == EXIT_PASS and b"QA1411" not in out,
            f"symlinks: a link inside the folder: exit {code}")
    cache = os.path.join(base, "hub", "models--org--m")
    blobs = os.path.join(cache, "blobs")
    snap = os.path.join(cache, "snapshots", "a" * 40)
    os.makedirs(blobs)
    os.makedirs(snap)
    src = os.path.join(fx, "st", "sharded")
    for i, name in enumerate(sorted(os.listdir(src))):
        blob = ("%040x" % (i + 1))
        shutil.copy(os.path.join(src, name), os.path.join(blobs, blob))
        os.symlink(os.path.join("..", "..", "blobs", blob),
                   os.path.join(snap, name))
    os.makedirs(os.path.join(cache, "refs"))
    open(os.path.join(cache, "refs", "main"), "w").write("a" * 40)
    for target in (cache, snap, os.path.join(snap, "model.safetensors."
                                                   "index.json")):
        code, out, err = run_raw(q, ["check", "-f", "json", target])
        ok = code == EXIT_PASS and b"QA1411" not in out
        c.check(ok, f"symlinks: HF cache {os.path.relpath(target, base)}: "
                f"exit {code} {err[:300]!r}")
    # a --local-dir download: links to blobs of a cache elsewhere
    local = os.path.join(base, "local-dir")
    os.makedirs(local)
    for name in os.listdir(snap):
        os.symlink(os.path.realpath(os.path.join(snap, name)),
                   os.path.join(local, name))
    code, out, err = run_raw(q, ["check", "-f", "json", local])
    c.check(code == EXIT_PASS and b"QA1411" not in out,
            f"symlinks: --local-dir links to cache blobs: exit {code}")


# ---- 4 ----------------------------------------------------------------------

def check_never_4(c, q, fx, tmp):
    base = os.path.join(tmp, "exit4")
    os.makedirs(base)
    cases = []
    d = os.path.join(base, "split-dir")
    shutil.copytree(os.path.join(fx, "gguf", "split"), d)
    os.remove(os.path.join(d, "tiny-00002-of-00003.gguf"))
    os.mkdir(os.path.join(d, "tiny-00002-of-00003.gguf"))
    cases += [("split part a folder, first part given",
               os.path.join(d, "tiny-00001-of-00003.gguf"), (1,), "QA1410"),
              ("split part a folder, folder given", d, (1,), "QA1410")]
    d = os.path.join(base, "shard-dir")
    shutil.copytree(os.path.join(fx, "st", "sharded"), d)
    os.remove(os.path.join(d, "model-00002-of-00002.safetensors"))
    os.mkdir(os.path.join(d, "model-00002-of-00002.safetensors"))
    cases += [("index naming a folder", d, (1,), None),
              ("index naming a folder, index given",
               os.path.join(d, "model.safetensors.index.json"), (1,), None)]
    d = os.path.join(base, "numbered-dir")
    os.mkdir(d)
    shutil.copy(os.path.join(fx, "st", "valid.safetensors"),
                os.path.join(d, "model-00001-of-00002.safetensors"))
    os.mkdir(os.path.join(d, "model-00002-of-00002.safetensors"))
    cases += [("numbered shard a folder",
               os.path.join(d, "model-00001-of-00002.safetensors"), (1,),
               None)]
    loop = os.path.join(base, "loop.gguf")
    os.symlink("loop.gguf", loop)
    cases += [("a link loop given", loop, (3,), None)]
    d = os.path.join(base, "loop-part")
    shutil.copytree(os.path.join(fx, "gguf", "split"), d)
    os.remove(os.path.join(d, "tiny-00003-of-00003.gguf"))
    os.symlink("tiny-00003-of-00003.gguf",
               os.path.join(d, "tiny-00003-of-00003.gguf"))
    cases += [("a split part that is a link loop",
               os.path.join(d, "tiny-00001-of-00003.gguf"), (1,), None)]
    store = os.path.join(base, "ollama")
    man = os.path.join(store, "manifests", "registry.ollama.ai", "library",
                       "x", "latest")
    os.makedirs(os.path.dirname(man))
    os.makedirs(os.path.join(store, "blobs", "sha256-" + "ef" * 32))
    json.dump({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.model",
         "digest": "sha256:" + "ab" * 32, "size": 1},
        ]}, open(man, "w"))
    cases += [("an Ollama manifest naming a missing blob", man, (3,), None)]
    man2 = man.replace("latest", "dir")
    json.dump({"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.model",
         "digest": "sha256:" + "ef" * 32, "size": 1}]}, open(man2, "w"))
    cases += [("an Ollama manifest naming a blob that is a folder", man2,
               (3,), None)]
    # Huge counts and lengths: each must be refused from the header, as
    # ggml's gguf.cpp refuses them (counts against what the file can
    # hold, 2^30-element arrays, 64 KiB keys, dims whose product
    # overflows), and the safetensors reader's 100 MB header cap — not
    # allocated ("out of memory", exit 4).
    huge = os.path.join(base, "huge")
    os.makedirs(huge)
    head = b"GGUF" + struct.pack("<I", 3)
    for name, data, code_ in (
            ("tensors.gguf", head + struct.pack("<QQ", 1 << 40, 0),
             "QA1003"),
            ("keys.gguf", head + struct.pack("<QQ", 0, 1 << 40), "QA1003"),
            ("both-max.gguf", head + struct.pack("<QQ", 2**64 - 1,
                                                 2**64 - 1), "QA1003"),
            ("array.gguf", head + struct.pack("<QQ", 0, 1) + gstr(b"a") +
             struct.pack("<IIQ", 9, 0, 1 << 62), "QA1008"),
            ("string-array.gguf", head + struct.pack("<QQ", 0, 1) +
             gstr(b"a") + struct.pack("<IIQ", 9, 8, 1 << 40) + b"\0" * 64,
             "QA1008"),
            ("key-length.gguf", head + struct.pack("<QQQ", 0, 1, 1 << 62) +
             b"a" * 10, "QA1004"),
            ("dims.gguf", head + struct.pack("<QQ", 1, 0) + gstr(b"t") +
             struct.pack("<I", 4) + struct.pack("<4Q", *[1 << 40] * 4) +
             struct.pack("<IQ", 0, 0), "QA1022"),
            ("header.safetensors", struct.pack("<Q", 1 << 62) + b"{}",
             "QA1202")):
        p = os.path.join(huge, name)
        open(p, "wb").write(data)
        cases.append((f"huge count: {name}", p, (1,), code_))
    for what, target, want, code_ in cases:
        code, out, err = run_raw(q, ["check", "-f", "json", target])
        judge_never_4(c, what, code, out, err, want, code_)
    check_unreadable(c, q, fx, base)


def judge_never_4(c, what, code, out, err, want, code_):
    c.check(code in want, f"never 4: {what}: exit {code}, want "
            f"{want} ({err.decode(errors='replace').strip()[:200]})")
    if code == EXIT_FAIL:
        c.check(json.loads(out)["inputs"][0]["findings"],
                f"never 4: {what}: exit 1 without a finding")
        if code_:
            c.check(code_.encode() in out,
                    f"never 4: {what}: no {code_}")
    if code == EXIT_UNRECOGNIZED:
        c.check(err.strip(), f"never 4: {what}: exit 3 without a "
                "message")


def as_nobody():
    """A preexec_fn that drops root to nobody (root reads whatever the
    permission bits say), or None when not root."""
    if os.geteuid() != 0:
        return None

    def drop():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    return drop


def check_unreadable(c, q, fx, base):
    """Permission bits come with a download (tar and unzip restore them):
    a part, shard, index or side file that may not be read is QA1412
    (exit 1, counted as missing); a model file or folder given by name
    that may not be read is exit 3 with a message. Never exit 4."""
    d = os.path.join(base, "unreadable")
    os.makedirs(d)
    split = os.path.join(d, "split")
    shutil.copytree(os.path.join(fx, "gguf", "split"), split)
    part2 = os.path.join(split, "tiny-00002-of-00003.gguf")
    sets = {}
    for name, locked in (("shard", "model-00002-of-00002.safetensors"),
                         ("index", "model.safetensors.index.json"),
                         ("config", "config.json")):
        sets[name] = os.path.join(d, name)
        shutil.copytree(os.path.join(fx, "st", "sharded"), sets[name])
        sets[name + "-locked"] = os.path.join(sets[name], locked)
    sets["pt"] = os.path.join(d, "pt")
    shutil.copytree(os.path.join(fx, "pt", "sharded"), sets["pt"])
    sets["pt-locked"] = os.path.join(sets["pt"],
                                     "pytorch_model-00002-of-00002.bin")
    one = os.path.join(d, "one")
    os.makedirs(one)
    shutil.copy(os.path.join(fx, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(one, "m.gguf"))
    shut = os.path.join(d, "shut")
    os.makedirs(shut)
    shutil.copy(os.path.join(fx, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(shut, "m.gguf"))
    # nobody must reach everything else (mkdtemp makes a 0700 folder)
    for root, dirs, files in os.walk(d):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    for p in (base, os.path.dirname(base)):
        os.chmod(p, 0o755)
    for p in (part2, sets["shard-locked"], sets["pt-locked"],
              sets["index-locked"],
              sets["config-locked"], os.path.join(one, "m.gguf")):
        os.chmod(p, 0)
    os.chmod(shut, 0)
    # (what, path given, exits allowed, the file QA1412 names)
    cases = [
        ("split part unreadable, folder given", split, (1,), part2),
        ("split part unreadable, first part given",
         os.path.join(split, "tiny-00001-of-00003.gguf"), (1,), part2),
        ("split part unreadable, given by name", part2, (3,), None),
        ("shard unreadable", sets["shard"], (1,), sets["shard-locked"]),
        ("shard unreadable, given by name", sets["shard-locked"], (3,),
         None),
        ("PyTorch shard unreadable", sets["pt"], (1,), sets["pt-locked"]),
        ("index unreadable", sets["index"], (1,), sets["index-locked"]),
        ("index unreadable, given by name", sets["index-locked"], (1,),
         sets["index-locked"]),
        ("config.json unreadable", sets["config"], (1,),
         sets["config-locked"]),
        ("the only model file unreadable", one, (3,), None),
        ("a folder that may not be listed", shut, (3,), None),
        ("a file in a folder that may not be searched",
         os.path.join(shut, "m.gguf"), (3,), None),
    ]
    for what, target, want, locked in cases:
        proc = subprocess.run([q, "check", "-f", "json", target],
                              capture_output=True, timeout=120,
                              preexec_fn=as_nobody())
        sanitized(["unreadable", what], proc)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
        c.check(code in want, f"unreadable: {what}: exit {code}, want "
                f"{want} ({err.decode(errors='replace').strip()[:200]})")
        if code == EXIT_FAIL and locked:
            inp = json.loads(out)["inputs"][0]
            got = [f for f in inp["findings"] if f["code"] == "QA1412"]
            c.check(len(got) == 1 and got[0].get("file") == locked and
                    got[0]["severity"] == "error" and
                    "permission denied" in got[0]["message"],
                    f"unreadable: {what}: QA1412 {got}")
        if code == EXIT_UNRECOGNIZED:
            c.check(b"permission denied" in err,
                    f"unreadable: {what}: stderr {err[:200]!r}")
    os.chmod(shut, 0o755)


def main():
    q = sys.argv[1]
    fx = env_path("QA_FIXTURES")
    c = Checker()
    tmp = tempfile.mkdtemp(prefix="qa-hostile-")
    try:
        check_flood(c, q, fx, tmp)
        check_injection(c, q, tmp)
        check_symlinks(c, q, fx, tmp)
        check_never_4(c, q, fx, tmp)
    finally:
        shutil.rmtree(tmp)
    for args, err in SANITIZER:
        c.check(False, f"sanitizer report for {args}: "
                f"{err.decode(errors='replace')}")
    c.finish()


if __name__ == "__main__":
    main()
