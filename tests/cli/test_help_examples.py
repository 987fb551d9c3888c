# SPDX-License-Identifier: MIT
"""The examples people copy run as written (issue 35, "the first ten
minutes").

1. `quantaudit --help` fits one screen (40 lines), says what PATH can be
   before any option, and its three examples (check a download, gate CI,
   fit a GPU pair) run on files of the names they use: `model.gguf` is the
   bundled sample, `model/` a folder whose MTP weights are missing. Each
   must give the exit code its comment promises.
2. Every `$ quantaudit ...` line of README.md runs, in order, in one
   scratch folder holding copies of the files it names (from the fixtures
   or the corpus, under the names the README uses): its exit code is the
   one its shown output implies (a shown FAIL verdict is 1, a shown PASS
   is 0), and the first line it prints is the README's first line. A
   `$ # one bit of TENSOR flips` line flips that bit, so the verify
   example shows what the README shows.

A README or help example that stops working fails here.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, env_path  # noqa: E402


class Checks:
    def __init__(self):
        self.failed = 0
        self.passed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")


def run(binary, args, cwd):
    proc = subprocess.run([binary] + args, capture_output=True, cwd=cwd,
                          timeout=120)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def copy_in(src, dst):
    os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst, symlinks=True)
    else:
        # the sample is a sparse file of 800 MB: keep the hole
        subprocess.run(["cp", "--sparse=always", src, dst], check=True)


def help_examples(c, binary, fx, tmp):
    code, out, err = run(binary, ["--help"], tmp)
    lines = out.splitlines()
    c.check(code == 0 and not err, f"--help: exit {code}, stderr {err!r}")
    c.check(len(lines) <= 40, f"--help is {len(lines)} lines, more than one "
            "screen (40)")
    first_option = next((i for i, ln in enumerate(lines)
                         if ln.startswith(("  -", "      --"))), len(lines))
    path_at = next((i for i, ln in enumerate(lines)
                    if ln.startswith("PATH is")), None)
    c.check(path_at is not None and path_at < first_option,
            "--help says what PATH can be before any option")
    for word in ("hf://", "Ollama", "models--org--name", "https://"):
        c.check(word in out, f"--help's PATH text names {word}")

    copy_in(os.path.join(fx, "sample", "sample-llama-3.2-1b-Q4_K_M.gguf"),
            os.path.join(tmp, "model.gguf"))
    copy_in(os.path.join(fx, "mtp", "qwen35-missing"),
            os.path.join(tmp, "model"))
    examples = [ln.strip() for ln in lines
                if ln.startswith("  quantaudit ")]
    c.check(len(examples) == 3, f"--help has three examples: {examples}")
    # what each example's comment promises
    want = {"quantaudit model.gguf": 0,
            "quantaudit check": 1,     # "gate CI: exit 1 on an error"
            "quantaudit fit": 0}       # the sample fits 2x16G at 32k
    for ex in examples:
        cmd = re.split(r"\s{2,}", ex)[0]
        argv = shlex.split(cmd)[1:]
        code, out, err = run(binary, argv, tmp)
        key = next((k for k in want if cmd.startswith(k)), None)
        c.check(key is not None and code == want[key],
                f"help example `{cmd}`: exit {code}, want "
                f"{want.get(key)}: {err[:200]}")
        if "-o qa.sarif" in cmd:
            try:
                with open(os.path.join(tmp, "qa.sarif")) as f:
                    sarif = json.load(f)
                ids = {r["ruleId"] for run_ in sarif["runs"]
                       for r in run_["results"]}
            except (OSError, ValueError, KeyError) as e:
                ids = {f"unreadable: {e}"}
            c.check("QA2001" in ids, f"help example `{cmd}`: the SARIF names "
                    f"the missing MTP weights (QA2001): {sorted(ids)[:5]}")
        if cmd.startswith("quantaudit fit"):
            c.check("fits" in out.splitlines()[2] if len(out.splitlines()) > 2
                    else False, f"help example `{cmd}`: {out[:300]}")


def find_input(name, roots):
    """The fixture or corpus file or folder the README calls `name`."""
    for root in roots:
        if not os.path.isdir(root):
            continue
        direct = os.path.join(root, name)
        if os.path.exists(direct):
            return direct
        for dirpath, dirs, files in os.walk(root):
            for entry in dirs + files:
                full = os.path.join(dirpath, entry)
                if full.endswith(os.sep + name):
                    return full
    return None


def readme_blocks(text):
    """(command, shown output lines) for each `$ quantaudit` or `$ #` line
    of the README's code blocks, in order."""
    out = []
    in_block = False
    for ln in text.splitlines():
        if ln.startswith("```"):
            in_block = not in_block
            continue
        if not in_block:
            continue
        if ln.startswith("$ "):
            out.append((ln[2:], []))
        elif out and out[-1][0] is not None:
            out[-1][1].append(ln)
    return out


