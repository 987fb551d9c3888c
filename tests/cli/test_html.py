#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HTML report (--format html, src/report/report_html.c, docs/html.md).

- structure: a corpus model (or the bundled sample when the corpus is
  absent) has every section: verdict, findings, model card, size by
  component (an SVG with a text alternative), the per-layer precision
  map with its legend, the MTP status, the fit with a bar per GPU, the
  tensor table; the page loads nothing (no src/href to another
  document) and its one script is allowed by its own SHA-256 in the
  Content-Security-Policy, computed here;
- numbers: the comparison of four quants of one model lists them in
  order with bits per weight worked out here from the ggml block sizes
  (Q8_0: 34 bytes per 32 weights = 8.5) and the sizes the JSON report
  gives;
- hostile strings in a GGUF's names and metadata (<script>, "onload=",
  </svg>, a bidi override, terminal escapes) come out as text: no
  element, attribute or raw control character from the model;
- in headless Chromium (skipped without it; CI installs Debian's
  chromium): the report's own script runs under its policy, the
  hostile page's injected script does not, the DOM holds the sections,
  and a screenshot is written to the build folder (meson-logs/).
"""
import base64
import hashlib
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path, run  # noqa: E402
from test_hostile import gguf, hostile_hf_folder, kv_str, kv_u32  # noqa: E402
from test_inputs import gguf_read  # noqa: E402

QA = None


class Page(html.parser.HTMLParser):
    """Elements, attributes, text and scripts of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []          # (tag, attrs dict)
        self.text = []
        self.scripts = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if tag == "script":
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    def all_text(self):
        return "".join(self.text)

    def count(self, tag, **want):
        return sum(1 for t, a in self.tags if t == tag and
                   all(a.get(k) == v for k, v in want.items()))


def parse(doc):
    p = Page()
    p.feed(doc)
    p.close()
    return p


def csp_ok(c, what, doc, page):
    m = re.search(r"script-src 'sha256-([A-Za-z0-9+/=]+)'", doc)
    c.check(m is not None, f"{what}: a script-src hash in the policy")
    c.check(len(page.scripts) == 1, f"{what}: one script "
            f"({len(page.scripts)})")
    if m and page.scripts:
        want = base64.b64encode(hashlib.sha256(
            page.scripts[0].encode()).digest()).decode()
        c.check(m.group(1) == want, f"{what}: the policy's hash is the "
                "script's")
    # nothing loaded from elsewhere
    for tag, a in page.tags:
        for k in ("src", "href", "action", "srcset", "data"):
            v = a.get(k)
            if v is not None and not v.startswith("#"):
                c.check(False, f"{what}: <{tag} {k}={v!r}> loads or "
                        "links outside the page")
    c.check("default-src 'none'" in doc, f"{what}: default-src 'none'")


def structure(c, model, gpus_args):
    code, doc, err = run(QA, ["check", "--format", "html"] + gpus_args +
                         [model])
    page = parse(doc)
    text = page.all_text()
    c.check(code in (0, 1) and doc.startswith("<!DOCTYPE html>"),
            f"html of {model}: exit {code} {err[:200]}")
    for h3 in ("Findings", "Model", "MTP (multi-token prediction) head",
               "Size by component", "Precision by layer", "Memory fit",
               "Tensors"):
        c.check(h3 in text, f"html of {model}: the '{h3}' section")
    c.check(page.count("svg", role="img") >= 2,
            f"html of {model}: charts as SVG images")
    svgs = re.findall(r"<svg[^>]*aria-labelledby=\"([^\"]+)\"", doc)
    c.check(svgs and all(f'<title id="{i}">' in doc for i in svgs),
            f"html of {model}: every chart has a text alternative")
    c.check("bits per weight:" in text and "mixed or unknown" in text,
            f"html of {model}: the precision legend")
    c.check("usable memory" in text and "GPU1" in text,
            f"html of {model}: a fit bar per GPU")
    csp_ok(c, f"html of {model}", doc, page)
    return doc


