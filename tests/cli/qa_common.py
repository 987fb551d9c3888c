# SPDX-License-Identifier: MIT
"""Shared helpers of the Python test drivers: locate the binary and the
fixture/corpus folders from the environment Meson sets, run quantaudit,
and the exit code Meson reads as "skipped"."""
import json
import os
import subprocess
import sys

SKIP = 77


def sanitized(binary):
    """Whether binary was built with AddressSanitizer or ThreadSanitizer:
    their shadow memory and quarantine make its peak RSS and its
    instruction counts no measure of the tool's own."""
    with open(binary, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data


def env_path(name):
    value = os.environ.get(name)
    if not value:
        print(f"{name} is not set (run through meson test)")
        sys.exit(1)
    return value


def run(binary, args):
    """Runs quantaudit; returns (exit code, stdout, stderr)."""
    proc = subprocess.run([binary] + args, capture_output=True, timeout=120)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def run_json(binary, args):
    # The command, when given, must stay the first argument.
    if args and args[0] in ("inspect", "tensors", "check", "fit", "rules"):
        args = [args[0], "--format", "json"] + args[1:]
    else:
        args = ["--format", "json"] + args
    code, out, err = run(binary, args)
    try:
        doc = json.loads(out)
    except json.JSONDecodeError as e:
        raise AssertionError(f"invalid JSON from {args}: {e}\n{out[:500]}")
    return code, doc, err


def compare_json(binary, quant, source, jobs=2):
    """quantaudit compare QUANT SOURCE -f json; returns (exit code, the
    report or {} when stdout is no JSON, stderr)."""
    r = subprocess.run([binary, "compare", quant, source, "-f", "json",
                        "-j", str(jobs)], capture_output=True, text=True,
                       timeout=300)
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except json.JSONDecodeError:
        return r.returncode, {}, r.stderr


class Checker:
    """Collects failures and prints the closing line."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}")
        return ok

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed, "
              f"{self.skipped} skipped")
        sys.exit(1 if self.failed else 0)
