# SPDX-License-Identifier: MIT
"""The man pages and shell completions the build generates
(src/cli/cli_docs.c, docs/meson.build) against --help: the same commands,
per command the same options with the same help text, and completion
values that the program accepts (--format from the reporter table in
src/report/reporters.c, rule codes from rules/registry*.def, --gpus
profiles from rules/gpus.def, --engine names run through the CLI). The
bash script is run for real; zsh and fish ones are syntax-checked and
(fish) asked for completions when the shells are installed.

argv: quantaudit, then the generated files (man pages, completions).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path  # noqa: E402


def sh(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=60,
                       **kw)
    return p.returncode, p.stdout, p.stderr


def help_commands(binary):
    _, out, _ = sh([binary, "--help"])
    block = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  (\S+)", block, re.M)]


def help_options(binary, cmd):
    """{name: (short or None, arg or None, help text joined)} of the
    option groups of `quantaudit CMD --help`: each block that a heading
    line ("Output:", "Verdict and policy:", ...) opens, up to the blank
    line that ends it; "Exit status:" and what follows are not options."""
    _, out, _ = sh([binary, cmd, "--help"])
    out = out.split("\nExit status:", 1)[0]
    lines = []
    for block in re.findall(r"^[A-Z][^\n]*:\n((?:  [^\n]*\n?)+)", out, re.M):
        lines += block.splitlines()
    if not lines:
        raise SystemExit(f"FAIL {cmd} --help has no option group")
    opts, cur = {}, None
    for line in lines:
        m = re.match(r"^  (?:-(\w), )?\s*--([\w-]+)(?: (\S+))?\s*(.*)$", line)
        if m and not line.startswith(" " * 27):
            cur = m.group(2)
            opts[cur] = [m.group(1), m.group(3), m.group(4).strip()]
        elif cur:
            opts[cur][2] = (opts[cur][2] + " " + line.strip()).strip()
    return {k: tuple(v) for k, v in opts.items()}


def unroff(text):
    text = re.sub(r"\\f[BIR]", "", text)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    return text


def man_items(page):
    """[(group, name, short, arg, help, grammar)] from the OPTIONS
    section in page order: group is the .SS subsection, grammar the
    line after .br (the value's grammar from the option's kind) or
    None."""
    sec = page.split(".SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    out, group = [], None
    for part in re.split(r"^(\.SS [^\n]*|\.TP)\n", sec, flags=re.M)[1:]:
        if part.startswith(".SS "):
            group = unroff(part[4:])
            continue
        if part in (".TP", ""):
            continue
        head, body = part.split("\n", 1)
        head = unroff(head)
        m = re.match(r"^(?:-(\w), )?--([\w-]+)(?: (\S+))?$", head)
        body, _, grammar = body.partition(".br\n")
        grammar = unroff(grammar).strip() or None
        out.append((group, m.group(2), m.group(1), m.group(3),
                    unroff(body).strip().replace("\n", " "), grammar))
    return out


def man_options(page):
    """{name: (short, arg, help)} from the OPTIONS section."""
    return {n: (s, a, h) for _, n, s, a, h, _ in man_items(page)}


def help_groups(binary, cmd):
    """[(group title, [option names])] of `quantaudit CMD --help`."""
    _, out, _ = sh([binary, cmd, "--help"])
    out = out.split("\nExit status:", 1)[0]
    # an option starts at column 2 (short) or 6; a continuation line,
    # which may begin with "--", at column 27
    return [(title, re.findall(r"^  (?:-\w, |    )--([\w-]+)", block, re.M))
            for title, block in re.findall(
                r"^([A-Z][^\n]*):\n((?:  [^\n]*\n?)+)", out, re.M)]


def registry_rules(root):
    text = ""
    for name in os.listdir(os.path.join(root, "rules")):
        if name.startswith("registry") and name.endswith(".def"):
            text += open(os.path.join(root, "rules", name)).read()
    # a QA_RULE row starts its line; comments never do
    return {(f"QA{int(c):04d}", i) for c, i in
            re.findall(r'^QA_RULE\(\s*(\d+)\s*,\s*"([^"]+)"', text, re.M)}


def reporter_names(root):
    text = open(os.path.join(root, "src", "report", "reporters.c")).read()
    return set(re.findall(r'struct qa_reporter \w+ = \{\s*"([a-z]+)"', text))


def bash_complete(script, words):
    """COMPREPLY of the generated bash function for the words typed."""
    prog = (f"source {script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
            f"COMP_CWORD={len(words) - 1}\n_quantaudit\n"
            "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    _, out, err = sh(["bash", "-c", prog])
    return set(out.split())


def main():
    binary = os.path.abspath(sys.argv[1])
    files = {os.path.basename(p): p for p in sys.argv[2:]}
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    c = Checker()

    cmds = help_commands(binary)
    listed = re.search(r"man_commands = \[(.*?)\]", open(os.path.join(
        root, "docs", "meson.build")).read(), re.S).group(1)
    c.check(re.findall(r"'([\w-]+)'", listed) == cmds,
            f"docs/meson.build man_commands == --help commands {cmds}")
    c.check("quantaudit.1" in files, "quantaudit.1 generated")
    for cmd in cmds:
        name = f"quantaudit-{cmd}.1"
        if not c.check(name in files, f"{name} generated"):
            continue
        page = open(files[name]).read()
        want = help_options(binary, cmd)
        got = man_options(page)
        c.check(set(got) == set(want), f"{name}: options "
                f"{sorted(set(got) ^ set(want))}")
        for k in set(got) & set(want):
            c.check(got[k] == want[k], f"{name} --{k}: {got[k]} vs "
                    f"{want[k]}")
        # the same groups in the same order, each with its options
        items = man_items(page)
        groups = []
        for g, n, *_ in items:
            if not groups or groups[-1][0] != g:
                groups.append((g, []))
            groups[-1][1].append(n)
        c.check(groups == help_groups(binary, cmd),
                f"{name}: option groups as --help's")
        # the grammar line is the words the program's usage error says
        # for a value outside it
        for _, n, _, arg, _, grammar in items:
            if not grammar:
                continue
            code, _, err = sh([binary, cmd, f"--{n}", "0.0e999x", "x"])
            c.check(code == 2 and grammar == f"{arg}: " +
                    err.split(f"'0.0e999x': ", 1)[-1].split("\n")[0] + ".",
                    f"{name} --{n}: man grammar '{grammar}' vs usage "
                    f"error '{err.strip()[:120]}'")
        _, hout, _ = sh([binary, cmd, "--help"])
        syn = hout.split("\n", 1)[0].replace("Usage: quantaudit ", "")
        c.check(unroff(page.split(".SH SYNOPSIS\n", 1)[1].split("\n.SH",
                                                                1)[0])
                .split("\n", 1)[1].strip() == syn, f"{name}: synopsis")
        c.check(".TH QUANTAUDIT-" + cmd.upper() + " 1" in page,
                f"{name}: .TH")
    top = open(files["quantaudit.1"]).read()
    c.check(man_options(top) == help_options(binary, "inspect"),
            "quantaudit.1: the options of inspect")
    for cmd in cmds:
        c.check(f"quantaudit {cmd}".replace("-", "\\-") in top,
                f"quantaudit.1 lists {cmd}")
    if shutil.which("man"):
        code, out, err = sh(["man", "--warnings", "-l", "-Tutf8",
                             files["quantaudit-check.1"]],
                            env=dict(os.environ, MANWIDTH="80"))
        c.check(code == 0 and "--format" in out.replace("‐", "-"),
                f"man renders quantaudit-check.1 ({err[:200]})")

    # bash: run the function
    bash = files.get("quantaudit")
    rules = registry_rules(root)
    formats = reporter_names(root)
    if c.check(bash is not None and shutil.which("bash"), "bash script"):
        for cmd in cmds:
            got = {w for w in bash_complete(bash, ["quantaudit", cmd, "--"])
                   if w.startswith("--")}
            c.check(got == {"--" + k for k in help_options(binary, cmd)},
                    f"bash {cmd} --: {sorted(got ^ {'--' + k for k in help_options(binary, cmd)})}")
        c.check(bash_complete(bash, ["quantaudit", "ch"]) >= {"check"},
                "bash: command names")
        c.check(bash_complete(bash, ["quantaudit", "check", "--format", ""])
                == formats, "bash: --format values == reporter table")
        codes = bash_complete(bash, ["quantaudit", "check", "--disable",
                                     "QA"])
        c.check(codes == {code for code, _ in rules}, "bash: rule codes")
        gpus = bash_complete(bash, ["quantaudit", "fit", "--gpus", ""])
        gpus_def = set(re.findall(r'QA_GPU\(\s*"([a-z0-9-]+)"', open(
            os.path.join(root, "rules", "gpus.def")).read()))
        c.check(gpus_def and gpus == gpus_def | {"none"},
                f"bash: --gpus profiles {sorted(gpus ^ (gpus_def | {'none'}))[:5]}")
        engines = bash_complete(bash, ["quantaudit", "check", "--engine", ""])
        # the names --engine's help lists ("llama.cpp, vllm, ... or
        # tensorrt-llm (knowledge only): ...")
        listed = help_options(binary, "check")["engine"][2]
        listed = re.split(r", | or ", listed.split(" (", 1)[0].split(":")[0])
        c.check(engines == set(listed), f"bash: engines {engines} vs "
                f"--help {listed}")
        for e in engines:
            code, _, err = sh([binary, "check", "-q", "--engine", e,
                               "gguf/valid-llama-q8_0.gguf"], cwd=fixtures)
            c.check(code != 2, f"--engine {e} accepted ({err.strip()})")
        # the default command's options without a command
        c.check("--layers" in bash_complete(bash, ["quantaudit", "--la"]),
                "bash: inspect options without a command")

    zsh = shutil.which("zsh")
    if zsh and "_quantaudit" in files:
        code, _, err = sh([zsh, "-n", files["_quantaudit"]])
        c.check(code == 0, f"zsh -n: {err[:300]}")
        text = open(files["_quantaudit"]).read()
        for cmd in cmds:
            sec = text.split(f"\n    {cmd})\n", 1)[1].split(";;", 1)[0]
            got = set(re.findall(r"'--([\w-]+)\[", sec))
            c.check(got == set(help_options(binary, cmd)),
                    f"zsh {cmd}: options")
    else:
        print("zsh not installed: the zsh script is only checked for "
              "being generated")
        c.skipped += 1
    fish = shutil.which("fish")
    if fish and "quantaudit.fish" in files:
        code, _, err = sh([fish, "-n", files["quantaudit.fish"]])
        c.check(code == 0, f"fish -n: {err[:300]}")
        for cmd in cmds:
            code, out, err = sh([fish, "--no-config", "-c",
                                 f"source {files['quantaudit.fish']}; "
                                 f"complete -C 'quantaudit {cmd} --'"])
            got = {line.split("\t")[0] for line in out.splitlines()
                   if line.startswith("--")}
            c.check(got == {"--" + k for k in help_options(binary, cmd)},
                    f"fish {cmd}: options {sorted(got ^ {'--' + k for k in help_options(binary, cmd)})[:6]}")
        code, out, err = sh([fish, "--no-config", "-c",
                             f"source {files['quantaudit.fish']}; "
                             "complete -C 'quantaudit check --format '"])
        c.check({line.split("\t")[0] for line in out.splitlines()} ==
                formats, f"fish: --format values {out[:200]}")
    else:
        print("fish not installed: the fish script is only checked for "
              "being generated")
        c.skipped += 1
    c.finish()


main()