def mtp_share(c, folder, doc):
    """The model card's MTP share, worked here from the safetensors
    headers: the elements of blocks numbered num_hidden_layers and up
    (DeepSeek's MTP layers) over all elements (a BF16 checkpoint: one
    parameter per element)."""
    import struct
    layers = json.load(open(os.path.join(folder, "config.json")))[
        "num_hidden_layers"]
    total = mtp = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".safetensors"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
        for key, v in header.items():
            if key == "__metadata__":
                continue
            e = 1
            for d in v["shape"]:
                e *= d
            total += e
            m = re.match(r"model\.layers\.(\d+)\.", key)
            if m and int(m.group(1)) >= layers:
                mtp += e
    want = f"(MTP head {100 * mtp / total:.1f} %)"
    c.check(mtp > 0 and want in parse(doc).all_text(),
            f"html of {folder}: the MTP share {want}, from the headers")


def component_colours(c, model, doc):
    """The size-by-component bar of a model with more components than
    the palette's 12 colours (DeepSeek-V3: 19): every segment drawn in a
    colour of its own, the 11 largest by bytes (ties in report order, as
    worked here from the JSON report) drawn alone and the rest as one
    grey "N other components" segment, and each table row's square in its
    segment's colour."""
    code, out, err = run(QA, ["check", "--format", "json", model])
    comps = json.loads(out)["inputs"][0]["model"]["components"]
    bar = doc.split("<h3>Size by component</h3>", 1)[1].split("</svg>", 1)[0]
    segs = re.findall(r'<rect [^>]*fill="([^"]+)"><title>([^<]*)</title>', bar)
    order = sorted(range(len(comps)), key=lambda k: (-comps[k]["bytes"], k))
    top = set(order[:11]) if len(comps) > 12 else set(range(len(comps)))
    want = [comps[k]["role"] for k in range(len(comps)) if k in top]
    rest = len(comps) - len(top)
    got = [t.split(":")[0] for _, t in segs]
    if rest:
        want.append(f"{rest} other components")
    fills = [f for f, _ in segs]
    c.check(len(comps) > 12 and got == want and len(set(fills)) == len(fills),
            f"html of {model}: {len(comps)} components drawn as {got}, want {want}, "
            f"fills {fills}")
    # the grey segment's share: the rest's bytes over the model's, from
    # the JSON report
    model_bytes = json.loads(out)["inputs"][0]["model"]["bytes"]
    rest_bytes = sum(comps[k]["bytes"] for k in range(len(comps))
                     if k not in top)
    grey = [t for _, t in segs if t.startswith(f"{rest} other components:")]
    c.check(len(grey) == 1 and
            grey[0].endswith(f"({100 * rest_bytes / model_bytes:.1f} %)"),
            f"html of {model}: the other segment {grey}, want "
            f"{100 * rest_bytes / model_bytes:.1f} % of {model_bytes} bytes")
    colour = {t.split(":")[0]: f for f, t in segs}
    rows = re.findall(r'<tr><td><span style="color:([^"]+)" aria-hidden="true">'
                      r'&#9632;</span> ([^<]+)</td>', doc)
    rows = [(f, n) for f, n in rows if n in {x["role"] for x in comps}][:len(comps)]
    c.check(len(rows) == len(comps) and
            all(f == colour.get(n, colour.get(f"{rest} other components"))
                for f, n in rows),
            f"html of {model}: each table square in its segment's colour: {rows}")


