#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""quantaudit against the other model-file readers, measured in one run.
Called by bench/compare.sh, which installs hyperfine and builds the peers;
run that (docs/performance.md "Comparing with other readers").

    bench/compare.py --qa QUANTAUDIT --out OUT [--corpus DIR]
                     [--peers DIR] [--quick] [--only W[,W...]]

Workloads (W): one (one GGUF per process: small, vocabulary, real-scale
header), many (many GGUFs in one process), st (sharded safetensors
folders), scale (1k/10k/100k tensors). The inputs are written by
bench/synth.py into OUT/inputs (sparse files, a few MB of disk) and taken
from the corpus (gguf/, gguf-vocab/, tiny-llama/, hf/) when it is present.

CPU time is the mean user + system time of the command (warm page cache,
output to /dev/null): the native commands of millisecond tables measured
interleaved (every command once per round, 200 rounds, rusage from
wait4), everything else by hyperfine; every ratio is the peer's CPU time
divided by quantaudit's in the same table. Peak RSS is GNU time's %M (median of 3).
Bytes read: the return values of read/pread64/readv/preadv calls on the
input's files in an strace -f -y log, and, because gguf-tools maps the
file instead of reading it, the input's pages found in the page cache
(fincore) after a run that started with them dropped (posix_fadvise
DONTNEED), which counts what either way of reading brought in.
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import synth  # noqa: E402


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


