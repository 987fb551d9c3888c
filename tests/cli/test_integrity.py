#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`quantaudit hash` and `verify` (src/integrity/, docs/integrity.md).

Independent truth: every tensor's and header's XXH3-128 against Debian's
xxh128sum over the same bytes cut out by Python (skipped without it),
SHA-256 against hashlib, tensor offsets and sizes against the corpus's
expected/*.json (gguf-py and a separate safetensors reader). Then damage:
one byte flipped in every tensor of every model, each run of verify must
name exactly that tensor; a header byte, a padding byte, truncation,
missing and extra files, a manifest edited to drop or rename a tensor;
hostile manifests (not JSON, wrong schema, paths out of the folder, a
damaged gzip) are refused with exit 3. Fixtures always; the corpus
(../shared/corpus) when present.
"""
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, SKIP, env_path, run  # noqa: E402

QA = None


def hash_model(path, out, *extra):
    code, _, err = run(QA, ["hash", "-q", path, "-o", out] + list(extra))
    return code, err


def load_manifest(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def verify(path, manifest, fmt="json"):
    code, out, err = run(QA, ["verify", "-q", "--format", fmt, path, manifest])
    if fmt != "json":
        return code, out, err
    try:
        return code, json.loads(out), err
    except json.JSONDecodeError:
        return code, None, err + out[:300]


def xxh128(paths):
    """xxh128sum of each file, or None without the tool."""
    tool = shutil.which("xxh128sum")
    if not tool or not paths:
        return None
    out = subprocess.run([tool] + paths, capture_output=True, check=True,
                         text=True).stdout
    return [line.split()[0] for line in out.splitlines()]


def model_root(manifest_model, path):
    return path if os.path.isdir(path) else os.path.dirname(path)


def check_against_xxhsum(c, name, man, root, tmp):
    """Every tensor, header and file of man against xxh128sum."""
    cut, want = [], []
    for m in man["models"]:
        for f in m["files"]:
            data = open(os.path.join(root, f["path"]), "rb").read()
            c.check(len(data) == f["bytes"], f"{name}: {f['path']} size")
            p = os.path.join(tmp, f"cut{len(cut)}")
            open(p, "wb").write(data[:f["header_bytes"]])
            cut.append(p)
            want.append((f"header of {f['path']}", f["header_xxh3_128"]))
        files = {f["path"]: open(os.path.join(root, f["path"]), "rb").read()
                 for f in m["files"]}
        for t in m["tensors"]:
            data = files[t["file"]][t["offset"]:t["offset"] + t["bytes"]]
            p = os.path.join(tmp, f"cut{len(cut)}")
            open(p, "wb").write(data)
            cut.append(p)
            want.append((f"tensor {t['name']}", t["xxh3_128"]))
    got = xxh128(cut)
    for p in cut:
        os.unlink(p)
    if got is None:
        c.skipped += 1
        return
    bad = [w[0] for w, g in zip(want, got) if w[1] != g]
    c.check(not bad and len(got) == len(want),
            f"{name}: digests differ from xxh128sum: {bad[:5]}")


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x5A]))


def flip_every_tensor(c, name, copy, man):
    """One byte of each tensor flipped in turn (a position that moves
    through the tensor): verify names that tensor and nothing else."""
    root = model_root(None, copy)
    missed = []
    for m in man["models"]:
        for i, t in enumerate(m["tensors"]):
            if t["bytes"] == 0:
                continue
            at = t["offset"] + (i * 7919) % t["bytes"]
            fp = os.path.join(root, t["file"])
            flip(fp, at)
            code, doc, err = verify(copy, MAN_OF[copy])
            flip(fp, at)
            diffs = doc["differences"] if doc else []
            ok = (code == 1 and len(diffs) == 1 and
                  diffs[0]["kind"] == "changed" and
                  diffs[0].get("tensor") == t["name"] and
                  diffs[0]["offset"] == t["offset"])
            if not ok:
                missed.append((t["name"], code, diffs[:2], err[:200]))
    c.check(not missed, f"{name}: flipped bytes not named exactly: "
            f"{missed[:3]}")


MAN_OF = {}


def round_trip(c, name, path, tmp, expected=None, padding_only=True):
    """hash, the digests against xxh128sum, verify of the unchanged
    model, then every tensor flipped, a header byte, padding, truncation."""
    work = os.path.join(tmp, name.replace("/", "_"))
    if os.path.isdir(path):
        shutil.copytree(path, work)
    else:
        os.makedirs(work)
        base = os.path.basename(path)
        # a split part: the whole set
        import re
        m = re.match(r"(.*)-\d{5}-of-(\d{5})\.gguf$", base)
        if m:
            for f in os.listdir(os.path.dirname(path)):
                if f.startswith(m.group(1)):
                    shutil.copy(os.path.join(os.path.dirname(path), f), work)
        else:
            shutil.copy(path, work)
        work = os.path.join(work, base)
    man_path = os.path.join(tmp, name.replace("/", "_") + ".json")
    code, err = hash_model(work, man_path)
    if not c.check(code == 0, f"{name}: hash exit {code}: {err[:300]}"):
        return
    man = load_manifest(man_path)
    MAN_OF[work] = man_path
    root = model_root(None, work)
    check_against_xxhsum(c, name, man, root, tmp)
    if expected is not None:
        got = {(t["file"], t["name"]): (t["offset"], t["bytes"])
               for m in man["models"] for t in m["tensors"]}
        c.check(got == expected, f"{name}: tensor offsets and sizes differ "
                f"from the independent reader: "
                f"{sorted(set(got.items()) ^ set(expected.items()))[:4]}")
    code, doc, err = verify(work, man_path)
    c.check(code == 0 and doc and doc["differences"] == [] and
            doc["verdict"] == "pass",
            f"{name}: verify of the unchanged model: exit {code} {err[:200]}")
    flip_every_tensor(c, name, work, man)
    f0 = man["models"][0]["files"][-1]
    fp = os.path.join(root, f0["path"])
    # a header byte (past the magic: still a model)
    if f0["header_bytes"] > 16:
        flip(fp, f0["header_bytes"] - 1)
        code, doc, err = verify(work, man_path)
        flip(fp, f0["header_bytes"] - 1)
        kinds = [(d["kind"], d["region"], d["file"])
                 for d in (doc or {}).get("differences", [])]
        c.check(code == 1 and ("changed", "header", f0["path"]) in kinds,
                f"{name}: header flip: exit {code}, {kinds[:4]}")
    # padding between the header and the first tensor
    if f0["other_bytes"]:
        covered = sorted((t["offset"], t["offset"] + t["bytes"])
                         for t in man["models"][0]["tensors"]
                         if t["file"] == f0["path"])
        at, gap = f0["header_bytes"], None
        for s, e in covered + [(f0["bytes"], f0["bytes"])]:
            if s > at:
                gap = at
                break
            at = max(at, e)
        if gap is not None:
            flip(fp, gap)
            code, doc, err = verify(work, man_path)
            flip(fp, gap)
            kinds = [(d["kind"], d["region"])
                     for d in (doc or {}).get("differences", [])]
            # In a GGUF or safetensors file the bytes between header
            # and tensors are padding; in a PyTorch zip they are the
            # pickle and zip headers, which also rename what they hold.
            c.check(code == 1 and (kinds == [("changed", "other bytes")]
                                   if padding_only else
                                   ("changed", "other bytes") in kinds),
                    f"{name}: padding flip at {gap}: exit {code}, {kinds}")
    # truncated inside the last tensor of the file
    ts = [t for t in man["models"][0]["tensors"] if t["file"] == f0["path"]]
    if ts:
        last = max(ts, key=lambda t: t["offset"] + t["bytes"])
        if last["bytes"] > 1:
            cut = last["offset"] + last["bytes"] // 2
            saved = open(fp, "rb").read()
            os.truncate(fp, cut)
            code, doc, err = verify(work, man_path)
            open(fp, "wb").write(saved)
            diffs = (doc or {}).get("differences", [])
            trunc = [d for d in diffs if d["kind"] == "truncated"]
            lost = [d for d in diffs if d["kind"] == "unreadable"]
            c.check(code == 1 and len(trunc) == 1 and
                    trunc[0]["at"] == cut and
                    any(d.get("tensor") == last["name"] and d["at"] == cut
                        for d in lost),
                    f"{name}: truncation at {cut}: exit {code}, {diffs[:3]}")


def truncated_header(c, name, path, tmp):
    """A file cut inside its header: verify checks every region where
    the manifest says it is, whatever the cut header still says."""
    work = os.path.join(tmp, "cut-" + os.path.basename(path))
    shutil.copy(path, work)
    man_path = work + ".json"
    hash_model(work, man_path)
    man = load_manifest(man_path)
    f0 = man["models"][0]["files"][0]
    cut = f0["header_bytes"] // 2
    os.truncate(work, cut)
    code, doc, err = verify(work, man_path)
    diffs = (doc or {}).get("differences", [])
    trunc = [d for d in diffs if d["kind"] == "truncated"]
    header = [d for d in diffs if d["region"] == "header"]
    # every tensor is past the end now, each named with the offset
    lost = {d["tensor"] for d in diffs
            if d["kind"] == "unreadable" and d.get("tensor") and
            d["at"] == cut}
    c.check(code == 1 and len(trunc) == 1 and trunc[0]["at"] == cut and
            len(header) == 1 and header[0]["at"] == cut and
            lost == {t["name"] for t in man["models"][0]["tensors"]},
            f"{name} cut at {cut}, inside its header: exit {code}, "
            f"{diffs[:3]}")


def fixtures(c, fix, tmp):
    gg = os.path.join(fix, "gguf", "valid-llama-q8_0.gguf")
    st = os.path.join(fix, "st", "qwen3")
    round_trip(c, "fixture-gguf", gg, tmp)
    round_trip(c, "fixture-st", st, tmp)
    # a PyTorch checkpoint set: tensors stored in zip members, by offset
    round_trip(c, "fixture-pt", os.path.join(fix, "pt", "sharded"), tmp,
               padding_only=False)
    truncated_header(c, "fixture-gguf", gg, tmp)
    truncated_header(c, "fixture-st", os.path.join(st, "model.safetensors"),
                     tmp)

    # deterministic: the same manifest twice, with 1 or 4 threads, and
    # the .gz holds the same JSON
    a, b, z = (os.path.join(tmp, n) for n in ("a.json", "b.json", "z.json.gz"))
    hash_model(st, a, "--jobs", "1")
    hash_model(st, b, "--jobs", "4")
    hash_model(st, z)
    c.check(open(a, "rb").read() == open(b, "rb").read(),
            "manifests differ between --jobs 1 and 4")
    c.check(gzip.open(z).read() == open(a, "rb").read(),
            ".gz manifest does not hold the same JSON")
    c.check(open(z, "rb").read(2) == b"\x1f\x8b", ".gz manifest not gzip")
    code, doc, err = verify(st, z)
    c.check(code == 0, f"verify against the .gz manifest: {code} {err[:200]}")

    # --sha256 against hashlib, and a changed file caught by it
    s = os.path.join(tmp, "sha.json")
    code, err = hash_model(st, s, "--sha256")
    man = load_manifest(s)
    got = {f["path"]: f.get("sha256") for f in man["models"][0]["files"]}
    want = {f: hashlib.sha256(open(os.path.join(st, f), "rb").read())
            .hexdigest() for f in got}
    c.check(code == 0 and man["sha256"] is True and got == want,
            f"--sha256: {got} != {want}")

    # the model and its manifest: stdout when there is no -o
    code, out, err = run(QA, ["hash", gg])
    c.check(code == 0 and json.loads(out)["schema"] ==
            "quantaudit-manifest/1", f"hash to stdout: {code} {err[:200]}")

    # files missing and extra, tensors missing and extra (manifest edits)
    work = os.path.join(tmp, "edits")
    shutil.copytree(st, work)
    man = load_manifest(a)
    m = man["models"][0]
    dropped = m["tensors"].pop(0)
    m["tensors"][0]["name"] = "renamed.weight"
    renamed_from = load_manifest(a)["models"][0]["tensors"][1]["name"]
    edited = os.path.join(tmp, "edited.json")
    json.dump(man, open(edited, "w"))
    os.unlink(os.path.join(work, "tokenizer_config.json"))
    open(os.path.join(work, "generation_config.json"), "w").write("{}")
    code, doc, err = verify(work, edited)
    diffs = {(d["kind"], d["region"], d["file"], d.get("tensor"))
             for d in (doc or {}).get("differences", [])}
    tfile = m["tensors"][0]["file"]
    want = {("missing", "file", "tokenizer_config.json", None),
            ("extra", "file", "generation_config.json", None),
            ("extra", "tensor", tfile, dropped["name"]),
            ("missing", "tensor", tfile, "renamed.weight"),
            ("extra", "tensor", tfile, renamed_from)}
    c.check(code == 1 and want <= diffs,
            f"edits: exit {code}, missing {want - diffs}, got {diffs}")

    # a damaged model (a tensor past the end): hashed as far as it goes,
    # exit 1, the manifest says which tensor has no hash and why
    bad = os.path.join(fix, "gguf", "tensor-past-eof.gguf")
    p = os.path.join(tmp, "past.json")
    code, err = hash_model(bad, p)
    man = load_manifest(p)
    nohash = [t for t in man["models"][0]["tensors"] if t["xxh3_128"] is None]
    c.check(code == 1 and len(nohash) == 1 and all("past the end" in t["error"]
                                         for t in nohash),
            f"tensor-past-eof: exit {code}, unhashed {nohash[:2]}")
    code, doc, err = verify(bad, p)
    c.check(code == 0 and doc and len(doc["unverified"]) == len(nohash),
            f"tensor-past-eof verify: exit {code}, {doc and doc['unverified']}")

    # hostile and broken manifests: exit 3, nothing read outside
    cases = {
        "not-json.json": b"{\"schema\": ",
        "schema.json": json.dumps({"schema": "quantaudit/1",
                                   "models": []}).encode(),
        "escape.json": json.dumps({
            "schema": "quantaudit-manifest/1", "models": [{
                "path": "x", "kind": "gguf", "tensors": [],
                "files": [{"path": "../../../../etc/passwd", "bytes": 1,
                           "header_bytes": 1, "header_xxh3_128": "0" * 32,
                           "other_bytes": 0, "other_xxh3_128": "0" * 32}]}]
        }).encode(),
        "bad-hash.json": open(a, "rb").read().replace(
            b'"header_xxh3_128": "', b'"header_xxh3_128": "zz', 1),
        "huge-number.json": open(a, "rb").read().replace(
            b'"bytes": ', b'"bytes": 1e300, "x": ', 1),
        "damaged.json.gz": open(z, "rb").read()[:-40] + b"\0" * 40,
    }
    for n, data in cases.items():
        p = os.path.join(tmp, n)
        open(p, "wb").write(data)
        code, out, err = run(QA, ["verify", st, p])
        c.check(code == 3 and err.count("\n") == 1 and "quantaudit:" in err,
                f"manifest {n}: exit {code}, stderr {err[:200]!r}")

    # a model stored in a zip: its members are hashed in place, to the
    # same digests; verify of it is refused (exit 3), not misread
    import zipfile
    zp = os.path.join(tmp, "stored.zip")
    with zipfile.ZipFile(zp, "w", zipfile.ZIP_STORED) as zf:
        zf.write(gg, os.path.basename(gg))
    plain, inzip = os.path.join(tmp, "plain.json"), os.path.join(tmp, "zip.json")
    hash_model(gg, plain)
    code, err = hash_model(zp, inzip)
    dig = lambda p: [t["xxh3_128"] for m in load_manifest(p)["models"]
                     for t in m["tensors"]]
    c.check(code == 0 and dig(plain) == dig(inzip) and None not in dig(inzip),
            f"stored zip: exit {code}, digests differ from the plain file "
            f"{err[:200]}")
    code, doc, err = verify(zp, inzip)
    c.check(code == 0 and doc and doc["differences"] == [],
            f"verify of the zip: exit {code} {err[:200]}")
    # a byte of a tensor changed inside the stored member: named
    t = load_manifest(inzip)["models"][0]["tensors"][2]
    raw = open(zp, "rb").read()
    member = raw.index(open(gg, "rb").read(64))
    flip(zp, member + t["offset"] + 1)
    code, doc, err = verify(zp, inzip)
    got = [(d["kind"], d.get("tensor")) for d in (doc or {}).get("differences", [])]
    c.check(code == 1 and got == [("changed", t["name"])],
            f"verify of the zip with {t['name']} changed: {got} {err[:200]}")
    # the extracted model against the zip's manifest
    code, doc, err = verify(gg, inzip)
    c.check(code == 0, f"the plain file against the zip's manifest: {code}")

    # usage
    code, _, err = run(QA, ["verify", st])
    c.check(code == 2, f"verify with one argument: exit {code}")
    code, _, err = run(QA, ["hash", "--format", "markdown", st])
    c.check(code == 2, f"hash --format: exit {code}")


def corpus(c, root, tmp):
    exp_g = json.load(open(os.path.join(root, "expected", "gguf.json")))
    exp_s = json.load(open(os.path.join(root, "expected", "safetensors.json")))
    for rel, e in sorted(exp_g.items()):
        if "split/" in rel and not rel.endswith("00001-of-00003.gguf"):
            continue
        if "split/" in rel:
            want = {}
            for r2, e2 in exp_g.items():
                if "split/" in r2:
                    want.update({(os.path.basename(r2), t["name"]):
                                 (t["offset"], t["bytes"])
                                 for t in e2["tensors"]})
        else:
            want = {(os.path.basename(rel), t["name"]):
                    (t["offset"], t["bytes"]) for t in e["tensors"]}
        round_trip(c, rel, os.path.join(root, rel), tmp, want)
    for d in sorted(os.listdir(os.path.join(root, "hf"))):
        want = {}
        for rel, e in exp_s.items():
            if rel.startswith(f"hf/{d}/"):
                want.update({(os.path.basename(rel), t["name"]):
                             (t["offset"], t["bytes"])
                             for t in e["tensors"]})
        round_trip(c, f"hf/{d}", os.path.join(root, "hf", d), tmp,
                   want if want else None)


def progress_line(c, tmp):
    """hash on a terminal: after its first second, a progress line on
    stderr ("\\rPATH:  NN%  X of Y  Z MB/s "), cleared at the end
    (\\r ESC [K); none with -q, none when stderr is not a terminal. The
    file is 8 GiB of holes, one thread: two to five seconds of reading
    here, well past the first second."""
    import pty
    import re
    import select
    path = os.path.join(tmp, "big.safetensors")
    n = 8 << 30
    h = json.dumps({"w": {"dtype": "F32", "shape": [n // 4],
                          "data_offsets": [0, n]}}).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little") + h)
        f.truncate(8 + len(h) + n)

    def on_tty(extra):
        master, slave = pty.openpty()
        p = subprocess.Popen([QA, "hash", "--jobs", "1", path, "-o",
                              os.path.join(tmp, "big.json")] + extra,
                             stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        out = b""
        while True:
            r, _, _ = select.select([master], [], [], 120)
            if not r:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:     # the child closed its side
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        return p.wait(60), out.decode("utf-8", "replace")

    code, err = on_tty([])
    # the line names what is being read: the model's path
    lines = re.findall("\r" + re.escape(path) + r": +(\d+)%  [\d.]+ \S+ "
                       r"of 8\.00 GiB  \d+ MB/s ", err)
    cleared = err.rfind("\r\x1b[K")
    c.check(code == 0 and lines and all(0 <= int(x) <= 100 for x in lines)
            and cleared > err.rfind("\r" + path) and
            "hashed in" in err[cleared:],
            f"progress on a terminal: exit {code}, {len(lines)} progress "
            f"lines, cleared before the summary: {err[-160:]!r}")
    c.check(code == 0 and lines == sorted(lines, key=int),
            f"progress never goes back: {lines}")
    code, err = on_tty(["-q"])
    c.check(code == 0 and "%  " not in err and "\x1b" not in err,
            f"progress with -q: {err!r}")
    code, out, err = run(QA, ["hash", "--jobs", "1", path, "-o",
                              os.path.join(tmp, "big.json")])
    c.check(code == 0 and "\r" not in err and "\x1b" not in err,
            f"progress when stderr is not a terminal: {err!r}")
    man = load_manifest(os.path.join(tmp, "big.json"))
    c.check(man is not None, "the manifest written under a progress line")
    os.unlink(path)


def main():
    global QA
    QA = sys.argv[1]
    fix = env_path("QA_FIXTURES")
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        fixtures(c, fix, tmp)
        progress_line(c, tmp)
        root = os.environ.get("QA_CORPUS", "")
        if os.path.isdir(os.path.join(root, "expected")):
            corpus(c, root, tmp)
        else:
            print(f"SKIP corpus: {root} absent")
            c.skipped += 1
    c.finish()


if __name__ == "__main__":
    main()