def comparison(c, quants):
    code, doc, err = run(QA, ["inspect", "--format", "html"] + quants)
    code_j, js, _ = run(QA, ["inspect", "--format", "json"] + quants)
    page = parse(doc)
    text = page.all_text()
    c.check(f"Comparison of {len(quants)} models" in text,
            f"comparison: heading ({err[:200]})")
    rows = re.findall(r'<tr><td class="mono nw"><a href="#model-(\d+)" '
                      r'title="([^"]*)">[^<]*</a></td>(.*?)</tr>', doc)
    head = doc.split("</thead>")[0]
    c.check("expert_down bpw" not in head and "mtp bpw" not in head,
            "comparison: no column for a component none of them has")
    c.check([r[1] for r in rows] == quants,
            f"comparison: the models in input order: {[r[1] for r in rows]}")
    for (idx, name, cells), q in zip(rows, quants):
        cols = re.findall(r"<td[^>]*>(.*?)</td>", cells)
        # cols: verdict, size, bpw, embed, attn_q, attn_k, attn_v,
        # attn_o, ffn_down, lm_head, MTP (no expert_down or mtp column:
        # none of these models has one)
        if q.endswith("Q8_0.gguf"):
            c.check(cols[4] == "8.50" and cols[5] == "8.50",
                    f"comparison: Q8_0 attention at 34/32 bytes = 8.50 "
                    f"bpw: {cols[4:6]}")
        if q.endswith("bf16.gguf"):
            c.check(cols[4] == "16.00", f"comparison: BF16 attention 16"
                    f".00 bpw: {cols[4]}")
    # each model's size as the JSON report gives it (the reporters agree)
    for i, inp in enumerate(json.loads(js)["inputs"]):
        sec = re.search(rf'<section class="model" id="model-{i}">(.*?)'
                        r'</section>', doc, re.S)
        total = inp["model"]["bytes"]
        c.check(sec is not None and f"({total} bytes)" in sec.group(1),
                f"comparison: model {i} size {total} bytes as in JSON")
    return doc


# strings a model can carry into the page
HOSTILE = [b"<script>document.title='PWNED'</script>",
           b"\"><img src=x onerror=\"document.body.id='pwned'\">",
           b"' onload='document.body.id=1' x='",
           b"</svg></table><script>document.body.id='pwned'</script>",
           b"<!-- --><style>body{display:none}</style>",
           b"\xe2\x80\xaeevil\xe2\x81\xa6 \x1b[2J\x07"]


def hostile_page(c, tmp):
    path = os.path.join(tmp, "hostile.gguf")
    name = b" ".join(HOSTILE)
    kvs = [kv_str(b"general.architecture", b"llama"),
           kv_str(b"general.name", name),
           kv_u32(b"llama.block_count", 1),
           kv_u32(b"llama.embedding_length", 4),
           kv_u32(b"llama.attention.head_count", 1),
           kv_u32(b"llama.context_length", 64)]
    tensors = [(b"blk.0.attn_q.weight" + HOSTILE[1], [4, 4], 0, 0),
               (b"token_embd.weight", [4, 8], 0, 64),
               (HOSTILE[3] + b"output.weight", [4, 8], 0, 4096)]
    with open(path, "wb") as f:
        f.write(gguf(kvs, tensors, b"\0" * 192))
    code, doc, err = run(QA, ["check", "--format", "html", path])
    raw = doc.encode("utf-8")
    page = parse(doc)
    text = page.all_text()
    c.check(code == 1, f"hostile: exit {code} (a tensor past the end)")
    c.check(len(page.scripts) == 1 and page.count("img") == 0 and
            page.count("style") == 1,
            f"hostile: no element from the model: {len(page.scripts)} "
            f"scripts, {page.count('img')} img, {page.count('style')} "
            "style")
    bad = [(t, k) for t, a in page.tags for k in a
           if k.startswith("on") or k == "src" or
           (k == "x" and t not in ("rect", "text"))]
    c.check(not bad, f"hostile: no attribute from the model: {bad}")
    c.check("<script>document.title='PWNED'</script>" in text and
            "onerror=" in text,
            "hostile: the model's strings are shown as text")
    c.check(not re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", raw) and
            "\u202e" not in doc and "\u2066" not in doc and
            "\\u202e" in text,
            "hostile: no raw control or bidi character; the override "
            "is written visibly")
    csp_ok(c, "hostile", doc, page)
    return path


