#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A disk that fails under quantaudit: tests/cli/eio_preload.c, preloaded,
makes reads of one file fail from one offset on (EIO, or the file ending
there as if cut short while read). Every such run must exit 4 with one
line that names the file, the offset of the first byte not read and why;
the JSON report must list the input under "errors" with verdict "fail",
never "pass"; and inspect, which reads headers only, must not notice a
failure past the header.

The offsets are worked out here from the files themselves (a GGUF walk in
Python, the safetensors header length), not from quantaudit.

    test_io_errors.py QUANTAUDIT EIO_PRELOAD_SO
"""
import html
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, env_path  # noqa: E402

EIO = "Input/output error"


def gguf_layout(path):
    """(end of the key/value section, end of the tensor infos, data
    offset, [(tensor name, absolute offset, bytes)]) of a little-endian
    GGUF v3 file."""
    data = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return v[0] if len(v) == 1 else v

    def string():
        nonlocal pos
        n = take("Q")
        s = data[pos:pos + n].decode("utf-8", "replace")
        pos += n
        return s

    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def value(t):
        nonlocal pos
        if t == 8:
            string()
        elif t == 9:
            et, n = take("I"), take("Q")
            for _ in range(n):
                value(et)
        else:
            pos += sizes[t]

    magic, _version, n_tensors, n_kv = take("4s"), take("I"), take("Q"), take("Q")
    assert magic == b"GGUF"
    alignment = 32
    for _ in range(n_kv):
        key = string()
        t = take("I")
        if key == "general.alignment":
            alignment = take("I")
        else:
            value(t)
    kv_end = pos
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("Q") for _ in range(take("I"))]
        ggml_type, off = take("I"), take("Q")
        infos.append((name, dims, ggml_type, off))
    ti_end = pos
    data_off = (ti_end + alignment - 1) // alignment * alignment
    # tensor bytes: the next tensor's offset (or the file's end) minus this
    # one's, as the data region is packed in order
    offs = sorted(o for _, _, _, o in infos) + [len(data) - data_off]
    tensors = []
    for name, _, _, o in infos:
        nxt = min(x for x in offs if x > o)
        tensors.append((name, data_off + o, nxt - o))
    return kv_end, ti_end, data_off, tensors


def main(argv):
    qa, shim = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    fix = env_path("QA_FIXTURES")
    c = Checker()

    def run(args, file, at, mode="eio"):
        env = dict(os.environ, LD_PRELOAD=shim, QA_FAIL_FILE=os.path.realpath(file),
                   QA_FAIL_AT=str(at), QA_FAIL_MODE=mode)
        p = subprocess.run([qa] + args, capture_output=True, env=env, timeout=60)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    gguf = os.path.join(fix, "gguf", "valid-llama-q8_0.gguf")
    kv_end, ti_end, data_off, tensors = gguf_layout(gguf)

    # the shim must reach quantaudit's reads (a sanitizer's own pread64
    # interceptor, linked into the binary, comes first)
    code, _, err = run(["inspect", gguf], gguf, 0)
    if code == 0:
        print("SKIP: the preloaded pread64 is not called (a sanitized build intercepts it)")
        return SKIP

    # ---- one GGUF: in the probe, the key/value section, the tensor infos
    for what, at in (("the first bytes (the probe)", 0), ("the key/value section", 100),
                     ("the key/value section, past the probe", kv_end - 7),
                     ("the tensor infos", ti_end - 5)):
        want = f"{gguf}: read error at offset {at}: {EIO}"
        code, out, err = run(["inspect", gguf], gguf, at)
        c.check(code == 4 and err == f"quantaudit: {want}\n",
                f"GGUF, {what} (offset {at}): exit {code}, stderr {err!r}, want {want!r}")
        code, out, err = run(["inspect", "--format", "json", gguf], gguf, at)
        try:
            doc = json.loads(out)
            c.check(code == 4 and doc["inputs"] == [] and doc["verdict"] == "fail" and
                    doc.get("errors") == [{"path": gguf, "exit": 4, "message": want}],
                    f"GGUF JSON, {what}: exit {code}, {out[:400]}")
        except (ValueError, KeyError) as e:
            c.check(False, f"GGUF JSON, {what}: {e}: {out[:300]}")
        code, out, err = run(["inspect", "--format", "jsonl", gguf], gguf, at)
        try:
            doc = json.loads(out)
            c.check(code == 4 and doc["verdict"] == "fail" and
                    doc.get("error") == {"path": gguf, "exit": 4, "message": want},
                    f"GGUF JSONL, {what}: exit {code}, {out[:400]}")
        except (ValueError, KeyError) as e:
            c.check(False, f"GGUF JSONL, {what}: {e}: {out[:300]}")

    # the file cut short while read: it ends where it had bytes
    at = ti_end - 5
    code, _, err = run(["inspect", gguf], gguf, at, mode="eof")
    want = (f"quantaudit: {gguf}: the file ended at offset {at}, before the size it had "
            "when opened (it shrank while read)\n")
    c.check(code == 4 and err == want, f"GGUF cut short at {at}: exit {code}, stderr {err!r}")

    # inspect reads the header only: a disk that fails from the first byte
    # of tensor data on changes nothing
    plain = subprocess.run([qa, "inspect", "--format", "json", gguf], capture_output=True)
    code, out, err = run(["inspect", "--format", "json", gguf], gguf, data_off)
    c.check(code == plain.returncode and out == plain.stdout.decode() and err == "",
            f"GGUF failing from its data offset {data_off}: exit {code}, stderr {err!r}")

    # hash reads every tensor: the one holding the failing byte is named,
    # with the offset where its read stopped
    name, start, size = next(t for t in tensors if t[2] > 64)
    at = start + size // 2
    code, _, err = run(["hash", gguf], gguf, at)
    want = (f"quantaudit: {gguf}: tensor {name} not hashed: read error at offset {at} of "
            f"{os.path.basename(gguf)}: {EIO}")
    c.check(code == 4 and err.splitlines()[:1] == [want],
            f"hash, failing inside {name} at {at}: exit {code}, stderr {err[:300]!r}")

    # scan reads every tensor too: the first it could not read, with the
    # offset, in the QA1708 finding (a warning: the data not checked)
    code, out, err = run(["scan", "--format", "json", gguf], gguf, at)
    try:
        f = [x for x in json.loads(out)["inputs"][0]["findings"] if x["code"] == "QA1708"]
        unread = [t for t in tensors if t[1] + t[2] > at]
        c.check(code == 0 and len(f) == 1 and
                f"could not be read, so their data is not checked (the first, {name}: read "
                f"error at offset {at}: {EIO})" in f[0]["message"] and
                f[0]["detail"].startswith(f"{len(unread)} of the {len(tensors)} tensors"),
                f"scan, failing inside {name} at {at}: exit {code}, {f}")
    except (ValueError, KeyError, IndexError) as ex:
        c.check(False, f"scan, failing inside {name}: {ex}: {out[:300]}")

    # ---- a sharded safetensors folder: the second shard's header
    folder = os.path.join(fix, "st", "sharded")
    shard = os.path.join(folder, "model-00002-of-00002.safetensors")
    header_len = struct.unpack("<Q", open(shard, "rb").read(8))[0]
    at = 8 + header_len // 2
    want = f"{folder}: {shard}: read error at offset {at}: {EIO}"
    code, _, err = run(["inspect", folder], shard, at)
    c.check(code == 4 and err == f"quantaudit: {want}\n",
            f"sharded folder, shard 2 at {at}: exit {code}, stderr {err!r}, want {want!r}")

    # ---- a side file the disk fails: the folder is still audited, and the
    # report says what it could not read (QA1412) instead of leaving the
    # chat-template checks out in silence
    qwen3 = os.path.join(fix, "st", "qwen3")
    plain = subprocess.run([qa, "inspect", "--format", "json", qwen3], capture_output=True)
    # config.json too: without the finding its loss left "model unknown"
    # and a verdict of pass
    for name in ("tokenizer_config.json", "config.json"):
        side = os.path.join(qwen3, name)
        code, out, err = run(["inspect", "--format", "json", qwen3], side, 0)
        try:
            before = json.loads(plain.stdout)["inputs"][0]["findings"]
            doc = json.loads(out)
            after = doc["inputs"][0]["findings"]
            added = [f for f in after if f not in before]
            # exit 4 (a system error), the report written all the same
            c.check(plain.returncode == 0 and code == 4 and len(added) == 1 and
                    added[0]["code"] == "QA1412" and added[0]["file"] == side and
                    added[0]["detail"] == f"{name} could not be read (read error at "
                    f"offset 0: {EIO}); what needs it was not checked" and
                    all(f in after for f in before) and doc["verdict"] == "fail",
                    f"{name} failing at 0: exit {code} (plain {plain.returncode}), {added}")
        except (ValueError, KeyError, IndexError) as ex:
            c.check(False, f"{name} failing at 0: {ex}: {out[:300]}")
        # SARIF says the run did not succeed, with its exit code
        code, out, err = run(["check", "--format", "sarif", qwen3], side, 0)
        try:
            inv = json.loads(out)["runs"][0]["invocations"][0]
            c.check(code == 4 and inv["executionSuccessful"] is False and
                    inv["exitCode"] == 4,
                    f"{name} failing at 0, SARIF: exit {code}, {inv}")
        except (ValueError, KeyError, IndexError) as ex:
            c.check(False, f"{name} failing at 0, SARIF: {ex}: {out[:300]}")

    # ---- several inputs: the one that fails is in "errors", the others
    # in "inputs", and the verdict is fail
    code, out, err = run(["inspect", "--format", "json", "--summary", gguf, folder], shard, at)
    try:
        doc = json.loads(out)
        c.check(code == 4 and [i["path"] for i in doc["inputs"]] == [gguf] and
                doc["errors"] == [{"path": folder, "exit": 4, "message": want}] and
                doc["verdict"] == "fail",
                f"two inputs, one failing: exit {code}, {json.dumps(doc)[:400]}")
        try:
            import jsonschema
            schema = json.load(open(os.path.join(env_path("QA_SOURCE_ROOT"), "docs",
                                                 "quantaudit-1.schema.json")))
            problems = [e.message for e in
                        jsonschema.Draft202012Validator(schema).iter_errors(doc)]
            c.check(not problems, f"two inputs, one failing: schema: {problems[:3]}")
        except ImportError:
            print("python3-jsonschema is not installed: schema check skipped")
    except (ValueError, KeyError) as e:
        c.check(False, f"two inputs, one failing: {e}: {out[:300]}")

    # the reports written all at once list it too
    code, out, err = run(["inspect", "--format", "junit", gguf, folder], shard, at)
    try:
        root = ET.fromstring(out)
        bad = [ts for ts in root.findall("testsuite") if ts.get("name") == folder]
        e = bad[0].find("testcase/error") if bad else None
        c.check(code == 4 and root.get("errors") == "1" and e is not None and
                e.get("message") == want and e.get("type") == "exit 4",
                f"JUnit with one input failing: exit {code}, {out[-600:]}")
    except (ET.ParseError, IndexError) as ex:
        c.check(False, f"JUnit with one input failing: {ex}: {out[-300:]}")
    code, out, err = run(["inspect", "--format", "sarif", gguf, folder], shard, at)
    try:
        inv = json.loads(out)["runs"][0]["invocations"][0]
        note = inv["toolExecutionNotifications"][0]
        c.check(code == 4 and inv["executionSuccessful"] is False and inv["exitCode"] == 4 and
                note["level"] == "error" and note["message"]["text"] == want and
                note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == folder and
                json.loads(out)["runs"][0]["properties"]["verdict"] == "fail",
                f"SARIF with one input failing: exit {code}, {json.dumps(inv)[:400]}")
    except (ValueError, KeyError, IndexError) as ex:
        c.check(False, f"SARIF with one input failing: {ex}: {out[:300]}")
    code, out, err = run(["inspect", "--format", "markdown", gguf, folder], shard, at)
    md_want = want.replace("_", "\\_")
    c.check(code == 4 and out.startswith("## quantaudit: FAIL\n") and
            f"### Not audited\n\n- {md_want} (exit 4)\n" in out,
            f"Markdown with one input failing: exit {code}, {out[:500]!r}")

    code, out, err = run(["inspect", "--format", "html", gguf, folder], shard, at)
    c.check(code == 4 and "<title>quantaudit: fail" in out and
            '<section id="not-audited"><h2>Not audited</h2>' in out and
            html.escape(want) + "</span> (exit 4)</li>" in out,
            f"HTML with one input failing: exit {code}")

    # ---- a path that is no model: exit 3, in "errors" with its exit
    tmp = tempfile.mkdtemp(prefix="qa-io-errors-")
    notes = os.path.join(tmp, "NOTES.txt")
    with open(notes, "w") as f:
        f.write("downloaded from the hub, Q4_K_M\n")
    p = subprocess.run([qa, "inspect", "--format", "json", gguf, notes], capture_output=True)
    shutil.rmtree(tmp)
    try:
        doc = json.loads(p.stdout)
        errs = doc.get("errors") or [{}]
        c.check(p.returncode == 3 and len(doc["inputs"]) == 1 and len(errs) == 1 and
                errs[0].get("path") == notes and errs[0].get("exit") == 3 and
                doc["verdict"] == "fail",
                f"a JSON file given as a model: exit {p.returncode}, {p.stdout[:400]!r}")
    except (ValueError, KeyError) as e:
        c.check(False, f"a JSON file given as a model: {e}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
