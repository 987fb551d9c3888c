# SPDX-License-Identifier: MIT
"""Checks the CI reporters (src/report/report_ci.c) on generated fixtures.

SARIF is validated against the official SARIF 2.1.0 JSON schema
(tests/data/sarif-schema-2.1.0.json, see tests/data/README.md), JUnit XML
is parsed with xml.etree and, when xmllint is installed, validated against
the Jenkins xUnit plugin's junit-10.xsd (tests/data/junit-10.xsd), and the
Markdown tables are checked row by row.

Expected values never come from the reporter under test: the rule list,
categories and default severities are parsed from the registry files
(rules/registry_all.def and the files it includes), the findings each
fixture must produce come from the fixture manifest (fixtures/gen), and a
GGUF with hostile strings is built here byte by byte. The JSON report is
used only as a cross-check that every format lists the same findings.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path, run  # noqa: E402

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(SKIP)

SEV_RANK = {"info": 0, "warning": 1, "error": 2}
SARIF_LEVEL = {"info": "note", "warning": "warning", "error": "error"}

# Fixtures the brief names plus clean and failing ones of every kind.
FIXTURES = [
    "gguf/valid-llama-q8_0.gguf",
    "gguf/truncated-data.gguf",
    "gguf/big-endian.gguf",
    "gguf/duplicate-key.gguf",
    "gguf/split-missing/tiny-00001-of-00003.gguf",
    "st/valid.safetensors",
    "st/ghost",
    "st/traversal",
    "st/unknown-dtype.safetensors",
    "st/leading-ws.safetensors",
    "mtp/qwen35-present",
    "mtp/qwen35-missing",
    "mtp/qwen35-absent",
    "mtp/mtp-qwen35-draft.gguf",
]


def load_registry(root):
    """[(code, id, category, severity)] in registry order, from the .def
    files that rules/registry_all.def includes."""
    rules_dir = os.path.join(root, "rules")
    text = open(os.path.join(rules_dir, "registry_all.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = []
    for name in re.findall(r'#include\s+"([^"]+)"', text):
        body = open(os.path.join(rules_dir, name)).read()
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        for code, rid, cat, sev in re.findall(
                r'QA_RULE\(\s*(\d+)\s*,\s*"([^"]+)"\s*,\s*(\w+)\s*,\s*(\w+)',
                body):
            out.append((f"QA{int(code):04d}", rid, cat.lower(), sev.lower()))
    return out


def load_manifest(fixtures):
    rows = {}
    with open(os.path.join(fixtures, "manifest.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rel, code, codes, match = line.rstrip("\n").split("\t")[:4]
                rows[rel] = (int(code), [] if codes == "-" else
                             codes.split(","), match)
    return rows


def project_version(root):
    text = open(os.path.join(root, "meson.build")).read()
    return re.search(r"version:\s*'([^']+)'", text).group(1)


def json_findings(binary, cwd, rels):
    """(code, file, offset, tensor, severity) per input, from --format
    json: the cross-check."""
    proc = subprocess.run([binary, "check", "-q", "--format", "json",
                           "--summary"] + rels, cwd=cwd,
                          capture_output=True, timeout=120)
    doc = json.loads(proc.stdout)
    return [[(f["code"], f.get("file"), f.get("offset"), f.get("tensor"),
              f["severity"]) for f in i["findings"]] for i in doc["inputs"]]


def run_in(binary, cwd, args):
    proc = subprocess.run([binary] + args, cwd=cwd, capture_output=True,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8",
                                                             "replace")


def check_sarif(c, binary, cwd, rels, registry, manifest, version, schema):
    what = f"sarif {' '.join(rels)}"
    code, out, err = run_in(binary, cwd, ["check", "-q", "--format",
                                          "sarif"] + rels)
    try:
        doc = json.loads(out.decode("utf-8"))
    except ValueError as e:
        c.check(False, f"{what}: not JSON: {e}")
        return
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc),
                    key=lambda e: list(e.path))
    c.check(not errors, f"{what}: schema: " +
            "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:3]))
    c.check(doc.get("version") == "2.1.0", f"{what}: version")
    c.check(doc.get("$schema") ==
            "https://json.schemastore.org/sarif-2.1.0.json", f"{what}: $schema")
    c.check(len(doc.get("runs", [])) == 1, f"{what}: one run")
    run_ = doc["runs"][0]
    driver = run_["tool"]["driver"]
    c.check(driver.get("name") == "quantaudit", f"{what}: driver name")
    c.check(driver.get("version") == version,
            f"{what}: driver version {driver.get('version')} != {version}")
    c.check(driver.get("informationUri", "").startswith("https://"),
            f"{what}: informationUri")
    rules = driver.get("rules", [])
    c.check([r["id"] for r in rules] == [r[0] for r in registry],
            f"{what}: {len(rules)} rules, registry has {len(registry)}")
    for r, (rcode, rid, cat, sev) in zip(rules, registry):
        ok = (r.get("name") == rid and
              r["defaultConfiguration"]["level"] == SARIF_LEVEL[sev] and
              r["properties"]["category"] == cat and
              r["shortDescription"]["text"] and
              r.get("helpUri", "").endswith(
                  f"docs/rules.md#{rcode.lower()}-{rid}"))
        if not c.check(ok, f"{what}: rule {rcode} {r}"):
            break
    artifacts = run_.get("artifacts", [])
    results = run_.get("results", [])
    expected = json_findings(binary, cwd, rels)
    flat = [f for inp in expected for f in inp]
    c.check(len(results) == len(flat),
            f"{what}: {len(results)} results, JSON report has {len(flat)}")
    for res, (fcode, ffile, foff, ftensor, fsev) in zip(results, flat):
        loc = res["locations"][0]
        phys = loc["physicalLocation"]
        uri = phys["artifactLocation"]["uri"]
        idx = res.get("ruleIndex", -1)
        ok = (res["ruleId"] == fcode and
              0 <= idx < len(rules) and rules[idx]["id"] == fcode and
              res["level"] == SARIF_LEVEL[fsev] and
              res["message"]["text"] and
              not uri.startswith("/") and
              (ffile is None or uri == ffile.replace(" ", "%20")) and
              (foff is None) == ("region" not in phys) and
              (foff is None or phys["region"]["byteOffset"] == foff) and
              (ftensor is None) == ("logicalLocations" not in loc))
        if ftensor is not None and ok:
            ok = loc["logicalLocations"][0] == {"name": ftensor,
                                                "kind": "member"}
        ai = phys["artifactLocation"].get("index")
        if ai is not None:
            ok = ok and artifacts[ai]["location"]["uri"] == uri
        if not c.check(ok, f"{what}: result {res} vs {fcode} {ffile} "
                       f"{foff} {ftensor} {fsev}"):
            break
    # The manifest's codes, independently of the JSON cross-check.
    got = {r["ruleId"] for r in results}
    for rel in rels:
        exit_code, codes, match = manifest[rel]
        c.check(set(codes) <= got, f"{what}: {rel} needs {codes}")
    if len(rels) == 1:
        exit_code, codes, match = manifest[rels[0]]
        c.check(code == exit_code, f"{what}: exit {code}, manifest "
                f"{exit_code}")
        if match == "exact":
            c.check(got == set(codes), f"{what}: ruleIds {sorted(got)}, "
                    f"manifest {codes}")
    c.check(run_["properties"]["verdict"] in ("pass", "warn", "fail"),
            f"{what}: run verdict")


def expected_failing(codes, registry, fail_on):
    """Rules failing for an input whose distinct finding codes are
    `codes`, with default severities."""
    if fail_on == "never":
        return 0
    sev = {r[0]: r[3] for r in registry}
    return sum(1 for k in set(codes) if SEV_RANK[sev[k]] >= SEV_RANK[fail_on])


def check_junit(c, binary, cwd, rels, registry, manifest, fail_on, xsd):
    what = f"junit --fail-on {fail_on} {' '.join(rels)}"
    code, out, err = run_in(binary, cwd, ["check", "-q", "--format", "junit",
                                          "--fail-on", fail_on] + rels)
    try:
        root = ET.fromstring(out)
    except ET.ParseError as e:
        c.check(False, f"{what}: not XML: {e}")
        return
    n = len(registry)
    c.check(root.tag == "testsuites" and root.get("name") == "quantaudit",
            f"{what}: root element")
    suites = root.findall("testsuite")
    c.check(len(suites) == len(rels), f"{what}: {len(suites)} testsuites")
    c.check(root.get("tests") == str(n * len(rels)),
            f"{what}: tests={root.get('tests')}, expected {n * len(rels)}")
    total_failures = 0
    expected_json = json_findings(binary, cwd, rels)
    for suite, rel, findings in zip(suites, rels, expected_json):
        exit_code, codes, match = manifest[rel]
        cases = suite.findall("testcase")
        c.check(suite.get("name") == rel, f"{what}: suite name "
                f"{suite.get('name')}")
        c.check(suite.get("tests") == str(n) and len(cases) == n,
                f"{what}: {rel}: {len(cases)} testcases, {n} rules")
        names = [tc.get("name") for tc in cases]
        c.check(names == [f"{r[0]} {r[1]}" for r in registry],
                f"{what}: {rel}: testcase names follow the registry")
        c.check(all(tc.get("classname") == f"quantaudit.{r[2]}"
                     for tc, r in zip(cases, registry)),
                f"{what}: {rel}: classnames quantaudit.<category>")
        failing = [tc for tc in cases if tc.find("failure") is not None]
        c.check(suite.get("failures") == str(len(failing)),
                f"{what}: {rel}: failures attribute")
        total_failures += len(failing)
        distinct = {f[0] for f in findings}
        if match == "exact":
            c.check(distinct == set(codes), f"{what}: {rel}: codes "
                    f"{sorted(distinct)} vs manifest {codes}")
            want = expected_failing(codes, registry, fail_on)
            c.check(len(failing) == want, f"{what}: {rel}: "
                    f"{len(failing)} failing rules, expected {want}")
        elif fail_on == "error":
            # The manifest's exit code says whether anything failed.
            c.check((len(failing) > 0) == (exit_code == 1),
                    f"{what}: {rel}: {len(failing)} failing, exit "
                    f"{exit_code}")
        for tc in failing:
            fl = tc.find("failure")
            c.check(fl.get("type") in SEV_RANK and fl.get("message") and
                    tc.get("name").split()[0] in (fl.text or ""),
                    f"{what}: {rel}: failure of {tc.get('name')}")
        # Every finding appears in its rule's testcase: in <failure> when
        # at or above fail_on, in <system-out> otherwise.
        by_name = {tc.get("name").split()[0]: tc for tc in cases}
        for fcode, ffile, foff, ftensor, fsev in findings:
            tc = by_name.get(fcode)
            fails = fail_on != "never" and \
                SEV_RANK[fsev] >= SEV_RANK[fail_on]
            el = tc.find("failure" if fails else "system-out") \
                if tc is not None else None
            c.check(el is not None and f"{fsev} {fcode}" in (el.text or ""),
                    f"{what}: {rel}: {fcode} ({fsev}) listed")
    c.check(root.get("failures") == str(total_failures),
            f"{what}: testsuites failures={root.get('failures')}")
    xsd_check(c, xsd, out, what)


def xsd_check(c, xsd, out, what):
    """The JUnit XML out against junit-10.xsd with xmllint (xsd None:
    xmllint is not installed)."""
    if not xsd:
        return
    with tempfile.NamedTemporaryFile(suffix=".xml") as tmp:
        tmp.write(out)
        tmp.flush()
        proc = subprocess.run(["xmllint", "--noout", "--schema", xsd,
                               tmp.name], capture_output=True)
        c.check(proc.returncode == 0, f"{what}: junit-10.xsd: "
                f"{proc.stderr.decode()[:300]}")


def md_cells(line):
    """Cells of a Markdown table row; '\\|' does not split."""
    body = line.strip()
    assert body.startswith("|") and body.endswith("|"), line
    cells, cur, i = [], "", 1
    while i < len(body) - 1:
        ch = body[i]
        if ch == "\\" and i + 1 < len(body) - 1:
            cur += body[i:i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    cells.append(cur.strip())
    return cells


def md_unescape(s):
    s = re.sub(r"\\([\\`*_\[\]<>|~#])", r"\1", s)
    return s.replace("&amp;", "&")


def md_tables(text):
    """Lists of rows (lists of cells) for every table in text."""
    tables, cur = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            if cur is None:
                cur = []
                tables.append(cur)
            cur.append(md_cells(line))
        else:
            cur = None
    return tables


def check_markdown(c, binary, cwd, rels, manifest):
    what = f"markdown {' '.join(rels)}"
    code, out, err = run_in(binary, cwd, ["check", "-q", "--format",
                                          "markdown"] + rels)
    text = out.decode("utf-8")
    first = text.splitlines()[0] if text else ""
    c.check(re.fullmatch(r"## quantaudit: (PASS|WARN|FAIL)", first),
            f"{what}: heading {first!r}")
    c.check(("FAIL" in first) == (code == 1), f"{what}: verdict vs exit")
    tables = md_tables(text)
    for t in tables:
        widths = {len(r) for r in t}
        c.check(len(widths) == 1, f"{what}: table rows of {widths} cells: "
                f"{t[0]}")
        c.check(all(re.fullmatch(r":?-+:?", x) for x in t[1]),
                f"{what}: delimiter row {t[1]}")
    comp = [t for t in tables if t[0][0] == "component"]
    find = [t for t in tables if t[0] == ["severity", "code", "id",
                                          "message", "location"]]
    c.check(len(comp) == len(rels), f"{what}: {len(comp)} component tables")
    for i, findings in enumerate(json_findings(binary, cwd, rels)):
        rel = rels[i]
        c.check(f"### {'PASS' if not findings else ''}" in text and
                rel in md_unescape(text), f"{what}: {rel} named")
        if not findings:
            continue
        rows = [r for t in find for r in t[2:]]
        for fcode, ffile, foff, ftensor, fsev in findings:
            hit = [r for r in rows if r[0] == fsev and r[1] == fcode and
                   (ffile is None or md_unescape(r[4]).startswith(ffile)) and
                   (ftensor is None or f"'{ftensor}'" in md_unescape(r[4]))]
            c.check(hit, f"{what}: finding {fcode} {ffile} missing")
    # Errors first.
    for t in find:
        sevs = [SEV_RANK[r[0]] for r in t[2:]]
        c.check(sevs == sorted(sevs, reverse=True),
                f"{what}: findings sorted errors first")
    exit_code = [manifest[r][0] for r in rels]
    c.check(code == max(exit_code), f"{what}: exit {code}")


# ---- a GGUF with hostile strings -----------------------------------------

def gguf_string(b):
    return struct.pack("<Q", len(b)) + b


def hostile_gguf(path):
    """A tiny GGUF v3 whose name, architecture-independent metadata and
    tensor name hold markup, quotes, control characters, U+FFFF and
    invalid UTF-8. The tensor name is also 64 bytes long, one more than
    llama.cpp allows, so the parser reports it (QA1020, tensor-bad-name)
    and every report carries it in the finding's location."""
    name = b'x|y`z <b>&amp; "q" \'a\' \x01\x1b[31m \xef\xbf\xbf \xff\xfe end'
    tname = b"bad\x07|<name>&\"'\xc3\x28"
    tname += b"_" * (64 - len(tname))
    kvs = [(b"general.architecture", b"llama"), (b"general.name", name)]
    out = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kvs))
    for k, v in kvs:
        out += gguf_string(k) + struct.pack("<I", 8) + gguf_string(v)
    out += gguf_string(tname) + struct.pack("<I", 1) + struct.pack("<Q", 4)
    out += struct.pack("<IQ", 0, 0)
    out += b"\0" * ((-len(out)) % 32)
    out += struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    with open(path, "wb") as f:
        f.write(out)


