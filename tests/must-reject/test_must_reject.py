# SPDX-License-Identifier: MIT
"""The must-reject corpus (tests/must-reject/manifest.tsv): runs
`quantaudit check` on every input listed and asserts its exit status
exactly, and for exit 1 that the rule code listed is reported as an
error (the finding that fails the check, not a warning beside it); for
exit 3, that the input was refused with a message and not audited.
Exit 4 ("quantaudit broke") is never an acceptable answer to a hostile
input (docs/security.md).

Each input is checked twice, with the text report and with JSON (the
exit status must agree; the codes are read from the JSON). Rows that
need a FIFO or a symbolic link are built in a scratch copy; rows from
the fixture generator are skipped with a message when the fixtures are
not built (they are, under meson test).

    test_must_reject.py QUANTAUDIT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def resolve(path, scratch):
    """The path to run quantaudit on, or None when it cannot be made."""
    if path.startswith("fixture:"):
        fixtures = os.environ.get("QA_FIXTURES", "")
        p = os.path.join(fixtures, path[len("fixture:"):])
        return p if fixtures and os.path.exists(p) else None
    if "+" not in path:
        return os.path.normpath(os.path.join(HERE, path))
    base, extra = path.split("+", 1)
    kind, spec = extra.split(":", 1)
    dst = os.path.join(scratch, path.replace("/", "_").replace(":", "_")
                       .replace("=", "_"))
    shutil.copytree(os.path.join(HERE, base), dst)
    if kind == "fifo":
        target = os.path.join(dst, spec)
        if os.path.exists(target):
            os.remove(target)
        os.mkfifo(target)
    elif kind == "symlink":
        name, target = spec.split("=", 1)
        link = os.path.join(dst, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    else:
        raise ValueError(f"unknown kind {kind!r} in {path}")
    return dst


def run(binary, args):
    # A FIFO that were opened would block: the timeout turns that into
    # a failure instead of a hung test.
    try:
        p = subprocess.run([binary, "check", *args], capture_output=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out after 60 s"
    return p.returncode, p.stdout, p.stderr


def main():
    binary = sys.argv[1]
    failures = 0
    checked = skipped = 0
    rows = []
    with open(os.path.join(HERE, "manifest.tsv")) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 4:
                print(f"FAIL manifest.tsv:{n}: {len(cols)} columns, "
                      "expected 4 (path, exit, code, description)")
                failures += 1
                continue
            rows.append(cols)
    if not rows:
        print("FAIL manifest.tsv lists no input")
        return 1
    scratch = tempfile.mkdtemp(prefix="quantaudit-must-reject.")
    try:
        for path, want_exit, code, desc in rows:
            want_exit = int(want_exit)
            where = resolve(path, scratch)
            if where is None:
                print(f"skip {path}: fixtures not built")
                skipped += 1
                continue
            rc_text, _, err_text = run(binary, [where])
            rc, out, err = run(binary, ["--format", "json", where])
            problems = []
            if rc != want_exit or rc_text != want_exit:
                problems.append(f"exit {rc} (json) / {rc_text} (text), "
                                f"expected {want_exit}")
            try:
                doc = json.loads(out) if out.strip() else {}
            except ValueError as e:
                doc = {}
                problems.append(f"JSON report does not parse: {e}")
            findings = [f for i in doc.get("inputs", [])
                        for f in i.get("findings", [])]
            if want_exit == 1:
                sev = {f.get("severity") for f in findings
                       if f.get("code") == code}
                if "error" not in sev:
                    problems.append(
                        f"{code} not reported as an error (got "
                        f"{sorted({f['code'] for f in findings})}, "
                        f"{code} severities {sorted(sev)})")
            elif want_exit == 3:
                if doc.get("inputs"):
                    problems.append("an input was audited")
                if not err.strip():
                    problems.append("refused without a message")
            if problems:
                failures += 1
                print(f"FAIL {path} ({desc}): " + "; ".join(problems))
                print("  stderr: " + err.decode("utf-8", "replace")
                      .strip()[:400])
            else:
                checked += 1
                print(f"ok   {path}: exit {want_exit}"
                      + (f", {code}" if want_exit == 1 else ""))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{checked} inputs rejected as expected, {failures} failures, "
          f"{skipped} skipped")
    return 1 if failures else 0


sys.exit(main())
