# SPDX-License-Identifier: MIT
"""The quantaudit Python package (python/quantaudit) over libquantaudit.

Each result is compared with the quantaudit binary's own JSON report for
the same command and options (parsed here with json): the module must
return that document, schema version included, and raise its exceptions
exactly where the binary exits 2, 3 or 4. Hostile inputs run in a child
interpreter so that a crash of the library shows as a signal, not as a
lost test run.

Environment (set by tests/meson.build): QUANTAUDIT_LIBRARY (the built
libquantaudit.so), QA_BINARY, QA_FIXTURES, QA_CORPUS, QA_SOURCE_ROOT.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import threading

import pytest

import quantaudit

BINARY = os.environ.get("QA_BINARY")
FIXTURES = os.environ.get("QA_FIXTURES", "")
CORPUS = os.environ.get("QA_CORPUS", "")
ROOT = os.environ.get("QA_SOURCE_ROOT", "")
# A sanitized build preloads its sanitizer runtime into this interpreter
# (tests/meson.build); the binary links its own copy and aborts beside a
# second one, so only Python children keep the preload.
PYTHON_ENV = dict(os.environ)
if os.environ.get("QA_SANITIZER_PRELOAD"):
    os.environ.pop("LD_PRELOAD", None)

pytestmark = pytest.mark.skipif(not BINARY or not os.path.isdir(FIXTURES),
                                reason="run through meson test")


def cli(command, paths, options=(), cwd=None):
    """(exit code, JSON report) of the binary."""
    p = subprocess.run([BINARY, command, "--format", "json", "-q"] +
                       list(options) + ["--"] + list(paths),
                       capture_output=True, cwd=cwd, timeout=300)
    return p.returncode, json.loads(p.stdout) if p.stdout else None


def fx(rel):
    return os.path.join(FIXTURES, rel)


def test_inspect_is_the_json_report():
    r = quantaudit.inspect(fx("gguf/valid-llama-q8_0.gguf"))
    assert r["schema"] == quantaudit.SCHEMA == "quantaudit/1"
    assert r == cli("inspect", [fx("gguf/valid-llama-q8_0.gguf")])[1]
    assert r["inputs"][0]["model"]["architecture"] == "llama"


def test_version():
    assert quantaudit.library_version() == quantaudit.__version__
    out = subprocess.run([BINARY, "--version"], capture_output=True,
                         text=True).stdout
    assert quantaudit.__version__ in out


@pytest.mark.parametrize("rel", ["gguf/truncated-data.gguf", "st/ghost",
                                 "gguf/big-endian.gguf",
                                 "mtp/qwen35-missing"])
def test_check_matches_cli(rel):
    code, r = quantaudit.run("check", fx(rel), fail_on="warning")
    want_code, want = cli("check", [fx(rel)], ["--fail-on", "warning"])
    assert (code, r) == (want_code, want)
    assert r["verdict"] in ("pass", "warn", "fail")


def test_check_with_gpus_engine_and_policy(tmp_path):
    policy = tmp_path / "policy.json"
    # the big-endian GGUF's QA1011 (a warning) turned into an error by
    # the policy: the verdict goes from warn to fail
    policy.write_text(json.dumps({"schema": "quantaudit-policy/1",
                                  "overrides": {"QA1011": "error"}}))
    opts = dict(gpus="2x16G", engine="llama.cpp", ctx="4096")
    path = fx("gguf/valid-llama-q8_0.gguf")
    got = quantaudit.check(path, **opts)
    assert got == cli("check", [path], ["--gpus", "2x16G", "--engine",
                                        "llama.cpp", "--ctx", "4096"])[1]
    be = fx("gguf/big-endian.gguf")
    assert quantaudit.check(be)["verdict"] == "warn"
    code, r = quantaudit.run("check", be, rules=policy)
    assert (code, r) == cli("check", [be], ["--rules", str(policy)])
    assert quantaudit.check(be, policy=policy) == r
    assert code == 1 and r["verdict"] == "fail"


def test_fit_matches_cli():
    path = fx("gguf/valid-llama-q8_0.gguf")
    r = quantaudit.fit(path, gpus="rtx-5060-ti", ctx="2048")
    assert r == cli("fit", [path], ["--gpus", "rtx-5060-ti", "--ctx",
                                    "2048"])[1]
    assert "fit" in json.dumps(r)


def test_diff_matches_cli():
    a, b = fx("gguf/valid-llama-q8_0.gguf"), fx("gguf/big-endian.gguf")
    code, r = quantaudit.run("diff", [a, b])
    want_code, want = cli("diff", [a, b])
    assert (code, r) == (want_code, want)
    assert quantaudit.diff(a, b) == want


def test_errors():
    with pytest.raises(quantaudit.NotAModelError) as e:
        quantaudit.inspect(fx("manifest.tsv"))
    assert e.value.exit_code == 3 and "manifest.tsv" in str(e.value)
    assert e.value.report["errors"]
    with pytest.raises(quantaudit.QuantauditError) as e:
        quantaudit.inspect("/nonexistent/model.gguf")
    assert e.value.exit_code == cli("inspect",
                                    ["/nonexistent/model.gguf"])[0]
    with pytest.raises(quantaudit.UsageError):
        quantaudit.check(fx("gguf/valid-llama-q8_0.gguf"), gpus="12 bananas")
    with pytest.raises(quantaudit.UsageError):
        quantaudit.run("no-such-command", fx("gguf/valid-llama-q8_0.gguf"))
    with pytest.raises(quantaudit.UsageError):
        quantaudit.fit(fx("gguf/valid-llama-q8_0.gguf"), gpus="2x16G",
                       no_such_option=True)
    with pytest.raises(ValueError):
        quantaudit.inspect("a\0b")
    with pytest.raises(ValueError):
        quantaudit.inspect("")
    with pytest.raises(TypeError):
        quantaudit.inspect(42)
    # findings are data: a failing model returns its report
    assert quantaudit.check(fx("gguf/truncated-data.gguf"))["verdict"] == \
        "fail"


def corpus_inputs():
    if not os.path.isdir(CORPUS):
        return []
    out = []
    for sub in ("gguf", "hf", "tiny-llama"):
        d = os.path.join(CORPUS, sub)
        if os.path.isdir(d):
            out += [os.path.join(d, n) for n in sorted(os.listdir(d))]
    return out


@pytest.mark.parametrize("path", corpus_inputs() or
                         [pytest.param(None, marks=pytest.mark.skip(
                             reason="corpus absent (-Dcorpus)"))])
def test_corpus(path):
    code, r = quantaudit.run("check", path)
    assert (code, r) == cli("check", [path])
    assert r["schema"] == "quantaudit/1"
    assert r["inputs"][0]["model"]["params"] > 0


def hostile_inputs(tmp):
    paths = []
    for d in (os.path.join(FIXTURES, "hostile"),
              os.path.join(ROOT, "tests", "must-reject")):
        if os.path.isdir(d):
            paths += [os.path.join(d, n) for n in sorted(os.listdir(d))]
    src = open(fx("gguf/valid-llama-q8_0.gguf"), "rb").read()
    rng = random.Random(29)
    for i, cut in enumerate([0, 3, 4, 8, 24, 100, 700, len(src) // 2,
                             len(src) - 1]):
        p = os.path.join(tmp, f"cut{i}.gguf")
        open(p, "wb").write(src[:cut])
        paths.append(p)
    for i in range(12):
        b = bytearray(src)
        for _ in range(40):
            b[rng.randrange(8, 2048)] = rng.randrange(256)
        p = os.path.join(tmp, f"flip{i}.gguf")
        open(p, "wb").write(b)
        paths.append(p)
    p = os.path.join(tmp, "junk.safetensors")
    open(p, "wb").write((2 ** 63).to_bytes(8, "little") + b"{" * 64)
    paths.append(p)
    return paths


def test_hostile_inputs_do_not_crash_the_interpreter(tmp_path):
    paths = hostile_inputs(str(tmp_path))
    child = (
        "import json, sys, quantaudit\n"
        "n = 0\n"
        "for p in json.load(sys.stdin):\n"
        "    for cmd in ('inspect', 'check'):\n"
        "        try:\n"
        "            code, r = quantaudit.run(cmd, p)\n"
        "            assert r['schema'] == 'quantaudit/1', p\n"
        "        except quantaudit.QuantauditError as e:\n"
        "            assert e.exit_code in (2, 3, 4), (p, e.exit_code)\n"
        "        n += 1\n"
        "print(n)\n")
    p = subprocess.run([sys.executable, "-c", child], input=json.dumps(paths),
                       capture_output=True, text=True, timeout=600,
                       env=PYTHON_ENV)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert int(p.stdout) == 2 * len(paths)
    # and each agrees with the binary
    for path in paths[:10]:
        want_code, want = cli("check", [path])
        try:
            code, r = quantaudit.run("check", path)
        except quantaudit.QuantauditError as e:
            assert e.exit_code == want_code
            continue
        assert (code, r) == (want_code, want)


def make_hf_cache(root):
    """A Hugging Face hub cache as huggingface_hub lays it out: blobs named
    by SHA-256 (LFS) or git SHA-1, snapshots/REV/* links to them,
    refs/main."""
    import numpy as np
    import safetensors.numpy
    rev = "a" * 40
    repo = os.path.join(root, "models--org--tiny")
    snap = os.path.join(repo, "snapshots", rev)
    os.makedirs(os.path.join(repo, "blobs"))
    os.makedirs(snap)
    os.makedirs(os.path.join(repo, "refs"))
    open(os.path.join(repo, "refs", "main"), "w").write(rev)
    rng = np.random.default_rng(3)
    tensors = {
        "model.embed_tokens.weight": rng.standard_normal((32, 16)),
        "model.norm.weight": np.ones(16),
        "lm_head.weight": rng.standard_normal((32, 16)),
    }
    st = safetensors.numpy.save({k: v.astype(np.float32)
                                 for k, v in tensors.items()})
    cfg = json.dumps({"model_type": "llama", "architectures":
                      ["LlamaForCausalLM"], "hidden_size": 16,
                      "num_hidden_layers": 0, "num_attention_heads": 2,
                      "vocab_size": 32}).encode()
    for name, data, key in (
            ("model.safetensors", st, hashlib.sha256(st).hexdigest()),
            ("config.json", cfg, hashlib.sha1(
                b"blob %d\0" % len(cfg) + cfg).hexdigest())):
        open(os.path.join(repo, "blobs", key), "wb").write(data)
        os.symlink(os.path.join("..", "..", "blobs", key),
                   os.path.join(snap, name))
    return repo, snap, sum(v.size for v in tensors.values())


def test_huggingface_hub_cache(tmp_path):
    hf = pytest.importorskip("huggingface_hub")
    pytest.importorskip("safetensors")
    repo, snap, n_params = make_hf_cache(str(tmp_path))
    info = hf.scan_cache_dir(str(tmp_path))
    [entry] = list(info.repos)
    assert entry.repo_id == "org/tiny"
    r = quantaudit.inspect(entry.repo_path)
    assert r == cli("inspect", [str(entry.repo_path)])[1]
    assert r["inputs"][0]["model"]["params"] == n_params
    cached = hf.try_to_load_from_cache("org/tiny", "config.json",
                                       cache_dir=str(tmp_path))
    assert isinstance(cached, str)
    r2 = quantaudit.inspect(os.path.dirname(cached))
    assert r2["inputs"][0]["model"]["params"] == n_params


def test_threads():
    path = fx("gguf/valid-llama-q8_0.gguf")
    want = quantaudit.inspect(path)
    results = []

    def work():
        for _ in range(5):
            results.append(quantaudit.inspect(path) == want)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == [True] * 20