def check_hostile(c, binary, registry, schema, xsd):
    tmp = tempfile.mkdtemp(prefix="qa-ci-")
    try:
        rel = "odd <dir> & name.gguf"
        hostile_gguf(os.path.join(tmp, rel))
        code, out, err = run_in(binary, tmp, ["check", "-q", "--format",
                                              "sarif", rel])
        try:
            doc = json.loads(out.decode("utf-8"))
            errors = list(jsonschema.Draft7Validator(schema).iter_errors(doc))
            c.check(not errors, f"hostile sarif: {errors[:1]}")
            results = doc["runs"][0]["results"]
            bad = [r for r in results if r["ruleId"] == "QA1020"]
            c.check(bad, "hostile sarif: QA1020 for the tensor name")
            c.check(bad and bad[0]["locations"][0]["logicalLocations"][0]
                    ["name"].startswith("bad\x07|<name>&\"'\ufffd("),
                    "hostile sarif: tensor name as a logical location")
            c.check(all(r["locations"][0]["physicalLocation"]
                        ["artifactLocation"]["uri"] ==
                        "odd%20%3Cdir%3E%20&%20name.gguf" for r in results),
                    "hostile sarif: uri percent-encoded")
        except ValueError as e:
            c.check(False, f"hostile sarif: not JSON: {e}")
        code, out, err = run_in(binary, tmp, ["check", "-q", "--format",
                                              "junit", rel])
        try:
            root = ET.fromstring(out)
            c.check(root.find("testsuite").get("name") == rel,
                    "hostile junit: suite name round-trips")
            fail = [tc for tc in root.iter("testcase")
                    if tc.find("failure") is not None]
            c.check(any(tc.get("name").startswith("QA1020") for tc in fail),
                    "hostile junit: QA1020 fails")
            body = "".join(tc.find("failure").text or "" for tc in fail)
            c.check("|<name>&\"'" in body, "hostile junit: markup "
                    "characters kept as text")
            c.check("\x07" not in body and "\ufffd" in body,
                    "hostile junit: control character replaced")
            c.check(len(root.findall("testsuite/testcase")) == len(registry),
                    "hostile junit: one testcase per rule")
        except ET.ParseError as e:
            c.check(False, f"hostile junit: not well-formed XML: {e}")
        xsd_check(c, xsd, out, "hostile junit")
        code, out, err = run_in(binary, tmp, ["check", "-q", "--format",
                                              "markdown", rel])
        text = out.decode("utf-8")
        for t in md_tables(text):
            c.check(len({len(r) for r in t}) == 1,
                    f"hostile markdown: table rows differ: {t}")
        c.check("<b>" not in text and "<name>" not in text and
                "\x1b" not in text and "\x07" not in text,
                "hostile markdown: no raw HTML or control characters")
        c.check("QA1020" in text, "hostile markdown: QA1020 listed")
    finally:
        shutil.rmtree(tmp)


