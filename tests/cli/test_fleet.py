#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fleet audits (src/cli/cli_fleet.c, docs/fleet.md): --format jsonl,
scan-dir, summarize, and the GNU parallel form.

- every JSON Lines line is a quantaudit/1 document (validated against
  docs/quantaudit-1.schema.json) whose one input is the same object the
  --format json report holds for that model; an input that cannot be read
  is a line with an "error";
- scan-dir finds the models of a tree laid out as people keep them (a
  checkpoint folder with an original/ subfolder, a folder of GGUFs with a
  split set below it, a Hugging Face cache repo, an Ollama store, hidden
  folders and blobs/ skipped) and nothing else;
- summarize's counts equal those Python computes from the same lines;
- GNU parallel over `scan-dir --list`, merged in order, equals the
  single-process run byte for byte (skipped without Debian's parallel).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path, run  # noqa: E402

QA = None


def lines_of(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def build_tree(fix, root):
    """A models folder as people keep one; returns the paths scan-dir
    must find, in its order (names sorted as bytes, depth first)."""
    # a checkpoint folder, with a subfolder of its own
    ck = os.path.join(root, "Qwen3-0.6B")
    shutil.copytree(os.path.join(fix, "st", "qwen3"), ck)
    os.makedirs(os.path.join(ck, "original"))
    shutil.copy(os.path.join(fix, "st", "qwen3", "model.safetensors"),
                os.path.join(ck, "original", "model.safetensors"))
    # a folder of GGUFs, and a split set one level down
    gg = os.path.join(root, "gguf")
    os.makedirs(os.path.join(gg, "split"))
    shutil.copy(os.path.join(fix, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(gg, "llama-q8_0.gguf"))
    shutil.copy(os.path.join(fix, "gguf", "mtp-present.gguf"),
                os.path.join(gg, "mtp.gguf"))
    split_src = os.path.join(fix, "gguf", "split")
    for p in sorted(os.listdir(split_src)):
        shutil.copy(os.path.join(split_src, p), os.path.join(gg, "split"))
    # a Hugging Face cache repo: blobs, a snapshot of links, refs/main
    repo = os.path.join(root, "hub", "models--org--tiny")
    commit = "0" * 40
    src = os.path.join(fix, "hub", "falcon-h1-0.5b")
    for name in sorted(os.listdir(src)):
        blob = os.path.join(repo, "blobs", "b-" + name)
        os.makedirs(os.path.dirname(blob), exist_ok=True)
        shutil.copy(os.path.join(src, name), blob)
        link = os.path.join(repo, "snapshots", commit, name)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.join("..", "..", "blobs", "b-" + name), link)
    os.makedirs(os.path.join(repo, "refs"))
    open(os.path.join(repo, "refs", "main"), "w").write(commit)
    # hidden folders and stray files are not models
    os.makedirs(os.path.join(root, ".trash"))
    shutil.copy(os.path.join(fix, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(root, ".trash", "old.gguf"))
    open(os.path.join(root, "README.md"), "w").write("my models\n")
    return [ck, gg, os.path.join(gg, "split"), repo]


def jsonl_vs_json(c, fix, tmp):
    paths = [os.path.join(fix, "gguf", "valid-llama-q8_0.gguf"),
             os.path.join(fix, "st", "qwen3"),
             os.path.join(tmp, "missing.gguf")]
    code, out, err = run(QA, ["check", "--format", "jsonl"] + paths)
    lines = lines_of(out)
    code2, out2, _ = run(QA, ["check", "--format", "json"] + paths)
    doc = json.loads(out2)
    schema = json.load(open(os.path.join(os.environ["QA_SOURCE_ROOT"],
                                         "docs", "quantaudit-1.schema.json")))
    try:
        import jsonschema
        for line in lines:
            jsonschema.validate(line, schema)
    except ImportError:
        c.skipped += 1
    c.check(len(lines) == 3 and [l["inputs"][0] for l in lines[:2]] ==
            doc["inputs"] and lines[2]["inputs"] == [] and
            lines[2]["error"]["path"] == paths[2] and
            lines[2]["verdict"] == "fail" and code == code2,
            f"jsonl: {len(lines)} lines, exit {code} vs {code2}: "
            f"{[l.get('error') for l in lines]}")
    c.check(all(l["verdict"] == i["verdict"]
                for l, i in zip(lines, doc["inputs"])),
            "jsonl: a line's verdict differs from its input's")


def summarize_counts(c, lines_path):
    # utf-8-sig: a byte order mark is no part of the text
    text = open(lines_path, encoding="utf-8-sig").read()
    if re.match(r"\{\r?\n", text):
        lines = [json.loads(text)]  # one --format json document
    else:
        lines = [json.loads(l) for l in text.splitlines()]
    want = {"pass": 0, "warn": 0, "fail": 0, "unreadable": 0}
    rules, total = {}, 0
    for d in lines:
        if "error" in d:
            want["unreadable"] += 1
            continue
        want["unreadable"] += len(d.get("errors", []))
        for inp in d["inputs"]:
            want[inp["verdict"]] += 1
            total += inp["model"]["bytes"]
            seen = set()
            for f in inp["findings"]:
                k = (f["code"], f["severity"])
                r = rules.setdefault(k, [0, 0])
                r[1] += 1
                if k not in seen:
                    r[0] += 1
                    seen.add(k)
    code, out, err = run(QA, ["summarize", "--format", "json", lines_path])
    got = json.loads(out) if out else {}
    got_rules = {(r["code"], r["severity"]): [r["models"], r["findings"]]
                 for r in got.get("rules", [])}
    c.check(got.get("verdicts") == want and got.get("bytes") == total and
            got_rules == rules and
            code == (1 if want["fail"] or want["unreadable"] else 0),
            f"summarize: {got.get('verdicts')} vs {want}, bytes "
            f"{got.get('bytes')} vs {total}, exit {code}, rules "
            f"{got_rules} vs {rules}")
    code, out, err = run(QA, ["summarize", lines_path])
    c.check(code in (0, 1) and "models in 1 file" in out,
            f"summarize text: {out[:200]}")


def parallel_equals_single(c, root):
    par = shutil.which("parallel")
    if not par:
        print("SKIP GNU parallel: not installed")
        c.skipped += 1
        return
    code, listing, err = run(QA, ["scan-dir", "--list", root])
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(listing)
        lst = f.name
    merged = subprocess.run(
        [par, "-k", "-j", "2", "--will-cite", QA, "check", "--format",
         "jsonl", "{}", "::::", lst], capture_output=True, timeout=600)
    os.unlink(lst)
    code, single, err = run(QA, ["scan-dir", "--format", "jsonl", root])
    c.check(merged.stdout.decode() == single and single.count("\n") >= 1,
            f"parallel over {root}: merged differs from one process "
            f"({len(merged.stdout)} vs {len(single)} bytes)")


def jobs_equal_single(c, root):
    """scan-dir --jobs: worker processes, reports in the single run's
    order, the same exit code; -o writes the merged reports."""
    code1, single, _ = run(QA, ["scan-dir", "--format", "jsonl", root])
    for jobs in ("2", "3"):
        code, out, err = run(QA, ["scan-dir", "--jobs", jobs, "--format",
                                  "jsonl", root])
        c.check(out == single and code == code1 and single,
                f"scan-dir --jobs {jobs} over {root}: exit {code} vs "
                f"{code1}, {len(out)} vs {len(single)} bytes")
    with tempfile.TemporaryDirectory() as tmp:
        dst = os.path.join(tmp, "out.jsonl")
        # the workers' files go under TMPDIR and are removed
        old = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = tmp
        try:
            code, out, err = run(QA, ["scan-dir", "--jobs", "2", "--format",
                                      "jsonl", "-o", dst, root])
        finally:
            if old is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = old
        c.check(code == code1 and out == "" and
                open(dst).read() == single and os.listdir(tmp) == [
                    "out.jsonl"],
                f"scan-dir --jobs -o: exit {code}, {os.listdir(tmp)}")
    code, out, err = run(QA, ["scan-dir", "--jobs", "2", "--format", "json",
                              root])
    c.check(code == 2 and "text or jsonl" in err,
            f"scan-dir --jobs --format json: exit {code} {err[:200]}")


def main():
    global QA
    QA = sys.argv[1]
    fix = env_path("QA_FIXTURES")
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        jsonl_vs_json(c, fix, tmp)
        root = os.path.join(tmp, "models")
        want = build_tree(fix, root)
        code, out, err = run(QA, ["scan-dir", "--list", root])
        c.check(code == 0 and out.splitlines() == want,
                f"scan-dir --list: exit {code}\n{out}\nwant\n" +
                "\n".join(want) + f"\n{err[:300]}")
        lines = os.path.join(tmp, "all.jsonl")
        code, out, err = run(QA, ["scan-dir", "--format", "jsonl", root])
        open(lines, "w").write(out)
        c.check(len(lines_of(out)) >= len(want),
                f"scan-dir jsonl: {len(lines_of(out))} lines")
        summarize_counts(c, lines)
        parallel_equals_single(c, root)
        jobs_equal_single(c, root)
        code, out, err = run(QA, ["scan-dir", os.path.join(tmp, "nothing")])
        c.check(code == 2, f"scan-dir of a missing folder: exit {code}")
        os.makedirs(os.path.join(tmp, "empty"))
        code, out, err = run(QA, ["scan-dir", os.path.join(tmp, "empty")])
        c.check(code == 3 and "no model" in err,
                f"scan-dir of an empty folder: exit {code}")
        # one --format json document (indented), with an input that is
        # no model: folded whole, the input counted unreadable
        notes = os.path.join(tmp, "NOTES.txt")
        open(notes, "w").write("see the model card\n")
        doc = os.path.join(tmp, "report.json")
        code, out, err = run(QA, ["check", "--format", "json"] + want[:3] + [notes])
        open(doc, "w").write(out)
        c.check(code == 3 and out.startswith("{\n") and '"errors"' in out,
                f"check --format json with a non-model: exit {code}")
        summarize_counts(c, doc)
        # the same document as Windows tools leave it: CRLF line ends and
        # a UTF-8 byte order mark (Notepad, PowerShell's Set-Content
        # -Encoding utf8 in Windows PowerShell 5.1)
        crlf = os.path.join(tmp, "report-crlf.json")
        with open(doc, "rb") as f:
            body = f.read()
        with open(crlf, "wb") as f:
            f.write(b"\xef\xbb\xbf" + body.replace(b"\n", b"\r\n"))
        summarize_counts(c, crlf)
        # a report line with counts no model has (an edited or garbled
        # file): 1e30 and 1e400 (infinity to the parser), 2^64, -3 are
        # no count; the totals are the one real model's
        odd = os.path.join(tmp, "odd.jsonl")
        model = lambda p, b, n: {"path": p, "verdict": "pass", "findings": [],
                                 "model": {"bytes": b, "params": n}}
        line = json.dumps({"schema": "quantaudit/1", "verdict": "pass", "inputs": [
            model("a", 0, 0), model("b", 0, 0), model("c", 100, 5)]})
        line = line.replace('"bytes": 0, "params": 0}', '"bytes": 1e30, "params": 1e400}', 1)
        line = line.replace('"bytes": 0, "params": 0}',
                            '"bytes": 18446744073709551616, "params": -3}', 1)
        open(odd, "w").write(line + "\n")
        code, out, err = run(QA, ["summarize", "--format", "json", odd])
        try:
            got = json.loads(out)
            c.check(code == 0 and got["bytes"] == 100 and got["params"] == 5 and
                    sorted((m["path"], m["bytes"]) for m in got["models_by_verdict"]) ==
                    [("a", 0), ("b", 0), ("c", 100)] and "runtime error" not in err,
                    f"summarize of counts no model has: exit {code}, {out[:300]} {err[:300]}")
        except (ValueError, KeyError) as e:
            c.check(False, f"summarize of counts no model has: {e}: {out[:200]}")
        bad = os.path.join(tmp, "bad.jsonl")
        open(bad, "w").write('{"schema": "other"}\n')
        code, out, err = run(QA, ["summarize", bad])
        c.check(code == 3 and ":1:" in err, f"summarize of a non-report: "
                f"exit {code} {err[:200]}")
        corpus = os.environ.get("QA_CORPUS", "")
        if os.path.isdir(os.path.join(corpus, "gguf")):
            parallel_equals_single(c, corpus)
            jobs_equal_single(c, corpus)
            code, out, err = run(QA, ["scan-dir", "--format", "jsonl",
                                      corpus])
            open(lines, "w").write(out)
            summarize_counts(c, lines)
        else:
            c.skipped += 1
    c.finish()


if __name__ == "__main__":
    main()
