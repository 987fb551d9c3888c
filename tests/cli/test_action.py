# SPDX-License-Identifier: MIT
"""The GitHub action (action.yml) and its check step (ci/github-action.sh)
run on fixtures with a fake runner environment (GITHUB_STEP_SUMMARY,
GITHUB_OUTPUT files): the SARIF log validates against the official SARIF
2.1.0 schema (tests/data/sarif-schema-2.1.0.json), the job summary is the
binary's own Markdown report, the outputs carry the binary's exit code
and the JSON report's verdict. action.yml itself is read with PyYAML
(skipped without it): its inputs, upload-sarif@v4, the script it runs.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path  # noqa: E402


def outputs(path):
    out = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition("=")
        out[k] = v
    return out


def main():
    binary = os.path.abspath(sys.argv[1])
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    script = os.path.join(root, "ci", "github-action.sh")
    c = Checker()
    try:
        import jsonschema
    except ImportError:
        print("jsonschema not installed: skipped")
        sys.exit(SKIP)
    schema = json.load(open(os.path.join(root, "tests", "data",
                                         "sarif-schema-2.1.0.json")))
    try:
        import yaml
        action = yaml.safe_load(open(os.path.join(root, "action.yml")))
        c.check(action["runs"]["using"] == "composite", "composite action")
        c.check({"paths", "policy", "gpus"} <= set(action["inputs"]),
                "inputs paths, policy, gpus")
        uses = [s.get("uses", "") for s in action["runs"]["steps"]]
        c.check("github/codeql-action/upload-sarif@v4" in uses,
                f"upload-sarif@v4: {uses}")
        runs = " ".join(s.get("run", "") for s in action["runs"]["steps"])
        c.check("ci/github-action.sh" in runs, "runs ci/github-action.sh")
        env = [s for s in action["runs"]["steps"] if s.get("id") == "check"]
        c.check(env and env[0]["env"]["QA_PATHS"] == "${{ inputs.paths }}"
                and env[0]["env"]["QA_GPUS"] == "${{ inputs.gpus }}" and
                env[0]["env"]["QA_POLICY"] == "${{ inputs.policy }}",
                "inputs reach the script")
    except ImportError:
        print("PyYAML not installed: action.yml not parsed")
        c.skipped += 1
    docs = open(os.path.join(root, "docs", "ci.md")).read()
    c.check("upload-sarif@v3" not in docs and "upload-sarif@v4" in docs,
            "docs/ci.md uses upload-sarif@v4")

    tmp = tempfile.mkdtemp(prefix="qa-action-")
    try:
        work = fixtures
        spaced = os.path.join(tmp, "my model.gguf")
        shutil.copy(os.path.join(fixtures, "gguf/valid-llama-q8_0.gguf"),
                    spaced)
        policy = os.path.join(tmp, "policy.json")
        json.dump({"schema": "quantaudit-policy/1",
                   "overrides": {"QA1011": "error"}}, open(policy, "w"))
        cases = [
            ("pass", spaced + "\n", "", "2x16G"),
            ("fail", "gguf/valid-llama-q8_0.gguf\nst/ghost\n", "", ""),
            ("policy", "gguf/big-endian.gguf", policy, ""),
            ("two", "gguf/valid-llama-q8_0.gguf gguf/big-endian.gguf", "",
             ""),
        ]
        for name, paths, pol, gpus in cases:
            summary = os.path.join(tmp, name + ".md")
            out = os.path.join(tmp, name + ".out")
            open(summary, "w").write("# before\n")
            env = dict(os.environ, QA_BIN=binary, QA_PATHS=paths,
                       QA_POLICY=pol, QA_GPUS=gpus,
                       QA_SARIF=os.path.join(tmp, name + ".sarif"), GITHUB_STEP_SUMMARY=summary,
                       GITHUB_OUTPUT=out)
            p = subprocess.run(["bash", script], cwd=work, env=env,
                               capture_output=True, text=True, timeout=120)
            c.check(p.returncode == 0, f"{name}: script exits 0 "
                    f"({p.returncode}: {p.stderr[-300:]})")
            plist = ([x for x in paths.split("\n") if x] if "\n" in paths
                     else paths.split())
            args = ["--fail-on", "error"]
            if pol:
                args += ["--rules", pol]
            if gpus:
                args += ["--gpus", gpus]
            want = subprocess.run([binary, "check", "-q"] + args +
                                  ["--format", "json", "--"] + plist,
                                  cwd=work, capture_output=True, text=True)
            o = outputs(out)
            c.check(o.get("exit-code") == str(want.returncode),
                    f"{name}: exit-code {o.get('exit-code')} vs "
                    f"{want.returncode}")
            c.check(o.get("verdict") == json.loads(want.stdout)["verdict"],
                    f"{name}: verdict {o.get('verdict')}")
            sarif = json.load(open(o.get("sarif", os.devnull)))
            errs = list(jsonschema.Draft7Validator(schema).iter_errors(sarif))
            c.check(not errs, f"{name}: SARIF schema {errs[:1]}")
            md = subprocess.run([binary, "check", "-q"] + args +
                                ["--format", "markdown", "--"] + plist,
                                cwd=work, capture_output=True, text=True)
            c.check(open(summary).read() == "# before\n" + md.stdout,
                    f"{name}: job summary is the Markdown report, appended")
        c.check(outputs(os.path.join(tmp, "policy.out"))["verdict"] ==
                "fail", "policy input reaches check")
        p = subprocess.run(["bash", script], cwd=work, capture_output=True,
                           text=True, env=dict(os.environ, QA_BIN=binary,
                                               QA_PATHS=""))
        c.check(p.returncode == 2, "no paths: exit 2")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


main()
