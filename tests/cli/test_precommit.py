# SPDX-License-Identifier: MIT
"""The pre-commit hook (.pre-commit-hooks.yaml, python/quantaudit/
precommit.py) run the way users run it: `pre-commit try-repo` of this
source tree in a scratch git repository holding fixtures, with the
quantaudit-system hook (the built binary on PATH). Expected findings come
from the fixture manifest. Skipped when pre-commit is not installed
(requirements-test.txt pins it).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path  # noqa: E402


def main():
    binary = os.path.abspath(sys.argv[1])
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    pre_commit = shutil.which("pre-commit")
    if not pre_commit or not shutil.which("git"):
        print("pre-commit (pip install pre-commit) or git not installed: "
              "skipped")
        sys.exit(SKIP)
    c = Checker()
    sys.path.insert(0, os.path.join(root, "python", "quantaudit"))
    import precommit
    tmp = tempfile.mkdtemp(prefix="qa-precommit-")
    try:
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        env = dict(os.environ, PRE_COMMIT_HOME=os.path.join(tmp, "home"),
                   QUANTAUDIT=binary, GIT_AUTHOR_NAME="t",
                   GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@example.com",
                   PATH=os.path.dirname(binary) + os.pathsep +
                   os.environ.get("PATH", ""))
        subprocess.run(["git", "init", "-q", repo], check=True, env=env)
        shutil.copy(os.path.join(fixtures, "gguf/valid-llama-q8_0.gguf"),
                    os.path.join(repo, "good.gguf"))
        shutil.copy(os.path.join(fixtures, "gguf/truncated-data.gguf"),
                    os.path.join(repo, "cut.gguf"))
        shutil.copytree(os.path.join(fixtures, "st/ghost"),
                        os.path.join(repo, "ghost"))
        open(os.path.join(repo, "README.md"), "w").write("# models\n")
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
        # The hook repository: the manifest and the script of this tree,
        # committed in a scratch repository (try-repo clones a commit, and
        # this tree may be a tarball or hold them uncommitted).
        hooks = os.path.join(tmp, "hooks")
        os.makedirs(os.path.join(hooks, "python", "quantaudit"))
        shutil.copy(os.path.join(root, ".pre-commit-hooks.yaml"), hooks)
        shutil.copy(os.path.join(root, "python", "quantaudit",
                                 "precommit.py"),
                    os.path.join(hooks, "python", "quantaudit"))
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "commit", "-qm", "hooks"]):
            subprocess.run(cmd, cwd=hooks, check=True, env=env)

        # the hook's own mapping from committed files to models
        c.check(precommit.targets(["ghost/config.json", "ghost/x.jinja",
                                   "good.gguf", "README.md",
                                   "ghost/model.safetensors.index.json"])
                == ["ghost", "good.gguf"], "targets: folder once, gguf")

        def try_repo(files, args=()):
            p = subprocess.run([pre_commit, "try-repo", hooks,
                                "quantaudit-system", "--verbose",
                                "--files"] + files, cwd=repo, env=env,
                               capture_output=True, text=True, timeout=300)
            return p.returncode, p.stdout + p.stderr

        code, out = try_repo(["good.gguf"])
        c.check(code == 0 and "Passed" in out, f"good.gguf passes: {out[-800:]}")
        code, out = try_repo(["cut.gguf", "good.gguf"])
        c.check(code == 1 and "QA1028" in out and "Failed" in out,
                f"cut.gguf fails with QA1028: {out[-800:]}")
        ghost = [os.path.join("ghost", n) for n in
                 sorted(os.listdir(os.path.join(repo, "ghost")))]
        code, out = try_repo([g for g in ghost if g.endswith(".json")])
        c.check(code == 1 and "QA1302" in out,
                f"ghost configs: the folder is checked (QA1302): "
                f"{out[-800:]}")
        code, out = try_repo(["README.md"])
        c.check(code == 0 and "Skipped" in out,
                f"README.md only: skipped: {out[-400:]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


main()
