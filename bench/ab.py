#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two builds of quantaudit, paired: the same arguments run by binary A
and binary B alternately (A B, B A, ... so neither always goes first),
ROUNDS pairs after 5 warm-up runs each; CPU time (user + system) and
minor page faults of each child from wait4. Prints medians, the spread
(25th-75th percentile) and the median of the paired differences B - A,
which a shared machine's drift moves far less than either median.

    bench/ab.py A B [--rounds N] -- ARG...

e.g. bench/ab.py /tmp/qa-before build/quantaudit -- inspect --format json small.gguf
"""
import os
import statistics
import sys


def once(cmd):
    null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=null)
    _, _, ru = os.wait4(pid, 0)
    return (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def main(argv):
    rounds = 300
    if "--rounds" in argv:
        i = argv.index("--rounds")
        rounds = int(argv[i + 1])
        del argv[i:i + 2]
    sep = argv.index("--")
    a, b = (os.path.abspath(x) for x in argv[1:sep])
    args = argv[sep + 1:]
    cmds = {"A": [a, *args], "B": [b, *args]}
    for c in cmds.values():
        for _ in range(5):
            once(c)
    res = {"A": [], "B": []}
    for r in range(rounds):
        order = ("A", "B") if r % 2 == 0 else ("B", "A")
        for k in order:
            res[k].append(once(cmds[k]))
    for k, path in (("A", a), ("B", b)):
        cpu = [c for c, _ in res[k]]
        flt = [f for _, f in res[k]]
        print(f"{k} {path}: CPU median {statistics.median(cpu):.3f} ms "
              f"(p25 {q(cpu, .25):.3f}, p75 {q(cpu, .75):.3f}), minor faults median {statistics.median(flt):.0f}")
    d = [cb - ca for (ca, _), (cb, _) in zip(res["A"], res["B"])]
    df = [fb - fa for (_, fa), (_, fb) in zip(res["A"], res["B"])]
    print(f"B - A: CPU median {statistics.median(d):+.3f} ms (p25 {q(d, .25):+.3f}, p75 {q(d, .75):+.3f}); "
          f"faults median {statistics.median(df):+.0f}; {rounds} pairs")


if __name__ == "__main__":
    main(sys.argv)
