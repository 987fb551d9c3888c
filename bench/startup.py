#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where one small run's time goes: process start-up taken apart.

    bench/startup.py [QUANTAUDIT] [--rounds N] [--gguf-tools PATH]

QUANTAUDIT defaults to build/quantaudit; gguf-tools defaults to
../gguf-tools/gguf-tools beside the checkout (left out when absent).

Builds a few probe programs with the C compiler, each of which costs one
thing a process can pay for, and runs them interleaved with quantaudit
(every command once per round, the order rotated, CPU time and minor
faults from wait4, as bench/compare.py measures the one-file table):

  empty            int main(void){return 0;}: exec, the dynamic loader,
                   libc's start-up (the floor of every dynamic program)
  empty, static    the same linked statically: no loader, no relocation
                   of libc (quantaudit cannot be static: it loads
                   libcurl, libarchive, libcjson with dlopen)
  34 libc calls    the floor plus 34 distinct libc functions called once:
                   lazy symbol binding and the libc code pages they touch
  36 KiB relro     the floor plus 4,608 pointers the loader relocates:
                   copy-on-write faults in .data.rel.ro
  100 heap pages   the floor plus 100 fresh heap pages written
  quantaudit ...   --version, a text inspect and a JSON inspect of the
                   small synthetic GGUF of bench/synth.py
  gguf-tools show  the same file, when gguf-tools is built
  quantaudit inspect, static-pie / static
                   an experiment, not a build quantaudit ships: the same
                   objects (the build's quantaudit-hot.o and main.c's
                   object, when the build has them) linked -static-pie and
                   -static -no-pie, to measure what the dynamic loader and
                   the relocations cost a small run; such a binary cannot
                   load libcurl, libarchive or libcjson safely, so remote,
                   archive and JSON inputs would need another process

docs/performance.md "Round six" has a run and what it says.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import synth  # noqa: E402

PROBES = {
    "empty": "int main(void) { return 0; }\n",
    "binds": r"""
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
int main(int argc, char **argv) {
	volatile long s = 0;
	const char *a = argc > 1 ? argv[1] : "1";
	char b[8];
	s += strlen(a); s += strcmp(a, "x"); s += strncmp(a, "y", 1);
	s += (long)strchr(a, 'q'); s += (long)strrchr(a, 'q');
	s += (long)strstr(a, "zz"); s += strspn(a, "ab"); s += strcspn(a, "cd");
	s += (long)memchr(a, 'r', 1); s += memcmp(a, "1", 1); s += atoi(a);
	s += strtol(a, 0, 10); s += (long)strtoul(a, 0, 10);
	s += (long)strtod(a, 0); s += abs((int)s); s += (long)getenv("NOPE");
	s += getpid(); s += (long)time(0); s += wcslen(L"ab"); s += strnlen(a, 3);
	s += (long)strpbrk(a, "x"); s += strcasecmp(a, "X");
	s += strncasecmp(a, "x", 1); s += labs(s); s += (long)llabs(s);
	s += (long)strtoll(a, 0, 10); s += (long)strtoull(a, 0, 10);
	s += (long)strtof(a, 0); s += toupper(a[0]); s += tolower(a[0]);
	s += (long)memrchr(a, 'x', 1); s += (long)strchrnul(a, 'x');
	s += (long)stpcpy(b, "a"); s += (long)getppid();
	return (int)(s & 0);
}
""",
    "relro": r"""
static const char one[] = "x";
#define P8 one, one, one, one, one, one, one, one
#define P64 P8, P8, P8, P8, P8, P8, P8, P8
#define P512 P64, P64, P64, P64, P64, P64, P64, P64
const char *const table[] = { P512, P512, P512, P512, P512, P512, P512, P512, P512 };
int main(int argc, char **argv) { (void)argv; return table[argc][0] == 'y'; }
""",
    "heap": r"""
#include <stdlib.h>
int main(void) {
	char *p = malloc(100 * 4096 + 4096);
	for (int i = 0; p && i < 100; i++) p[i * 4096] = 1;
	return p && p[4096] == 2;
}
""",
}