def diff_page(c, a, b):
    code, doc, err = run(QA, ["diff", "--format", "html", a, b])
    code_j, js, _ = run(QA, ["diff", "--format", "json", a, b])
    page = parse(doc)
    text = page.all_text()
    d = json.loads(js)
    c.check(code == code_j == 1 and "they differ" in text,
            f"diff html: exit {code} (json {code_j}) {err[:200]}")
    counts = d["counts"]
    m = re.search(r"(\d+) paired by name, (\d+) unchanged, (\d+) added, "
                  r"(\d+) removed, (\d+) retyped", text)
    c.check(m is not None and counts and
            int(m.group(5)) == counts.get("retyped"),
            f"diff html: the retyped count as the JSON diff's: "
            f"{m.groups() if m else None} vs {counts}")
    rows = re.findall(r"<tr><td>retyped</td>", doc)
    c.check(m is not None and len(rows) == int(m.group(5)),
            f"diff html: a row per retyped tensor ({len(rows)})")
    csp_ok(c, "diff html", doc, page)
    return doc


def fit_context(c, model):
    """The largest contexts as the text report says them (-1: "none")."""
    code, txt, _ = run(QA, ["fit", "--gpus", "2x16G", model])
    code_h, doc, _ = run(QA, ["fit", "--format", "html", "--gpus", "2x16G",
                              model])
    m = re.search(r"max context: f16 (\w+) \S+ q8_0 (\w+) \S+ q4_0 (\w+)",
                  txt)
    want = (f"Largest context: f16 {m.group(1)}, q8_0 {m.group(2)}, "
            f"q4_0 {m.group(3)}.") if m else None
    c.check(m is not None and code == code_h and
            want in parse(doc).all_text(),
            f"fit html of {model}: {want!r} as the text report says")


def hostile_folder(c, tmp):
    """The hostile Hugging Face folder of test_hostile.py (config.json
    strings, tensor names, metadata, tokenizer strings, file names) with
    markup added to its config."""
    d = hostile_hf_folder(os.path.join(tmp, "hostile-hf"))
    cfg_path = os.path.join(d, "config.json")
    cfg = json.load(open(cfg_path, encoding="utf-8"))
    cfg["_name_or_path"] = HOSTILE[0].decode() + HOSTILE[1].decode()
    cfg["architectures"] = [HOSTILE[3].decode()]
    with open(cfg_path, "w", encoding="utf-8") as f:
        json.dump(cfg, f, ensure_ascii=False)
    code, doc, err = run(QA, ["check", "--format", "html", "--gpus", "16G",
                              d])
    page = parse(doc)
    bad = [(t, k) for t, a in page.tags for k in a
           if k.startswith("on") or k == "src"]
    c.check(code in (0, 1) and len(page.scripts) == 1 and
            page.count("img") == 0 and page.count("style") == 1 and
            not bad and not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
                                      r"\u202a-\u202e\u2066-\u2069]",
                                      doc),
            f"hostile folder: exit {code}, {len(page.scripts)} scripts, "
            f"{page.count('img')} img, attributes {bad} {err[:200]}")
    csp_ok(c, "hostile folder", doc, page)