def flip_bit(binary, path, tensor, cwd):
    code, out, _ = run(binary, ["tensors", "--format", "json", path], cwd)
    doc = json.loads(out)
    inp = doc["inputs"][0] if "inputs" in doc else doc
    t = next(t for t in inp["tensors"] if t["name"] == tensor)
    with open(os.path.join(cwd, path), "r+b") as f:
        f.seek(t["offset"] + 7)
        b = f.read(1)
        f.seek(t["offset"] + 7)
        f.write(bytes([b[0] ^ 0x10]))


def readme_examples(c, binary, src, fx, corpus, tmp):
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        blocks = readme_blocks(f.read())
    roots = [fx, corpus]
    ran = 0
    last_file = None
    for cmd, shown in blocks:
        if cmd.startswith("#"):
            m = re.match(r"# one bit of (\S+) flips", cmd)
            if m and last_file:
                flip_bit(binary, last_file, m.group(1), tmp)
            continue
        if not cmd.startswith("quantaudit"):
            continue
        argv = shlex.split(cmd)[1:]
        missing = False
        for a in argv:
            if a.startswith("-") or os.path.exists(os.path.join(tmp, a)):
                continue
            if not re.search(r"\.(gguf|safetensors|json)$|/", a):
                continue
            if a.endswith(".json.gz"):
                continue            # written by an earlier example
            found = find_input(a.replace("build/fixtures/out/", ""), roots)
            if found is None:
                print(f"SKIP `{cmd}`: {a} is neither a fixture nor in the "
                      "corpus here")
                missing = True
                break
            copy_in(found, os.path.join(tmp, a))
            if a.endswith(".gguf"):
                last_file = a
        if missing:
            continue
        code, out, err = run(binary, argv, tmp)
        ran += 1
        print(f"ran `{cmd}`: exit {code}")
        text = "\n".join(shown)
        if "verdict: FAIL" in text or re.search(r"^\s*error", text, re.M):
            want = {1}
        elif re.search(r"verdict: (PASS|WARN)", text):
            want = {0}
        else:
            want = {0, 1}
        c.check(code in want, f"README `{cmd}`: exit {code}, want "
                f"{sorted(want)}: {err[:300]}")
        first = next((ln for ln in shown if ln.strip()), "")
        got = (out + err).splitlines()
        if first and not first.startswith(("…", "...", "quantaudit: 1 model")):
            c.check(got and got[0] == first,
                    f"README `{cmd}`: first line {got[:1]!r}, the README "
                    f"shows {first!r}")
        for ln in shown:
            if ln.startswith(("verdict:", "  changed ")):
                c.check(ln in got, f"README `{cmd}`: '{ln}' not printed")
    c.check(ran >= 3, f"only {ran} README examples could run")


def main():
    binary = os.path.abspath(sys.argv[1])
    fx = env_path("QA_FIXTURES")
    src = env_path("QA_SOURCE_ROOT")
    corpus = os.environ.get("QA_CORPUS", "")
    if not os.path.exists(os.path.join(fx, "sample")):
        print("the fixture generator did not run")
        return 1
    c = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "help"))
        help_examples(c, binary, fx, os.path.join(tmp, "help"))
        os.makedirs(os.path.join(tmp, "readme"))
        readme_examples(c, binary, src, fx, corpus,
                        os.path.join(tmp, "readme"))
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