class Bench:
    def __init__(self, args):
        self.a = args
        self.hf_dir = os.path.join(args.out, "hyperfine")
        os.makedirs(self.hf_dir, exist_ok=True)
        self.n = 0
        self.lines = []

    def emit(self, s=""):
        print(s, flush=True)
        self.lines.append(s)

    # --- measuring ------------------------------------------------------
    def hyperfine(self, cmds, slow=False, few=False):
        """cmds: [(label, argv)]; returns {label: result dict} (user, system,
        mean, min in seconds). few: 3 runs, no warm-up (commands of
        seconds to minutes)."""
        self.n += 1
        path = os.path.join(self.hf_dir, f"{self.n:03d}.json")
        if few:
            runs = ["--runs", "2" if self.a.quick else "3"]
        elif self.a.quick:
            runs = ["--warmup", "1", "--runs", "3"]
        elif slow:
            runs = ["--warmup", "1", "--min-runs", "5", "--max-runs", "10"]
        else:
            runs = ["--warmup", "2", "--min-runs", "10", "--max-runs", "60"]
        argv = ["hyperfine", "-N", "-i", "--style", "none", *runs, "--export-json", path]
        for label, cmd in cmds:
            argv += ["-n", label, " ".join(cmd)]
        with open(os.path.join(self.a.out, "hyperfine.log"), "a") as err:
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=err)
        with open(path) as f:
            return {r["command"]: r for r in json.load(f)["results"]}

    def interleaved(self, cmds, rounds=None):
        """cmds: [(label, argv)], every one run once per round, the order
        rotated each round, 200 rounds after 3 warm-up runs each (20 and 1
        with QUICK). CPU time is each child's own user + system time from
        wait4(2): on a shared VM the same command drifts by 2x within a
        minute, and hyperfine runs one command's runs back to back, so a
        drift lands on one tool; interleaved, it lands on all of them.
        Returns hyperfine-like dicts (user, system, mean, min in seconds);
        every run is kept in OUT/hyperfine/NNN-interleaved.json."""
        self.n += 1
        rounds = rounds or (20 if self.a.quick else 200)
        null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]

        def once(cmd):
            t0 = time.perf_counter()
            pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=null)
            _, _, ru = os.wait4(pid, 0)
            return ru.ru_utime, ru.ru_stime, time.perf_counter() - t0

        for _, cmd in cmds:
            for _ in range(1 if self.a.quick else 3):
                once(cmd)
        runs = {label: [] for label, _ in cmds}
        for i in range(rounds):
            k = i % len(cmds)
            for label, cmd in cmds[k:] + cmds[:k]:
                runs[label].append(once(cmd))
        res = {}
        for label, r in runs.items():
            res[label] = {"command": label, "user": statistics.mean(u for u, _, _ in r),
                          "system": statistics.mean(s for _, s, _ in r),
                          "mean": statistics.mean(w for _, _, w in r), "min": min(w for _, _, w in r),
                          "runs": r}
        with open(os.path.join(self.hf_dir, f"{self.n:03d}-interleaved.json"), "w") as f:
            json.dump({"commands": [[label, cmd] for label, cmd in cmds], "results": list(res.values())}, f)
        return res

    def rss_kib(self, cmd):
        vals = []
        with tempfile.NamedTemporaryFile("r") as t:
            for _ in range(1 if self.a.quick else 3):
                sh(["/usr/bin/time", "-f", "%M", "-o", t.name, *cmd])
                with open(t.name) as f:
                    vals.append(int(f.read().split()[-1]))
        return statistics.median(vals)

    def bytes_read(self, cmd, files):
        """(bytes returned by read calls on files, bytes of files in the
        page cache after a cold-for-these-files run)."""
        files = [os.path.realpath(f) for f in files]
        fs = set(files)
        with tempfile.NamedTemporaryFile("r") as log:
            sh(["strace", "-f", "-y", "-e", "trace=read,pread64,readv,preadv,preadv2", "-o", log.name, *cmd])
            pat = re.compile(r"^\d+\s+(?:read|pread64|readv|preadv2?)\(\d+<([^>]*)>.*\)\s+=\s+(\d+)")
            syscall = 0
            for line in log:
                m = pat.match(line)
                if m and m.group(1) in fs:
                    syscall += int(m.group(2))
        for f in files:
            fd = os.open(f, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        sh(cmd)
        cached = 0
        for i in range(0, len(files), 200):
            out = subprocess.run(["fincore", "-b", "-n", "-r", "-o", "RES", *files[i:i + 200]],
                                 capture_output=True, text=True).stdout
            cached += sum(int(x) for x in out.split())
        return syscall, cached

    # --- the tools ------------------------------------------------------
    def qa(self, paths, *opts):
        return [self.a.qa, "inspect", *opts, *paths]

    def gguf_tools(self, paths):
        p = self.a.peers
        if len(paths) == 1 and os.path.exists(os.path.join(p, "gguf-tools")):
            return [os.path.join(p, "gguf-tools"), "show", paths[0]]
        if os.path.exists(os.path.join(p, "gguf_tools_many")):
            return [os.path.join(p, "gguf_tools_many"), *paths]
        return None

    def ggml(self, paths):
        p = os.path.join(self.a.peers, "ggml_gguf_many")
        return [p, *paths] if os.path.exists(p) else None

    def node_gguf(self, paths):
        if not os.path.isdir(os.path.join(HERE, "node_modules", "@huggingface", "gguf")):
            return None
        return ["node", os.path.join(HERE, "hf-gguf.mjs"), *paths]

    def node_st(self, path):
        if not os.path.isdir(os.path.join(HERE, "node_modules", "@huggingface", "hub")):
            return None
        return ["node", os.path.join(HERE, "hf-safetensors.mjs"), path]

    def py_st(self, paths):
        return ["python3", os.path.join(HERE, "py_safetensors.py"), *paths]

    def py_safe_open(self, paths):
        if not has_module("safetensors"):
            return None
        return ["python3", os.path.join(HERE, "py_safe_open.py"), *paths]

    def py_gguf(self, paths):
        if not has_module("gguf"):
            return None
        return ["python3", os.path.join(HERE, "py_gguf.py"), *paths]

    def gguf_parser(self, paths):
        """gguf-parser-go's CLI reads one file per run (and estimates its
        memory use, as it does by default); over several files, one
        process per file (bench/peers/each.sh)."""
        p = os.path.join(self.a.peers, "gguf-parser")
        if not os.path.exists(p):
            return None
        if len(paths) == 1:
            return [p, "--json", "--path", paths[0]]
        return ["sh", os.path.join(HERE, "peers", "each.sh"), p, "--json", "--path", "--", *paths]

    def gguf_peers(self, paths):
        one = len(paths) == 1
        return [(("gguf-tools show" if one else "gguf-tools (loop driver)"), self.gguf_tools(paths)),
                ("llama.cpp gguf.cpp (ggml)", self.ggml(paths)),
                ("@huggingface/gguf", self.node_gguf(paths)),
                (("gguf-parser (Go)" if one else "gguf-parser (Go, one process per file)"), self.gguf_parser(paths)),
                ("gguf-py GGUFReader", self.py_gguf(paths))]

    # --- tables ---------------------------------------------------------
    def table(self, title, rows, files_of, note="", per=None, ref="quantaudit --format json",
              io=True, rss=True, ms=True):
        """rows: [(label, argv or None)]; files_of: input files for bytes read;
        ms: the native commands take milliseconds (100 runs or more)."""
        rows = [(l, c) for l, c in rows if c]
        # The native commands take a few ms: interleaved, 200 rounds, as
        # this shared machine's drift needs; node and Python (100 ms or
        # more each) by hyperfine with few runs.
        slow = [(l, c) for l, c in rows if c[0] in SLOW_STARTS]
        fast = [(l, c) for l, c in rows if c[0] not in SLOW_STARTS]
        res = (self.interleaved(fast) if ms else self.hyperfine(fast, slow=True)) if fast else {}
        if slow:
            res.update(self.hyperfine(slow, slow=True))
        base = res[ref]["user"] + res[ref]["system"]
        self.emit(f"\n#### {title}\n")
        if note:
            self.emit(note + "\n")
        hdr = "| tool | CPU ms (user+sys) | min wall ms |"
        sep = "|---|---:|---:|"
        if per:
            hdr += f" CPU µs {per[0]} |"
            sep += "---:|"
        hdr += " CPU ÷ quantaudit json |"
        sep += "---:|"
        if rss:
            hdr += " peak RSS |"
            sep += "---:|"
        if io:
            hdr += " read() bytes | page-cache bytes |"
            sep += "---:|---:|"
        self.emit(hdr)
        self.emit(sep)
        out = {}
        for label, cmd in rows:
            r = res[label]
            cpu = r["user"] + r["system"]
            line = f"| {label} | {cpu * 1e3:.2f} | {r['min'] * 1e3:.2f} |"
            if per:
                line += f" {cpu * 1e6 / per[1]:.1f} |"
            line += f" {cpu / base:.2f}× |" if label != ref else " 1 |"
            if rss:
                line += f" {self.rss_kib(cmd) / 1024:.1f} MiB |"
            if io:
                sys_b, cache_b = self.bytes_read(cmd, files_of)
                line += f" {human(sys_b)} | {human(cache_b)} |"
            self.emit(line)
            out[label] = cpu
        return out

    # --- workloads ------------------------------------------------------
    def one(self, inp):
        self.emit("\n### One GGUF per process\n")
        self.emit("Each command reads one file and exits; CPU time includes process start-up. "
                  "`gguf-tools show` prints every key (arrays cut at 30 items) and every tensor; "
                  "the ggml reader is `gguf_init_from_file(no_alloc)` plus a walk of keys and tensors; "
                  "@huggingface/gguf's figure includes node's start-up (about 100 ms).")
        files = [("small (synthetic, 21 tensors, 512 tokens)", inp["small.gguf"]),
                 ("vocabulary (synthetic Llama-3.2-1B shape, 128,256 tokens, 280,147 merges)", inp["vocab.gguf"]),
                 ("real-scale header (synthetic Qwen3-Next-80B-A3B Q4_K_M, 843 tensors, 151,936 tokens)",
                  inp["qwen3next.gguf"])]
        c = self.a.corpus
        for rel, what in (("gguf/qwen3_moe-q8_0.gguf", "small, corpus"),
                          ("gguf-vocab/ggml-vocab-deepseek-llm.gguf", "vocabulary, corpus, 102,400 tokens"),
                          ("tiny-llama/tiny-llama-Q4_K_M.gguf", "corpus, 32,000 tokens")):
            if c and os.path.exists(os.path.join(c, rel)):
                files.append((f"{os.path.basename(rel)} ({what})", os.path.join(c, rel)))
        for what, f in files:
            self.table(what, [("quantaudit", self.qa([f])),
                              ("quantaudit --format json", self.qa([f], "--format", "json")),
                              ("quantaudit --format json --summary", self.qa([f], "--format", "json", "--summary"))]
                       + self.gguf_peers([f]), [f])

    def many(self, inp):
        self.emit("\n### Many GGUFs in one process\n")
        self.emit("quantaudit takes every path in one `inspect` run; each peer gets a loop "
                  "over the same paths in one process (bench/peers/*.c, `node hf-gguf.mjs FILE...`). "
                  "µs per file = CPU time ÷ files, start-up included once.")
        sets = [("100 small synthetic GGUFs", sorted(glob.glob(os.path.join(inp["many"], "*.gguf"))))]
        c = self.a.corpus
        if c:
            cg = sorted(glob.glob(os.path.join(c, "gguf", "*.gguf")) + glob.glob(os.path.join(c, "gguf-vocab", "*.gguf"))
                        + glob.glob(os.path.join(c, "tiny-llama", "*.gguf")))
            if cg:
                sets.append((f"every GGUF of the corpus ({len(cg)} files)", cg))
        for what, paths in sets:
            self.table(what, [("quantaudit --format json", self.qa(paths, "--format", "json")),
                              ("quantaudit --format json --summary", self.qa(paths, "--format", "json", "--summary"))]
                       + self.gguf_peers(paths), paths, per=("per file", len(paths)), io=False)
        # memory as the number of inputs grows (distinct files: the same path
        # given twice is one input)
        self.emit("\nPeak RSS of one `quantaudit inspect --format json` run over the first N of the "
                  "100 small synthetic GGUFs (flat means each input's memory is released after its report):\n")
        self.emit("| N | peak RSS | growth per input |")
        self.emit("|---:|---:|---:|")
        paths = sets[0][1]
        one = self.rss_kib(self.qa(paths[:1], "--format", "json"))
        self.emit(f"| 1 | {one / 1024:.1f} MiB | |")
        for n in (10, 100):
            r = self.rss_kib(self.qa(paths[:n], "--format", "json"))
            self.emit(f"| {n} | {r / 1024:.1f} MiB | {(r - one) / (n - 1):.0f} KiB |")

    def st(self, inp):
        self.emit("\n### Sharded safetensors folders\n")
        self.emit("Folders written by bench/synth.py with each model's published tensor names, "
                  "shapes, dtypes and shard count; headers only, data as holes. One folder per process; "
                  "the peers are bench/py_safetensors.py (struct + json, every shard's header), "
                  "bench/py_safe_open.py (the safetensors package's safe_open and get_slice, every shard), and "
                  "@huggingface/hub's parseSafetensorsMetadata through a local fetch shim.")
        folders = [(n, inp["hf/" + n]) for n, _, _ in synth.HF_FOLDERS]
        self.emit("\n| folder | shards | tensors | quantaudit json CPU ms | --summary CPU ms | "
                  "py_safetensors CPU ms | py ÷ quantaudit json | safe_open CPU ms | safe_open ÷ quantaudit json | "
                  "µs per tensor (quantaudit json) | peak RSS quantaudit |")
        self.emit("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, d in folders:
            with open(os.path.join(d, "model.safetensors.index.json")) as f:
                wm = json.load(f)["weight_map"]
            rows = [("quantaudit --format json", self.qa([d], "--format", "json")),
                    ("quantaudit --format json --summary", self.qa([d], "--format", "json", "--summary")),
                    ("py_safetensors.py", self.py_st([d]))]
            if self.py_safe_open([d]):
                rows.append(("safe_open", self.py_safe_open([d])))
            res = self.hyperfine(rows[:2])		# quantaudit: 10-60 runs
            res.update(self.hyperfine(rows[2:], slow=True))
            cpu = {k: v["user"] + v["system"] for k, v in res.items()}
            q = cpu["quantaudit --format json"]
            self.emit(f"| {name} | {len(set(wm.values()))} | {len(wm):,} | {q * 1e3:.1f} | "
                      f"{cpu['quantaudit --format json --summary'] * 1e3:.1f} | {cpu['py_safetensors.py'] * 1e3:.1f} | "
                      f"{cpu['py_safetensors.py'] / q:.2f}× | "
                      + (f"{cpu['safe_open'] * 1e3:.1f} | {cpu['safe_open'] / q:.2f}× | " if "safe_open" in cpu else "- | - | ")
                      + f"{q * 1e6 / len(wm):.2f} | "
                      f"{self.rss_kib(rows[0][1]) / 1024:.1f} MiB |")
        paths = [d for _, d in folders]
        shards = [f for d in paths for f in glob.glob(os.path.join(d, "*"))]
        self.table("all nine folders in one process", [
            ("quantaudit --format json", self.qa(paths, "--format", "json")),
            ("quantaudit --format json --summary", self.qa(paths, "--format", "json", "--summary")),
            ("py_safetensors.py", self.py_st(paths)),
            ("safetensors safe_open", self.py_safe_open(paths))], shards, ms=False)
        small = inp["hf/llama-3.1-8b"]
        self.table("llama-3.1-8b with @huggingface/hub too (one folder per process)", [
            ("quantaudit --format json", self.qa([small], "--format", "json")),
            ("py_safetensors.py", self.py_st([small])),
            ("safetensors safe_open", self.py_safe_open([small])),
            ("@huggingface/hub", self.node_st(small))], glob.glob(os.path.join(small, "*")))
        c = self.a.corpus
        if c and os.path.isdir(os.path.join(c, "hf")):
            cf = sorted(glob.glob(os.path.join(c, "hf", "*")))
            self.table(f"corpus hf/ folders ({len(cf)}) in one process", [
                ("quantaudit --format json", self.qa(cf, "--format", "json")),
                ("py_safetensors.py", self.py_st(cf)),
                ("safetensors safe_open", self.py_safe_open(cf))], [f for d in cf for f in glob.glob(os.path.join(d, "*"))])

    def scale(self, inp):
        self.emit("\n### Cost per tensor\n")
        self.emit("One file of N tensors (GGUF: 256×64 Q8_0 named as llama.cpp blocks; safetensors: "
                  "BF16 64×64 named as transformers Llama layers). The slope is "
                  "(CPU(100k) − CPU(1k)) ÷ 99,000 tensors.\n")
        for kind in ("gguf", "safetensors"):
            tools = [("quantaudit --format json", lambda p: self.qa([p], "--format", "json")),
                     ("quantaudit --format json --summary", lambda p: self.qa([p], "--format", "json", "--summary"))]
            if kind == "gguf":
                tools += [("gguf-tools show", lambda p: self.gguf_tools([p])), ("llama.cpp gguf.cpp", lambda p: self.ggml([p])),
                          ("@huggingface/gguf", lambda p: self.node_gguf([p])),
                          ("gguf-parser (Go)", lambda p: self.gguf_parser([p])),
                          ("gguf-py GGUFReader", lambda p: self.py_gguf([p]))]
            else:
                tools += [("py_safetensors.py", lambda p: self.py_st([p])),
                          ("safetensors safe_open", lambda p: self.py_safe_open([p]))]
            cpu = {}
            for n in (1000, 10000, 100000):
                p = inp[f"n{n}.{kind}"]
                rows = [(l, f(p)) for l, f in tools if f(p)]
                # native readers: 10-60 runs (10 at 100k tensors); node and
                # llama.cpp's quadratic reader few (seconds to minutes)
                fast = [(l, c) for l, c in rows if l.startswith(("quantaudit", "gguf-tools"))]
                slow = [(l, c) for l, c in rows if not l.startswith(("quantaudit", "gguf-tools"))]
                res = self.hyperfine(fast, slow=n == 100000)
                if slow:
                    res.update(self.hyperfine(slow, slow=True, few=n == 100000))
                for l, _ in rows:
                    cpu[(l, n)] = res[l]["user"] + res[l]["system"]
            labels = [l for l, f in tools if f(inp[f"n1000.{kind}"])]
            self.emit(f"\n#### {kind}: CPU ms at 1k / 10k / 100k tensors\n")
            self.emit("| tool | 1k | 10k | 100k | µs per tensor (slope) | ÷ quantaudit json at 100k |")
            self.emit("|---|---:|---:|---:|---:|---:|")
            q = cpu[("quantaudit --format json", 100000)]
            for l in labels:
                a, b, c = (cpu[(l, n)] for n in (1000, 10000, 100000))
                self.emit(f"| {l} | {a * 1e3:.1f} | {b * 1e3:.1f} | {c * 1e3:.1f} | {(c - a) * 1e6 / 99000:.2f} | {c / q:.2f}× |")


# Commands of 100 ms or more (interpreter start-up, one process per file):
# hyperfine with few runs rather than 200 interleaved rounds.
SLOW_STARTS = ("node", "python3", "sh")


def has_module(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


def absent_peers(a):
    """One line per peer this machine lacks (its rows are left out)."""
    p = a.peers
    out = []
    for f, what in (("gguf-tools", "gguf-tools (GGUF_TOOLS_SRC)"), ("ggml_gguf_many", "llama.cpp's gguf reader (LLAMA_CPP_SRC)"),
                    ("gguf-parser", "gguf-parser-go (GGUF_PARSER or GGUF_PARSER_SRC)")):
        if not os.path.exists(os.path.join(p, f)):
            out.append(f"- skipped: {what} is not built on this machine")
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@huggingface", "gguf")):
        out.append("- skipped: @huggingface/gguf and @huggingface/hub (node/npm or `npm ci` in bench/ missing)")
    for m, what in (("gguf", "gguf-py GGUFReader"), ("safetensors", "safetensors safe_open")):
        if not has_module(m):
            out.append(f"- skipped: {what} (python3 has no `{m}` package)")
    return out


def human(n):
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.1f} KiB"
    return f"{n} B"


def machine(a):
    def run(*c):
        try:
            return subprocess.run(c, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "absent"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    fuzz = run("pgrep", "-c", "^fuzz_") or "0"
    repo = os.path.dirname(HERE)
    head = run("git", "-C", repo, "rev-parse", "--short", "HEAD")
    dirty = run("git", "-C", repo, "status", "--porcelain", "--", "src", "formats", "rules", "meson.build")
    if dirty:
        diff = subprocess.run(["git", "-C", repo, "diff", "HEAD", "--", "src", "formats", "rules", "meson.build"],
                              capture_output=True).stdout
        with open(os.path.join(a.out, "tree.diff"), "wb") as f:
            f.write(diff)
        dirty += "\n(diff saved in OUT/tree.diff, sha256 " + hashlib.sha256(diff).hexdigest()[:12] + ")"
    return [f"- CPU: {cpu}; nproc {os.cpu_count()}; kernel {os.uname().release}",
            f"- load average at start: {open('/proc/loadavg').read().split()[:3]}; "
            f"{fuzz} fuzz_* processes running (the background fuzz campaign, nice 19)",
            f"- quantaudit: {run(a.qa, '--version')} ({a.qa}); source {head}"
            + (f" plus uncommitted changes in {len(dirty.splitlines()) - 1} files of src/, formats/, rules/ "
               + dirty.splitlines()[-1] if dirty else " (clean)")
            + f"; binary built {datetime.datetime.utcfromtimestamp(os.path.getmtime(a.qa)):%Y-%m-%d %H:%M} UTC",
            f"- hyperfine {run('hyperfine', '--version').split()[-1]}; node {run('node', '--version')}; "
            f"python {sys.version.split()[0]}; peers from {a.peers}"] + peer_versions(a) + absent_peers(a)


def peer_versions(a):
    try:
        with open(os.path.join(a.peers, "versions.txt")) as f:
            return [f"- peer {l.strip()}" for l in f if l.strip()]
    except OSError:
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qa", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", default="")
    ap.add_argument("--peers", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="one,many,st,scale")
    a = ap.parse_args()
    a.qa = os.path.abspath(a.qa)
    if a.corpus and not os.path.isdir(a.corpus):
        a.corpus = ""
    inputs = os.path.join(a.out, "inputs")
    stamp = os.path.join(inputs, ".done")
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(os.path.join(HERE, "synth.py")):
        shutil.rmtree(inputs, ignore_errors=True)
        print(f"writing the inputs to {inputs} ...", file=sys.stderr)
        synth.write_all(inputs)
        os.sync()
        open(stamp, "w").close()
    inp = {k: os.path.join(inputs, v) for k, v in {
        "small.gguf": "gguf/small.gguf", "many": "many", "vocab.gguf": "gguf/vocab-128k.gguf",
        "qwen3next.gguf": "gguf/qwen3next-80b-a3b-Q4_K_M.gguf",
        **{f"n{n}.{k}": f"scale/t{n}.{k}" for n in (1000, 10000, 100000) for k in ("gguf", "safetensors")},
        **{"hf/" + n: "hf/" + n for n, _, _ in synth.HF_FOLDERS}}.items()}
    b = Bench(a)
    b.emit("## Machine\n")
    for line in machine(a):
        b.emit(line)
    for w in a.only.split(","):
        getattr(b, w)(inp)
    b.emit(f"\n- load average at end: {open('/proc/loadavg').read().split()[:3]}")
    with open(os.path.join(a.out, "results.md"), "w") as f:
        f.write("\n".join(b.lines) + "\n")


if __name__ == "__main__":
    main()
