# SPDX-License-Identifier: MIT
"""summarize on hostile JSON Lines (src/cli/cli_fleet.c), issue 32.

A report file is input like any other: it may be edited, garbled or
written to attack whoever reads the summary. Each case below is written
here and the outcome computed here:

- a line longer than the 64 MiB summarize reads: exit 3 and one line
  naming the file, the line number and its byte offset, in bounded time
  and memory (the child's peak RSS); a 10 MiB line is read;
- nesting 100,000 deep, a NUL byte, a line that is no JSON: one line with
  the line number and the byte offset of the error in the file;
- types the schema does not allow where summarize counts (verdict 5 or
  "FAIL" or missing, findings a string, a code that is not QA and four
  digits, a severity not error/warning/info, inputs an object): one line
  naming the member (inputs[0].verdict ...), never a pass;
- a key given twice (a "verdict" pass then fail): turned away, since
  Python's json and jq count the last copy;
- NaN and Infinity (Python's json writes them) and invalid UTF-8 in a
  path: read; counts that are no count are 0; the JSON summary is valid
  UTF-8 JSON, the text one has U+FFFD-free escapes, no raw byte 0xff;
- terminal controls (ESC, BEL, C1, bidi overrides) in a path and a rule
  id: no raw control in the text or JSON summary, nor in a diagnostic
  quoting a bad code;
- a million lines: counts equal to Python's, in bounded time; one input
  with 200,000 findings of distinct codes: linear, not quadratic.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, sanitized  # noqa: E402

QA = None


def report(inputs, **extra):
    d = {"schema": "quantaudit/1", "verdict": "pass", "inputs": inputs}
    d.update(extra)
    return d


def model(path, verdict="pass", findings=(), nbytes=100, params=5):
    return {"path": path, "verdict": verdict, "findings": list(findings),
            "model": {"bytes": nbytes, "params": params}}


def finding(code, sev, rid="some-rule"):
    return {"code": code, "id": rid, "severity": sev, "message": "m"}


def summarize(path, fmt=None, timeout=120):
    args = [QA, "summarize"] + (["--format", fmt] if fmt else []) + [path]
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(args, capture_output=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (proc.returncode, proc.stdout, proc.stderr,
            time.monotonic() - t0, max(before, after))


CONTROLS = [b"\x1b", b"\x07", b"\x9b", "\u202e".encode(), b"\x00",
            b"\r"]


def raw_controls(out):
    """The controls present raw (bytes) in out."""
    text = out.decode("utf-8", "replace")
    bad = [c for c in CONTROLS if c in out]
    bad += [ch for ch in text if ch in "\u0085\u009b\u202e\u2066\u2067"]
    return bad


class T:
    def __init__(self, c, tmp):
        self.c, self.tmp, self.n = c, tmp, 0

    def file(self, data):
        self.n += 1
        p = os.path.join(self.tmp, f"r{self.n}.jsonl")
        with open(p, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return p

    def rejected(self, what, data, line, contains, offset=None):
        p = self.file(data)
        code, out, err, secs, _ = summarize(p)
        lines = err.decode("utf-8", "replace").splitlines()
        self.c.check(code == 3, f"{what}: exit {code}, expected 3 "
                     f"({err[:200]!r})")
        self.c.check(len(lines) == 1, f"{what}: {len(lines)} lines on "
                     f"stderr, expected one: {lines[:3]}")
        if lines:
            self.c.check(f"{p}:{line}:" in lines[0] and
                         contains in lines[0],
                         f"{what}: diagnostic {lines[0][:300]!r} lacks "
                         f"'{p}:{line}:' or {contains!r}")
            if offset is not None:
                self.c.check(f"byte {offset}" in lines[0],
                             f"{what}: diagnostic {lines[0][:300]!r} "
                             f"lacks byte {offset}")
        self.c.check(not raw_controls(err), f"{what}: raw controls in "
                     f"the diagnostic: {raw_controls(err)}")
        self.c.check(secs < 30, f"{what}: {secs:.1f} s")


def dumps(d):
    return json.dumps(d) + "\n"


def sizes_and_syntax(t):
    good = dumps(report([model("a")]))
    # a line past 64 MiB: bounded memory (read, not kept)
    # written in pieces: a 65 MiB string in this process would count in
    # the child's peak RSS (the fork before exec)
    p = t.file(good)
    with open(p, "a") as f:
        f.write('{"schema": "quantaudit/1", "inputs": [{"path": "')
        for _ in range(65):
            f.write("b" * (1 << 20))
        f.write('", "verdict": "pass"}]}\n')
    code, out, err, secs, rss = summarize(p)
    e = err.decode("utf-8", "replace")
    t.c.check(code == 3 and f"{p}:2:" in e and
              f"at byte {len(good)}" in e and "bytes long" in e,
              f"huge line: exit {code}, {e[:300]}")
    # the 64 MiB kept, and not the rest (a sanitized build's quarantine
    # keeps freed buffers resident: measured in plain builds only)
    if not sanitized(QA):
        t.c.check(rss < 100 * 1024, f"huge line: peak RSS {rss} KiB")
    # 10 MiB is a line like any other
    p = t.file(good + dumps(report([model("c" * (10 << 20))])))
    code, out, err, secs, _ = summarize(p, "json")
    t.c.check(code == 0 and json.loads(out)["models"] == 2,
              f"10 MiB line: exit {code} {err[:200]}")
    # nesting: cJSON's limit stops it with a parse error, not the stack
    deep = '{"schema": "quantaudit/1", "inputs": [' + "[" * 100000 + "\n"
    t.rejected("deep nesting", good + deep, 2, "not a quantaudit/1 report "
               "line")
    t.rejected("NUL byte", good + good[:10] + "\0" + good[10:], 2,
               "a NUL byte", offset=len(good) + 10)
    t.rejected("not JSON", good + good + "{\"schema\": }\n", 3,
               "not a quantaudit/1 report line")
    t.rejected("truncated line", good + good[:40], 2,
               "not a quantaudit/1 report line")
    t.rejected("not an object", "[1, 2]\n", 1, "the line is not a JSON "
               "object")
    t.rejected("other schema", '{"schema": "other\\u001b[2J"}\n', 1,
               "its schema is 'other")


def types(t):
    g = dumps(report([model("a")]))

    def line(inp):
        return g + json.dumps({"schema": "quantaudit/1", "verdict": "pass",
                               "inputs": inp}) + "\n"
    m = model("x")
    t.rejected("verdict number", line([dict(m, verdict=5)]), 2,
               "inputs[0].verdict is not a string")
    t.rejected("verdict FAIL", line([m, dict(m, verdict="FAIL")]), 2,
               "inputs[1].verdict is 'FAIL', not pass, warn or fail")
    mm = dict(m)
    del mm["verdict"]
    t.rejected("verdict missing", line([mm]), 2,
               "inputs[0].verdict is missing")
    t.rejected("findings string", line([dict(m, findings="x")]), 2,
               "inputs[0].findings is not an array")
    t.rejected("code number", line([dict(m, findings=[
        dict(finding("QA1501", "error"), code=1501)])]), 2,
        "inputs[0].findings[0].code is not a string")
    t.rejected("code escape", line([dict(m, findings=[
        finding("QA1501", "error"), finding("QA\x1b[2J", "error")])]), 2,
        "inputs[0].findings[1].code is 'QA")
    t.rejected("severity", line([dict(m, findings=[
        finding("QA1501", "ERROR")])]), 2,
        "inputs[0].findings[0].severity is 'ERROR', not error")
    t.rejected("inputs object", g + dumps({"schema": "quantaudit/1",
                                          "inputs": {"a": 1}}), 2,
               "inputs is not an array")
    t.rejected("path number", line([dict(m, path=7)]), 2,
               "inputs[0].path is not a string")
    t.rejected("errors", g + dumps({"schema": "quantaudit/1",
                                   "inputs": [], "errors": [3]}), 2,
               "errors[0] is not an object")
    # a key twice: Python's json keeps the last ("fail")
    dup = ('{"schema": "quantaudit/1", "verdict": "pass", "inputs": '
           '[{"path": "d", "verdict": "pass", "findings": [], '
           '"verdict": "fail"}]}\n')
    t.c.check(json.loads(dup)["inputs"][0]["verdict"] == "fail",
              "Python's json does not keep the last copy")
    t.rejected("duplicate key", g + dup, 2,
               "the key inputs[0].verdict appears 2 times")


def values(t):
    # NaN / Infinity as Python's json writes them; invalid UTF-8 and
    # controls in a path and an id
    line = json.dumps(report([
        model("nan", nbytes=float("nan"), params=float("inf")),
        model("ok", "fail", [finding("QA1501", "error",
                                     "id\x1b]0;owned\x07\u202e")]),
        model("PATH_X\x1b[31m\u009b\u202e", "warn",
              [finding("QA1502", "warning")])]))
    data = line.encode().replace(b"PATH_X", b"\xff\xfe") + b"\n"
    p = t.file(data)
    code, out, err, _, _ = summarize(p, "json")
    try:
        doc = json.loads(out.decode("utf-8"))
        t.c.check(code == 1 and doc["models"] == 3 and
                  doc["verdicts"] == {"pass": 1, "warn": 1, "fail": 1,
                                      "unreadable": 0} and
                  doc["bytes"] == 200 and doc["params"] == 10,
                  f"values: exit {code}, {doc}")
        paths = [m["path"] for m in doc["models_by_verdict"]]
        t.c.check(any(x.startswith("\ufffd\ufffd") for x in paths),
                  f"values: the invalid UTF-8 path is {paths}")
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        t.c.check(False, f"values: JSON summary {e}: {out[:300]!r}")
    t.c.check(b"NaN" not in out and b"Infinity" not in out,
              "values: NaN or Infinity in the JSON summary")
    code, out, err, _, _ = summarize(p)
    t.c.check(code == 1 and b"3 models in 1 file" in out,
              f"values text: exit {code} {out[:200]!r}")
    t.c.check(not raw_controls(out) and b"\xff" not in out,
              f"values text: raw {raw_controls(out)} in {out!r}")
    # every control in the text summary: the decoded text is printable
    txt = out.decode("utf-8")
    t.c.check(all(ch in "\n" or ch.isprintable() for ch in txt),
              f"values text: unprintable characters {txt!r}")


def scale(t):
    n = 1000000
    p = os.path.join(t.tmp, "million.jsonl")
    with open(p, "w") as f:
        for i in range(n):
            v = ("pass", "warn", "fail")[i % 3]
            fs = '[{"code": "QA1501", "id": "r", "severity": "error"}]' \
                if v == "fail" else "[]"
            f.write('{"schema": "quantaudit/1", "verdict": "%s", "inputs": '
                    '[{"path": "m%d", "verdict": "%s", "findings": %s, '
                    '"model": {"bytes": 7}}]}\n' % (v, i, v, fs))
    code, out, err, secs, _ = summarize(p, timeout=300)
    want = f"{n} models in 1 file: {n // 3 + 1} pass, {n // 3} warn, " \
        f"{n // 3} fail, 0 unreadable"
    t.c.check(code == 1 and want.encode() in out,
              f"million lines: exit {code}, {out[:200]!r}, want {want}")
    t.c.check(f"QA1501  error    r: {n // 3} models, {n // 3} findings"
              .encode() in out, f"million lines: rule row in {out[:400]!r}")
    print(f"a million lines: {secs:.1f} s")
    t.c.check(secs < 120, f"million lines: {secs:.1f} s")
    # one model, 200,000 findings, each of a distinct code and severity
    fs = [finding(f"QA{i % 10000:04d}", ("error", "warning", "info")
                  [i // 10000 % 3]) for i in range(200000)]
    p = t.file(dumps(report([model("many", "fail", fs)])))
    code, out, err, secs, _ = summarize(p, "json", timeout=300)
    try:
        doc = json.loads(out)
        rules = doc["rules"]
        t.c.check(code == 1 and len(rules) == 30000 and
                  all(r["models"] == 1 for r in rules) and
                  sum(r["findings"] for r in rules) == 200000,
                  f"200k findings: exit {code}, {len(rules)} rules")
    except (ValueError, KeyError) as e:
        t.c.check(False, f"200k findings: {e} {out[:200]!r} {err[:200]!r}")
    print(f"200,000 findings: {secs:.1f} s")
    t.c.check(secs < 30, f"200k findings: {secs:.1f} s")


def main():
    global QA
    QA = sys.argv[1]
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="qa-summarize-") as tmp:
        t = T(c, tmp)
        sizes_and_syntax(t)
        types(t)
        values(t)
        scale(t)
    c.finish()


if __name__ == "__main__":
    main()
