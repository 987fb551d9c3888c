# SPDX-License-Identifier: MIT
"""The instruction-count guard's fixed inputs and cases, shared by the
test (tests/cli/test_instr_counts.py, suite 'perf') and the recorder
(bench/record-counts.py).

Each case runs `quantaudit ...` under valgrind's cachegrind (no cache or
branch simulation: only the instruction count, Ir) and compares the count
with the one recorded in tests/data/instr-counts.json for the same build
configuration (compiler, major version, buildtype). Instruction counts do
not depend on the load of the machine, so a 10 % growth is a real change.

Counts are made reproducible across checkouts and machines: the inputs are
written by bench/synth.py (deterministic bytes) into BUILD/instr-counts/,
quantaudit runs from that folder with relative paths (no build path in
any report) and with a fixed, minimal environment.
"""
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(HERE)
COUNTS = os.path.join(SOURCE_ROOT, "tests", "data", "instr-counts.json")
THRESHOLD = 0.10  # fail above +10 %
sys.path.insert(0, HERE)
import synth  # noqa: E402

ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"}

# name -> (what, arguments after the binary; inputs relative to the input folder)
MANY = [f"many/m{i:03d}.gguf" for i in range(100)]
CASES = {
    "small-gguf": ("small GGUF (synthetic llama, 21 tensors, 512 tokens), JSON report",
                   ["inspect", "--format", "json", "small.gguf"]),
    "vocab-gguf": ("vocabulary GGUF (Llama-3.2-1B shape: 128,256 tokens, 280,147 merges, 147 tensors), JSON",
                   ["inspect", "--format", "json", "vocab-128k.gguf"]),
    "realscale-gguf": ("real-scale GGUF header (Qwen3-Next-80B-A3B Q4_K_M shape: 843 tensors, 151,936 tokens), JSON",
                       ["inspect", "--format", "json", "qwen3next.gguf"]),
    "realscale-gguf-summary": ("the same, --format json --summary",
                               ["inspect", "--format", "json", "--summary", "qwen3next.gguf"]),
    "realscale-gguf-text": ("the same, text report", ["inspect", "qwen3next.gguf"]),
    "sharded-st": ("sharded safetensors folder (Qwen3-30B-A3B layout: 16 shards, 18,867 tensors), JSON",
                   ["inspect", "--format", "json", "qwen3-30b-a3b"]),
    "many-small": ("100 small GGUFs in one process, JSON", ["inspect", "--format", "json", *MANY]),
    "gguf-100k": ("GGUF of 100,000 tensors (256x64 Q8_0, llama.cpp block names), JSON (every tensor written)",
                  ["inspect", "--format", "json", "t100000.gguf"]),
    "sharded-st-100k": ("sharded safetensors folder of 100,000 tensors (BF16 64x64, Llama layer names, 8 shards), "
                        "JSON --summary", ["inspect", "--format", "json", "--summary", "st-100k"]),
}


def write_inputs(folder):
    """The guard's inputs, rewritten when bench/synth.py or this file changes."""
    stamp = os.path.join(folder, ".synth-mtime")
    mtime = " ".join(str(os.path.getmtime(os.path.join(HERE, f))) for f in ("synth.py", "instr_counts.py"))
    if os.path.exists(stamp) and open(stamp).read() == mtime:
        return
    os.makedirs(folder, exist_ok=True)
    synth.write_gguf(os.path.join(folder, "small.gguf"), *synth.gguf_llama())
    for i in range(100):
        synth.write_gguf(os.path.join(folder, MANY[i]), *synth.gguf_llama(n_layer=1 + i % 4, name=f"synthetic llama {i}"))
    synth.write_gguf(os.path.join(folder, "vocab-128k.gguf"),
                     *synth.gguf_llama(n_layer=16, n_embd=2048, n_ff=8192, n_head=32, n_kv=8, n_vocab=128256,
                                       n_merges=280147, wtype="Q4_K", name="Llama 3.2 1B shaped"))
    synth.write_gguf(os.path.join(folder, "qwen3next.gguf"), *synth.gguf_qwen3next())
    synth.write_st_folder(os.path.join(folder, "qwen3-30b-a3b"), *synth.hf_qwen3_moe(), 16)
    # the scale of MoE and GPTQ/AWQ checkpoints (issue 31): headers only, data as holes
    synth.write_gguf(os.path.join(folder, "t100000.gguf"), *synth.gguf_n_tensors(100000))
    synth.write_st_folder(os.path.join(folder, "st-100k"), synth.hf_n_tensors_config(100000),
                          synth.hf_n_tensors(100000), 8)
    with open(stamp, "w") as f:
        f.write(mtime)


