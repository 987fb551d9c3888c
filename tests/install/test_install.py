# SPDX-License-Identifier: MIT
"""`meson install` is complete: installs into a DESTDIR under the build
folder, then checks the binary, the library, its header and pkg-config
file, and (when the build made them) the man pages and completions are in
place; compiles tests/install/hello.c against the installed library
through pkg-config and runs it on fixtures. Its report must be the
installed binary's `check --format json --fail-on warning`, byte for byte,
and its exit code the binary's; the library must export the quantaudit_*
API under the version node QUANTAUDIT_1 and nothing else.

argv: build root, prefix, libdir, mandir, datadir, source root, and
optionally the build's C compiler command (ccache and all) and its -fsanitize flags (a sanitized
library links only into a program built with the same sanitizers).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from qa_common import SKIP, Checker, env_path  # noqa: E402

API = {"quantaudit_version", "quantaudit_open", "quantaudit_model_path",
       "quantaudit_model_json", "quantaudit_close", "quantaudit_report",
       "quantaudit_model_report", "quantaudit_free"}


def main():
    build, prefix, libdir, mandir, datadir, src = sys.argv[1:7]
    compiler = sys.argv[7].split() if len(sys.argv) > 7 else ["cc"]
    san_flags = sys.argv[8].split() if len(sys.argv) > 8 else []
    fixtures = env_path("QA_FIXTURES")
    for tool in ("pkg-config", compiler[0]):
        if not shutil.which(tool):
            print(f"{tool} not found: skipped")
            sys.exit(SKIP)
    dest = os.path.join(build, "install-test")
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["meson", "install", "-C", build, "--no-rebuild",
                    "--quiet", "--destdir", dest], check=True,
                   stdout=subprocess.DEVNULL)
    root = dest + prefix
    lib = libdir if os.path.isabs(libdir) else os.path.join(prefix, libdir)
    c = Checker()
    binary = os.path.join(root, "bin", "quantaudit")
    c.check(os.access(binary, os.X_OK), "bin/quantaudit installed")
    c.check(os.path.isfile(os.path.join(root, "include", "quantaudit.h")),
            "include/quantaudit.h installed")
    so = os.path.join(dest + lib, "libquantaudit.so.1")
    c.check(os.path.exists(so), "libquantaudit.so.1 installed")
    pc_dir = os.path.join(dest + lib, "pkgconfig")
    c.check(os.path.isfile(os.path.join(pc_dir, "quantaudit.pc")),
            "quantaudit.pc installed")
    man = os.path.join(dest + (mandir if os.path.isabs(mandir) else
                               os.path.join(prefix, mandir)))
    if os.path.isdir(os.path.join(src, "docs")) and os.path.isdir(man):
        pages = sorted(os.listdir(os.path.join(man, "man1")))
        c.check("quantaudit.1" in pages and "quantaudit-check.1" in pages,
                f"man pages installed: {pages}")
        data = dest + (datadir if os.path.isabs(datadir) else
                       os.path.join(prefix, datadir))
        for rel in ("bash-completion/completions/quantaudit",
                    "zsh/site-functions/_quantaudit",
                    "fish/vendor_completions.d/quantaudit.fish"):
            c.check(os.path.isfile(os.path.join(data, rel)),
                    f"{rel} installed")

    # Exported symbols: the API, each at QUANTAUDIT_1, nothing else.
    out = subprocess.run(["nm", "-D", "--defined-only", so],
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRtW":
            name, _, ver = parts[2].partition("@")
            syms[name] = ver.lstrip("@")
    c.check(set(syms) - {"QUANTAUDIT_1"} == API,
            f"exported symbols: {sorted(set(syms) - API)[:10]}")
    c.check(all(syms[s] == "QUANTAUDIT_1" for s in API if s in syms),
            f"version node: {syms}")

    env = dict(os.environ, PKG_CONFIG_PATH=pc_dir)
    flags = subprocess.run(["pkg-config", "--define-variable=prefix=" + root,
                            "--cflags", "--libs", "quantaudit"], env=env,
                           capture_output=True, text=True, check=True)
    exe = os.path.join(dest, "hello")
    here = os.path.dirname(os.path.abspath(__file__))
    cc = subprocess.run(compiler + ["-std=c11", "-Wall", "-Werror"] +
                        san_flags + ["-o", exe, os.path.join(here, "hello.c")] +
                        flags.stdout.split(), capture_output=True, text=True)
    c.check(cc.returncode == 0, f"hello.c builds: {cc.stderr[:400]}")
    renv = dict(os.environ, LD_LIBRARY_PATH=dest + lib)
    for rel in ("gguf/valid-llama-q8_0.gguf", "gguf/big-endian.gguf",
                "gguf/truncated-data.gguf", "st/ghost"):
        got = subprocess.run([exe, rel], cwd=fixtures, env=renv,
                             capture_output=True)
        want = subprocess.run([binary, "check", "--format", "json",
                               "--fail-on", "warning", "-q", rel],
                              cwd=fixtures, capture_output=True, env=renv)
        c.check(got.stdout == want.stdout and got.stdout.startswith(b"{"),
                f"hello {rel}: the report the binary writes")
        c.check(got.returncode == want.returncode,
                f"hello {rel}: exit {got.returncode} vs {want.returncode}")
    got = subprocess.run([exe, "manifest.tsv"], cwd=fixtures, env=renv,
                         capture_output=True, text=True)
    c.check(got.returncode == 3 and "open:" in got.stderr,
            f"hello on a non-model: exit 3 ({got.returncode}, "
            f"{got.stderr.strip()})")
    c.finish()


main()