def build_probes(tmp):
    cc = os.environ.get("CC", "cc")
    out = {}
    for name, src in PROBES.items():
        c = os.path.join(tmp, name + ".c")
        with open(c, "w") as f:
            f.write(src)
        exe = os.path.join(tmp, name)
        # packed relative relocations, as meson.build links quantaudit
        # (without them the relro probe would mostly measure 110 KB of
        # RELA entries)
        relr = ["-Wl,-z,pack-relative-relocs"]
        if subprocess.run([cc, "-O2", "-o", exe, c] + relr, stderr=subprocess.DEVNULL).returncode:
            subprocess.run([cc, "-O2", "-o", exe, c], check=True)
        out[name] = exe
    static = os.path.join(tmp, "empty-static")
    if subprocess.run([cc, "-O2", "-static", "-o", static, os.path.join(tmp, "empty.c")],
                      stderr=subprocess.DEVNULL).returncode == 0:
        out["empty-static"] = static
    return out


def static_links(qa, tmp):
    """The build's own objects linked static-pie and static (non-PIE):
    {label: path} of those that linked (none without the hot-text object,
    or without the C library's static archive)."""
    cc = os.environ.get("CC", "cc")
    build = os.path.dirname(qa)
    objs = [os.path.join(build, "quantaudit-hot.o"),
            os.path.join(build, "quantaudit.p", "src_cli_main.c.o")]
    if not all(os.path.exists(o) for o in objs):
        return {}
    out = {}
    for label, flags in (("static-pie", ["-static-pie"]),
                         ("static", ["-static", "-no-pie"])):
        exe = os.path.join(tmp, "quantaudit-" + label)
        # dlopen in a static program draws a linker warning: expected
        if subprocess.run([cc] + flags + ["-o", exe] + objs +
                          ["-pthread", "-ldl", "-lm"],
                          stderr=subprocess.DEVNULL).returncode == 0:
            out[label] = exe
    return out


def interleaved(cmds, rounds):
    null = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]

    def once(cmd):
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=null)
        _, status, ru = os.wait4(pid, 0)
        return (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt, status

    for _, cmd in cmds:
        for _ in range(5):
            if once(cmd)[2] != 0:
                sys.exit(f"{' '.join(cmd)}: failed")
    runs = {label: [] for label, _ in cmds}
    for i in range(rounds):
        k = i % len(cmds)
        for label, cmd in cmds[k:] + cmds[:k]:
            runs[label].append(once(cmd))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("quantaudit", nargs="?", default=os.path.join(HERE, "..", "build", "quantaudit"))
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--gguf-tools", default=os.path.join(HERE, "..", "..", "gguf-tools", "gguf-tools"))
    a = ap.parse_args()
    qa = os.path.abspath(a.quantaudit)
    if not os.access(qa, os.X_OK):
        sys.exit(f"{qa}: no such program (build it, or give its path)")
    with tempfile.TemporaryDirectory() as tmp:
        p = build_probes(tmp)
        kvs, t = synth.gguf_llama()
        small = synth.write_gguf(os.path.join(tmp, "small.gguf"), kvs, t)
        cmds = [("empty", [p["empty"]])]
        if "empty-static" in p:
            cmds.append(("empty, static", [p["empty-static"]]))
        cmds += [("34 libc calls", [p["binds"]]), ("36 KiB relro", [p["relro"]]),
                 ("100 heap pages", [p["heap"]]),
                 ("quantaudit --version", [qa, "--version"]),
                 ("quantaudit inspect", [qa, "inspect", small]),
                 ("quantaudit --format json", [qa, "inspect", "--format", "json", small])]
        for label, exe in static_links(qa, tmp).items():
            cmds.append((f"quantaudit inspect, {label}", [exe, "inspect", small]))
        gt = os.path.abspath(a.gguf_tools)
        if os.access(gt, os.X_OK) and shutil.which(gt):
            cmds.append(("gguf-tools show", [gt, "show", small]))
        runs = interleaved(cmds, a.rounds)
    floor = statistics.mean(r[0] for r in runs["empty"])
    floor_faults = statistics.mean(r[1] for r in runs["empty"])
    print(f"{a.rounds} interleaved rounds; CPU time (user + system) per process\n")
    print("| command | CPU ms | median | over empty | minor faults | over empty |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in runs.items():
        cpu = statistics.mean(x[0] for x in r)
        faults = statistics.mean(x[1] for x in r)
        print(f"| {label} | {cpu:.3f} | {statistics.median(x[0] for x in r):.3f} | "
              f"{cpu - floor:+.3f} | {faults:.0f} | {faults - floor_faults:+.0f} |")


if __name__ == "__main__":
    main()