def recurrent_rows(c, path):
    """A hybrid's recurrent layers are marked: exactly the blocks whose
    tensors (read here from the GGUF header) include ssm_* weights."""
    names = [t[0] for t in gguf_read(path)["tensors"]]
    want = sorted({int(n.split(".")[1]) for n in names
                   if n.startswith("blk.") and ".ssm_" in n})
    code, doc, err = run(QA, ["inspect", "--format", "html", path])
    got = []
    for first, last in re.findall(r'<td class="l">(\d+)(?:-(\d+))? '
                                  r'<em>recurrent</em>', doc):
        got += list(range(int(first), int(last or first) + 1))
    c.check(want and got == want, f"recurrent rows of {path}: {got} vs "
            f"the ssm blocks {want}")


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def browser(c, pages, shots):
    exe = chromium()
    if not exe:
        print("SKIP browser: chromium is not installed")
        c.skipped += 1
        return
    with tempfile.TemporaryDirectory() as prof:
        base = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                f"--user-data-dir={prof}"]
        for what, path, want in pages:
            p = subprocess.run(base + ["--dump-dom", "file://" + path],
                               capture_output=True, timeout=120)
            dom = p.stdout.decode("utf-8", "replace")
            c.check('data-js="on"' in dom,
                    f"chromium {what}: the report's script ran under its "
                    f"policy ({p.stderr.decode()[-300:]})")
            c.check("PWNED" not in re.sub(r"&lt;script&gt;document\.title="
                                          r"'PWNED'&lt;/script&gt;", "",
                                          dom) and
                    'id="pwned"' not in dom and 'id="1"' not in dom,
                    f"chromium {what}: no script from the model ran")
            for s in want:
                c.check(s in dom, f"chromium {what}: the DOM holds {s!r}")
        for path, png in shots:
            subprocess.run(base + ["--hide-scrollbars",
                                   "--window-size=1280,2200",
                                   f"--screenshot={png}", "file://" + path],
                           capture_output=True, timeout=120)
            ok = os.path.exists(png) and open(png, "rb").read(8) == \
                b"\x89PNG\r\n\x1a\n"
            c.check(ok, f"chromium: a screenshot at {png}")


def main():
    global QA
    QA = sys.argv[1]
    fix = env_path("QA_FIXTURES")
    corpus = os.environ.get("QA_CORPUS", "")
    logs = os.path.join(os.getcwd(), "meson-logs")
    os.makedirs(logs, exist_ok=True)
    c = Checker()
    gpus = ["--gpus", "2x16G"]
    with tempfile.TemporaryDirectory() as tmp:
        have = os.path.isdir(os.path.join(corpus, "tiny-llama"))
        model = (os.path.join(corpus, "hf", "deepseek_v3_mtp") if have
                 else os.path.join(fix, "sample",
                                   "sample-llama-3.2-1b-Q4_K_M.gguf"))
        one = os.path.join(tmp, "one.html")
        doc = structure(c, model, gpus)
        with open(one, "w") as f:
            f.write(doc)
        if have:
            mtp_share(c, model, doc)
            component_colours(c, model, doc)
        pages = [("one model", one, ["Precision by layer", "Memory fit"])]
        shots = [(one, os.path.join(logs, "html-report.png"))]
        if have:
            t = os.path.join(corpus, "tiny-llama")
            quants = [os.path.join(t, n) for n in (
                "tiny-llama-e64-Q2_K.gguf", "tiny-llama-e64-IQ4_NL.gguf",
                "tiny-llama-e64-Q4_K_M.gguf", "tiny-llama-e64-Q8_0.gguf")]
            cmp_html = os.path.join(tmp, "compare.html")
            with open(cmp_html, "w") as f:
                f.write(comparison(c, quants))
            pages.append(("four quants", cmp_html,
                          ["Comparison of 4 models"]))
            shots.append((cmp_html,
                           os.path.join(logs, "html-compare.png")))
            two = [os.path.join(corpus, "gguf", "llama-q8_0.gguf"),
                   os.path.join(corpus, "gguf", "llama-bf16.gguf")]
            comparison(c, two)
            fit_context(c, quants[3])
            diff_html = os.path.join(tmp, "diff.html")
            with open(diff_html, "w") as f:
                f.write(diff_page(c, quants[3], quants[2]))
            pages.append(("diff", diff_html, ["Components", "retyped"]))
        else:
            c.skipped += 1
        recurrent_rows(c, os.path.join(
            fix, "fit", "nemotron-nano-9b-v2-Q4_K_M.gguf"))
        hostile_folder(c, tmp)
        hp = hostile_page(c, tmp)
        hostile_html = os.path.join(tmp, "hostile.html")
        code, doc, err = run(QA, ["check", "--format", "html", hp])
        with open(hostile_html, "w") as f:
            f.write(doc)
        pages.append(("hostile", hostile_html, ["Findings"]))
        browser(c, pages, shots)
    c.finish()


if __name__ == "__main__":
    main()