def check_unreadable(c, binary, cwd, schema, xsd):
    """An input that is not a model (exit 3): every report is still
    well-formed, has no audited input, and says which input it could not
    audit and why (the line quantaudit prints on stderr)."""
    rel = "gguf/bad-magic.gguf"
    code, out, err = run_in(binary, cwd, ["check", "-f", "sarif", rel])
    why = (err if isinstance(err, str) else err.decode()).strip()
    if why.startswith("quantaudit: "):
        why = why[len("quantaudit: "):]
    c.check(code == 3 and rel in why, f"unreadable: sarif exit {code}, stderr {why!r}")
    try:
        doc = json.loads(out.decode("utf-8"))
        run = doc["runs"][0]
        inv = run.get("invocations", [{}])[0]
        notes = inv.get("toolExecutionNotifications", [])
        c.check(not list(jsonschema.Draft7Validator(schema).iter_errors(doc))
                and run["results"] == [],
                "unreadable: valid SARIF without results")
        c.check(inv.get("executionSuccessful") is False and inv.get("exitCode") == 3 and
                len(notes) == 1 and notes[0]["level"] == "error" and
                notes[0]["message"]["text"] == why and
                notes[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == rel and
                run["properties"]["verdict"] == "fail",
                f"unreadable: SARIF notification: {json.dumps(inv)[:400]}")
    except (ValueError, KeyError, IndexError) as e:
        c.check(False, f"unreadable: sarif not as expected: {e}")
    code, out, err = run_in(binary, cwd, ["check", "-q", "-f", "junit", rel])
    try:
        root = ET.fromstring(out)
        suites = root.findall("testsuite")
        e = suites[0].find("testcase/error") if suites else None
        c.check(root.get("tests") == "1" and root.get("errors") == "1" and
                root.get("failures") == "0" and len(suites) == 1 and
                suites[0].get("name") == rel and suites[0].get("errors") == "1" and
                e is not None and e.get("message") == why and e.get("type") == "exit 3",
                f"unreadable: junit one suite in error: {out[-400:]!r}")
    except ET.ParseError as e:
        c.check(False, f"unreadable: junit not XML: {e}")
    xsd_check(c, xsd, out, "unreadable")
    code, out, err = run_in(binary, cwd, ["check", "-q", "-f", "markdown",
                                          rel])
    text = out.decode()
    c.check(text.startswith("## quantaudit: NO INPUT\n") and
            "### Not audited\n\n- " in text and "(exit 3)\n" in text,
            f"unreadable: markdown heading and the input not audited: {text[:300]!r}")


def main():
    binary = os.path.abspath(sys.argv[1])
    root = env_path("QA_SOURCE_ROOT")
    fixtures = env_path("QA_FIXTURES")
    c = Checker()
    registry = load_registry(root)
    c.check(len(registry) > 50, f"registry parsed: {len(registry)} rules")
    manifest = load_manifest(fixtures)
    version = project_version(root)
    schema = json.load(open(os.path.join(root, "tests", "data",
                                         "sarif-schema-2.1.0.json")))
    jsonschema.Draft7Validator.check_schema(schema)
    xsd = os.path.join(root, "tests", "data", "junit-10.xsd")
    if not shutil.which("xmllint"):
        print("xmllint not installed: JUnit XSD validation skipped")
        xsd = None
    rels = [r for r in FIXTURES if r in manifest]
    c.check(len(rels) == len(FIXTURES),
            f"fixtures in manifest: {sorted(set(FIXTURES) - set(rels))}")
    for rel in rels:
        check_sarif(c, binary, fixtures, [rel], registry, manifest, version,
                    schema)
        check_junit(c, binary, fixtures, [rel], registry, manifest, "error",
                    xsd)
        check_markdown(c, binary, fixtures, [rel], manifest)
    # Several inputs in one report, and the other thresholds.
    check_sarif(c, binary, fixtures, rels, registry, manifest, version,
                schema)
    check_markdown(c, binary, fixtures, rels, manifest)
    for fail_on in ("error", "warning", "info", "never"):
        check_junit(c, binary, fixtures, rels, registry, manifest, fail_on,
                    xsd)
    check_hostile(c, binary, registry, schema, xsd)
    check_unreadable(c, binary, fixtures, schema, xsd)
    c.finish()


main()