def build_key(build_dir):
    """'gcc-12/debugoptimized': the compiler, its major version and the
    buildtype (with the optimization level when the buildtype is custom or
    plain, and '+lto' for link-time optimization), read from BUILD's
    meson-info and compile_commands.json (meson 1.0 has no compiler
    introspection file)."""
    with open(os.path.join(build_dir, "meson-info", "intro-buildoptions.json")) as f:
        opts = {o["name"]: o["value"] for o in json.load(f)}
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        cc = shlex.split(json.load(f)[0]["command"])[0]
    banner = subprocess.run([cc, "--version"], capture_output=True, text=True, cwd=build_dir).stdout
    cc_id = ("clang" if "clang" in banner else "gcc" if "Free Software Foundation" in banner else os.path.basename(cc))
    version = subprocess.run([cc, "-dumpversion"], capture_output=True, text=True, cwd=build_dir).stdout.strip()
    key = f"{cc_id}-{version.split('.')[0]}/{opts['buildtype']}"
    if opts["buildtype"] in ("custom", "plain"):
        key += f"-O{opts['optimization']}"
    if opts.get("b_lto"):
        key += "+lto"
    return key, opts


def sanitized(opts):
    return opts.get("b_sanitize", "none") not in ("none", "", [])


def count(binary, folder, args):
    """Instructions executed by `binary args` run in folder (cachegrind Ir)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        p = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no",
                            f"--cachegrind-out-file={out}", os.path.abspath(binary), *args],
                           cwd=folder, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode not in (0, 1):
            raise RuntimeError(f"quantaudit {' '.join(args[:4])}: exit {p.returncode}\n{p.stderr[-2000:]}")
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise RuntimeError("no summary line in cachegrind's output")


def measure(binary, build_dir, names=None, log=print):
    folder = os.path.join(build_dir, "instr-counts")
    write_inputs(folder)
    got = {}
    for name, (_, args) in CASES.items():
        if names and name not in names:
            continue
        got[name] = count(binary, folder, args)
        log(f"  {name}: {got[name]:,}")
    return got


def load():
    with open(COUNTS) as f:
        return json.load(f)


def save(data):
    with open(COUNTS, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")


def source_state():
    def git(*a):
        return subprocess.run(["git", "-C", SOURCE_ROOT, *a], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "?"
    dirty = git("status", "--porcelain", "--", "src", "formats", "rules", "meson.build")
    return head + (" + uncommitted changes" if dirty else "")


def record(binary, build_dir, log=print):
    key, _ = build_key(build_dir)
    got = measure(binary, build_dir, log=log)
    try:
        data = load()
    except FileNotFoundError:
        data = {"about": "Instruction counts (valgrind cachegrind Ir) of the cases in bench/instr_counts.py, "
                         "per build configuration; the test instr-counts (suite perf) fails when one grows "
                         "by more than 10 %. Re-record with bench/record-counts.py BUILD_DIR.",
                "builds": {}}
    data["builds"][key] = {
        "recorded": f"{datetime.date.today().isoformat()}, source {source_state()}, "
                    f"valgrind {subprocess.run(['valgrind', '--version'], capture_output=True, text=True).stdout.strip()}",
        "counts": got,
    }
    save(data)
    return key, got
