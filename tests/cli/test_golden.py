# SPDX-License-Identifier: MIT
"""Golden CLI tests: runs quantaudit for every case in tests/golden/cases.tsv
(in the generated fixtures folder, so paths are relative and stable) and
compares stdout, stderr and the exit code with tests/golden/<case>.out,
.err and .exit, byte for byte except one thing: the tool's version, which
the expected files spell {{version}} (the JSON "tool" object, SARIF's
driver, the HTML page's prose), so a release does not rewrite them. With QA_UPDATE_GOLDEN=1 the
expected files are rewritten instead: review the diff before committing
it."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path  # noqa: E402


def main():
    binary = os.path.abspath(sys.argv[1])
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    golden = os.path.join(root, "tests", "golden")
    update = os.environ.get("QA_UPDATE_GOLDEN") == "1"
    c = Checker()
    env = dict(os.environ, NO_COLOR="1")
    version = subprocess.run([binary, "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    placeholder = "{{version}}"
    version_json = f'"version": "{version}"'
    version_glob = f'"version": "{placeholder}"'
    # the HTML page names it in prose ("quantaudit 0.1.0")
    version_prose = f"quantaudit {version}"
    prose_glob = f"quantaudit {placeholder}"
    for line in open(os.path.join(golden, "cases.tsv")):
        if not line.strip() or line.startswith("#"):
            continue
        name, args = line.rstrip("\n").split("\t", 1)
        proc = subprocess.run([binary] + args.split(" "), cwd=fixtures,
                              capture_output=True, env=env, timeout=60)
        got = {"out": proc.stdout.decode(), "err": proc.stderr.decode(),
               "exit": f"{proc.returncode}\n"}
        for ext, text in got.items():
            path = os.path.join(golden, f"{name}.{ext}")
            if update:
                if text or ext != "err":
                    with open(path, "w") as f:
                        f.write(text.replace(version_json, version_glob)
                                .replace(version_prose, prose_glob))
                elif os.path.exists(path):
                    os.remove(path)
                continue
            want = open(path).read() if os.path.exists(path) else ""
            # the one tolerance: the version, where the report names it
            want = want.replace(version_glob, version_json).replace(
                prose_glob, version_prose)
            if not c.check(text == want, f"{name}.{ext} differs"):
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    want.splitlines(True), text.splitlines(True),
                    f"expected {name}.{ext}", "got", n=2))
    if update:
        print("golden files rewritten")
    c.finish()


main()
