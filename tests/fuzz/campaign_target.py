#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs one fuzz target of the long campaign (tests/fuzz/campaign.sh) for a
budget of CPU time, not wall time: the machine may be shared, and a
campaign's worth is the work the fuzzer did.

    campaign_target.py BINARY DICT SEEDS WORKDIR CPU_MINUTES [MAX_LEN]

The target runs as libFuzzer with -use_value_profile=1, the dictionary,
-timeout=10 (a unit over 10 s is a hang, saved as timeout-*),
-rss_limit_mb=2048, fatal UBSan, on WORKDIR/corpus (seeded from SEEDS
the first time; kept across runs, so a second campaign continues the
first), in fork mode (-fork=1 -ignore_crashes=1 -ignore_timeouts=1
-ignore_ooms=1): the fuzzing runs in child jobs, so a crash, timeout or
out-of-memory is saved in WORKDIR/artifacts/ and counted, and the
campaign goes on instead of stopping at the first known bug. Its CPU
time (user + system of the process and every descendant, read from /proc
every few seconds) is stopped with SIGTERM to its process group once the
budget is spent (SIGINT would not do: libFuzzer waits for its job in
system(), which ignores it); the CPU time counted is the larger of the
last reading and the rusage of the process and its reaped descendants.
A wall-clock cap of 12 times the budget stops a run on a
machine too busy to give it CPU at all.

Should libFuzzer itself stop early, it is started again on the same
corpus until the budget is spent (at most 20 times). The result is
written to WORKDIR/result.json: CPU minutes, wall minutes, executions,
executions per CPU second, cov and ft at the end (libFuzzer's fork-mode
counts), corpus files and bytes, crashes (timeouts and out-of-memory
counted apart) and the artifacts, and how the last run ended.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

POLL_SECONDS = 5
MAX_RESTARTS = 20
WALL_FACTOR = 12


def children_of():
    """Parent pid -> child pids of every live process, from /proc."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def proc_cpu_seconds(pid, kids=None):
    """User + system CPU seconds of a live process, its reaped children
    and its live descendants, from /proc."""
    if kids is None:
        kids = children_of()
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is field 3 (state): utime, stime, cutime, cstime are
        # fields 14-17.
        own = sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0
    return own + sum(proc_cpu_seconds(c, kids) for c in kids.get(pid, []))


def corpus_size(path):
    n = size = 0
    for root, _, files in os.walk(path):
        for name in files:
            n += 1
            size += os.path.getsize(os.path.join(root, name))
    return n, size


def run_once(cmd, log_path, budget_left, wall_left):
    """One libFuzzer process. Returns (cpu seconds, wall seconds, exit
    status, how it stopped)."""
    global current_group
    start = time.monotonic()
    used = 0.0
    with open(log_path, "wb") as log:
        # Its own process group: SIGTERM reaches libFuzzer and the job it
        # is running, so no job outlives the budget.
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                             process_group=0)
        current_group = p.pid
        how = "exited"
        while True:
            try:
                done, status, ru = os.wait4(p.pid, os.WNOHANG)
            except ChildProcessError:
                status, ru = 0, None
                break
            if done != 0:
                break
            used = max(used, proc_cpu_seconds(p.pid))
            if used >= budget_left and how == "exited":
                how = "cpu budget spent"
                os.killpg(p.pid, signal.SIGTERM)
            elif time.monotonic() - start >= wall_left and how == "exited":
                how = "wall-clock cap"
                os.killpg(p.pid, signal.SIGTERM)
            time.sleep(POLL_SECONDS if how == "exited" else 0.5)
    current_group = None
    wall = time.monotonic() - start
    # The rusage covers the descendants libFuzzer reaped; a job still
    # running when it exited is only in the last reading from /proc.
    cpu = max(used, (ru.ru_utime + ru.ru_stime) if ru else 0.0)
    code = os.waitstatus_to_exitcode(status) if ru else -1
    return cpu, wall, code, how


current_group = None


def on_term(signum, frame):
    """Stopping the campaign stops the fuzzer it is running."""
    if current_group:
        try:
            os.killpg(current_group, signal.SIGTERM)
        except OSError:
            pass
    sys.exit(128 + signum)


FORK_LINE = re.compile(
    r"#(\d+): cov: (\d+) ft: (\d+) corp: (\d+) exec/s:? (\d+) "
    r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s")


def parse_log(path):
    """The totals of the last fork-mode status line of a log."""
    out = {}
    with open(path, "rb") as f:
        for raw in f:
            m = FORK_LINE.match(raw.decode("utf-8", "replace"))
            if m:
                out = dict(zip(("executions", "cov", "ft", "corp_units",
                                "exec_per_s", "ooms", "timeouts",
                                "crashes", "seconds"),
                               map(int, m.groups())))
    return out


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    binary, dict_path, seeds, work = sys.argv[1:5]
    budget = float(sys.argv[5]) * 60
    max_len = sys.argv[6] if len(sys.argv) == 7 else "16384"
    corpus = os.path.join(work, "corpus")
    artifacts = os.path.join(work, "artifacts")
    os.makedirs(artifacts, exist_ok=True)
    if not os.path.isdir(corpus):
        shutil.copytree(seeds, corpus)
    seeds_n, seeds_bytes = corpus_size(corpus)
    env_cmd = [binary, "-fork=1", "-ignore_crashes=1",
               "-ignore_timeouts=1", "-ignore_ooms=1",
               "-use_value_profile=1", f"-dict={dict_path}",
               "-timeout=10", "-rss_limit_mb=2048", f"-max_len={max_len}",
               "-print_final_stats=1", "-reload=0",
               f"-artifact_prefix={artifacts}/",
               f"-max_total_time={int(budget * WALL_FACTOR)}", corpus]
    cpu = wall = 0.0
    execs = crashes = timeouts = ooms = 0
    runs = []
    stats = {}
    how = ""
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    while cpu < budget and len(runs) <= MAX_RESTARTS:
        log_path = os.path.join(work, f"log-{len(runs) + 1}")
        c, w, code, how = run_once(env_cmd, log_path, budget - cpu,
                                   budget * WALL_FACTOR - wall)
        cpu += c
        wall += w
        stats = parse_log(log_path)
        execs += stats.get("executions", 0)
        crashes += stats.get("crashes", 0)
        timeouts += stats.get("timeouts", 0)
        ooms += stats.get("ooms", 0)
        runs.append({"log": log_path, "exit": code, "stopped": how,
                     "cpu_s": round(c, 1)})
        if how != "exited" or wall >= budget * WALL_FACTOR:
            break
    n, size = corpus_size(corpus)
    result = {
        "target": os.path.basename(binary),
        "started": started,
        "cpu_minutes": round(cpu / 60, 2),
        "wall_minutes": round(wall / 60, 2),
        "executions": execs,
        "exec_per_cpu_s": round(execs / cpu, 1) if cpu else 0,
        "cov": stats.get("cov"),
        "ft": stats.get("ft"),
        "corpus_files": n,
        "corpus_bytes": size,
        "seed_files": seeds_n,
        "seed_bytes": seeds_bytes,
        "crashes": crashes,
        "timeouts": timeouts,
        "ooms": ooms,
        "artifacts": sorted(os.listdir(artifacts)),
        "stopped": how,
        "runs": runs,
    }
    with open(os.path.join(work, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({k: result[k] for k in result if k != "runs"}))
    return 1 if crashes or timeouts or ooms or result["artifacts"] else 0


sys.exit(main())
