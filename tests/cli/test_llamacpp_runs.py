# SPDX-License-Identifier: MIT
"""The llama.cpp fit model against llama.cpp itself.

tests/data/llamacpp-runs/*.log are trimmed verbose logs of llama.cpp
(CPU backend, commit and commands in that folder's README.md, produced by
tools/llamacpp-runs/run.sh) on the real-shape fit fixtures of
fixtures/gen/gen_fit.c, one per configuration: context, -np (and -kvu),
-fa, K/V type, -ub. For each log this runs

    quantaudit fit --calibrate LOG $QA_FIXTURES/fit/<the model of -m>

(the calibration report is text only, so its table is parsed) and compares
estimate and engine:

- KV cache: the total and every cache row (base, sliding window) must be
  exact, |estimate - engine| < 0.01 MiB (both are printed to 2 decimals);
- recurrent state: exact the same way (0 when the engine has none);
- compute buffer: relative error (estimate - engine) / engine;
- a configuration llama.cpp refused must be a predicted refusal;
- weights: where the log prints its memory breakdown, the estimate's
  `weights CPU` row must be the breakdown's Host `model` figure, which
  common/fit.cpp prints as bytes / MiB truncated: model <= estimate <
  model + 1 (a tied embedding is one tensor on the CPU backend,
  llama-model-loader.cpp create_tensor with TENSOR_DUPLICATED).

PASS only when KV and recurrent state are exact everywhere, the compute
buffer is within -5 % .. +10 % on at least 95 % of the configurations that
ran and never below -5 %. Every configuration is tabulated, then every
failing one with what is off.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, env_path, run  # noqa: E402

EXACT = 0.01            # MiB: the logs print 2 decimals
BREAKDOWN = re.compile(r"^log breakdown Host: model (?P<model>\d+\.\d+),",
                       re.M)
LOW, HIGH = -5.0, 10.0  # compute band, percent
SHARE = 0.95            # of the configurations that ran

ROW = re.compile(r"^\s*(?P<what>\S.*?)\s{2,}(?P<est>-?\d+\.\d+)\s+"
                 r"(?P<eng>-|-?\d+\.\d+)(?:\s+(?P<pct>[+-]?\d+\.\d+)%)?\s*$")


def parse_cmd(path):
    """The first line's command: program and the settings of the run."""
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline()
        rest = f.read()
    if not first.startswith("# cmd:"):
        raise AssertionError(f"{path}: no '# cmd:' first line")
    words = first[6:].split()
    cfg = {"prog": words[0], "model": None, "ctx": None, "np": 1,
           "kvu": False, "fa": "auto", "ctk": "f16", "ctv": "f16",
           "ub": 512}
    i = 1
    while i < len(words):
        w = words[i]
        arg = words[i + 1] if i + 1 < len(words) else ""
        if w in ("-m", "--model"):
            cfg["model"] = arg
        elif w in ("-c", "--ctx-size"):
            cfg["ctx"] = int(arg)
        elif w in ("-np", "--parallel"):
            cfg["np"] = int(arg)
        elif w in ("-fa", "--flash-attn"):
            cfg["fa"] = arg
        elif w in ("-ctk", "--cache-type-k"):
            cfg["ctk"] = arg
        elif w in ("-ctv", "--cache-type-v"):
            cfg["ctv"] = arg
        elif w in ("-ub", "--ubatch-size"):
            cfg["ub"] = int(arg)
        elif w in ("-kvu", "--kv-unified"):
            cfg["kvu"] = True
            i += 1
            continue
        else:
            i += 1
            continue
        i += 2
    m = re.search(r"^# rc=(\d+)", rest, re.M)
    cfg["rc"] = int(m.group(1)) if m else -1
    cfg["n_caches"] = len(re.findall(r"llama_kv_cache: size =", rest))
    return cfg


def parse_calibration(text):
    """Rows of the calibration table and the refusal lines."""
    rows = {}
    kv_rows = []
    refusal_log = refusal_est = None
    for line in text.splitlines():
        if line.startswith("engine refusal: log:"):
            refusal_log = line.split(":", 2)[2].strip()
            continue
        if line.strip().startswith("estimate:"):
            refusal_est = line.split(":", 1)[1].strip()
            continue
        m = ROW.match(line)
        if not m:
            continue
        what = m.group("what").strip()
        est = float(m.group("est"))
        eng = None if m.group("eng") == "-" else float(m.group("eng"))
        rows[what] = (est, eng)
        if what in ("KV", "KV base", "KV sliding window"):
            kv_rows.append((what, est, eng))
    return rows, kv_rows, refusal_log, refusal_est


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def main():
    if len(sys.argv) != 2:
        print("usage: test_llamacpp_runs.py QUANTAUDIT")
        return 2
    qa = sys.argv[1]
    fixtures = os.path.join(env_path("QA_FIXTURES"), "fit")
    data = os.path.join(env_path("QA_SOURCE_ROOT"), "tests", "data",
                        "llamacpp-runs")
    logs = sorted(glob.glob(os.path.join(data, "*.log")))
    if not logs:
        print(f"no logs in {data}")
        return SKIP

    results = []
    for log in logs:
        cfg = parse_cmd(log)
        name = os.path.basename(log)[:-4]
        r = {"name": name, "cfg": cfg, "fail": []}
        results.append(r)
        model = os.path.basename(cfg["model"] or "")
        r["model"] = re.sub(r"-Q4_K_M\.gguf$|\.gguf$", "", model)
        fixture = os.path.join(fixtures, model)
        if not os.path.exists(fixture):
            r["fail"].append(f"fixture {fixture} missing")
            continue
        code, out, err = run(qa, ["fit", "--calibrate", log, fixture])
        if code != 0:
            r["fail"].append(f"quantaudit exit {code}: {err.strip()[:200]}")
            continue
        rows, kv_rows, ref_log, ref_est = parse_calibration(out)
        r["refused"] = cfg["rc"] not in (0, -1) or ref_log is not None
        if r["refused"]:
            r["refusal"] = (ref_log, ref_est)
            if not ref_est or ref_est == "(none)":
                r["fail"].append(f"llama.cpp refused ({ref_log}); the "
                                 "estimate does not")
            continue
        if ref_est:
            r["fail"].append(f"estimate refuses ({ref_est}); llama.cpp ran")
        kv = rows.get("KV cache (all)")
        r["kv"] = kv
        if kv is None or kv[1] is None:
            r["fail"].append("no KV row")
        elif abs(kv[0] - kv[1]) >= EXACT:
            r["fail"].append("KV")
        if cfg["n_caches"] and len(kv_rows) != min(cfg["n_caches"], 2):
            r["fail"].append(f"{cfg['n_caches']} KV caches in the log, "
                             f"{len(kv_rows)} rows in the calibration")
        r["kv_rows"] = kv_rows
        for what, est, eng in kv_rows:
            if eng is None or abs(est - eng) >= EXACT:
                r["fail"].append(what)
        bd = BREAKDOWN.search(out)
        wt = rows.get("weights CPU")
        r["weights"] = (wt[0] if wt else None,
                        float(bd.group("model")) if bd else None)
        if bd and (wt is None or not
                   (r["weights"][1] <= wt[0] < r["weights"][1] + 1)):
            r["fail"].append("weights")
        rs = rows.get("recurrent state")
        r["rs"] = rs
        if rs is None:
            r["fail"].append("no recurrent row")
        elif abs(rs[0] - (rs[1] or 0.0)) >= EXACT:
            r["fail"].append("recurrent")
        comp = rows.get("compute CPU")
        r["comp"] = comp
        if comp is None or not comp[1]:
            r["fail"].append("no compute row")
            r["pct"] = None
        else:
            r["pct"] = (comp[0] - comp[1]) / comp[1] * 100
            if r["pct"] < LOW or r["pct"] > HIGH:
                r["fail"].append("compute")

    head = (f"{'model':<26} {'ctx':>6} {'np':>4} {'fa':>3} {'kv':>4} "
            f"{'ub':>4} | {'KV est':>9} {'KV eng':>9} {'diff':>8} | "
            f"{'RS est':>7} {'RS eng':>7} | {'comp est':>9} "
            f"{'comp eng':>9} {'diff':>9} {'err':>8}")

    def line(r):
        c = r["cfg"]
        npv = f"{c['np']}{'u' if c['kvu'] else ''}"
        kvt = c["ctk"] if c["ctk"] == c["ctv"] else f"{c['ctk']}/{c['ctv']}"
        pre = (f"{r['model']:<26} {c['ctx'] or '-':>6} {npv:>4} "
               f"{c['fa']:>3} {kvt:>4} {c['ub']:>4} | ")
        if r.get("refused"):
            log_msg, est_msg = r["refusal"]
            return pre + (f"refused: {log_msg}; estimate: {est_msg}")
        if "kv" not in r:
            return pre + "; ".join(r["fail"])
        kv = r["kv"] or (None, None)
        rs = r.get("rs") or (None, None)
        comp = r.get("comp") or (None, None)
        kvd = (kv[0] - kv[1]) if kv[1] is not None else None
        cd = (comp[0] - comp[1]) if comp[1] is not None else None
        pct = r.get("pct")
        s = (f"{fmt(kv[0]):>9} {fmt(kv[1]):>9} "
             f"{'-' if kvd is None else f'{kvd:+.2f}':>8} | "
             f"{fmt(rs[0]):>7} {fmt(rs[1]):>7} | "
             f"{fmt(comp[0]):>9} {fmt(comp[1]):>9} "
             f"{'-' if cd is None else f'{cd:+.2f}':>9} "
             f"{'-' if pct is None else f'{pct:+.1f}%':>8}")
        if len(r.get("kv_rows", [])) > 1:
            s += "  [" + ", ".join(f"{w}: {fmt(e)}/{fmt(g)}"
                                   for w, e, g in r["kv_rows"]) + "]"
        if r["fail"]:
            s += "  FAIL: " + ", ".join(r["fail"])
        return pre + s

    results.sort(key=lambda r: (r.get("model", ""), r["cfg"]["ctx"] or 0,
                                r["cfg"]["np"], r["cfg"]["kvu"],
                                r["cfg"]["fa"] != "on", r["cfg"]["ctk"],
                                r["cfg"]["ub"]))
    print("llama.cpp (CPU) against `quantaudit fit --calibrate`, every "
          "configuration")
    print("np: 'u' = -np 4 -kvu (one unified KV stream, "
          "llama-batched-bench); compute = the calibration's main "
          "'compute CPU' row")
    print("MiB; diff = estimate - engine; err = diff / engine")
    print(head)
    print("-" * len(head))
    for r in results:
        print(line(r))

    ran = [r for r in results if not r.get("refused") and "kv" in r]
    refused = [r for r in results if r.get("refused")]
    kv_bad = [r for r in ran if any(f in ("KV", "KV base",
                                          "KV sliding window", "no KV row")
                                    or f.endswith("rows in the calibration")
                                    for f in r["fail"])]
    rs_bad = [r for r in ran if any(f in ("recurrent", "no recurrent row")
                                    for f in r["fail"])]
    wt_bad = [r for r in ran if "weights" in r["fail"]]
    wt_checked = [r for r in ran if r["weights"][1] is not None]
    pcts = [r["pct"] for r in ran if r.get("pct") is not None]
    in_band = [p for p in pcts if LOW <= p <= HIGH]
    below = [p for p in pcts if p < LOW]
    other = [r for r in results if r["fail"] and r not in kv_bad and
             r not in rs_bad and r not in wt_bad and
             r["fail"] != ["compute"]]
    failing = [r for r in results if r["fail"]]

    print()
    if failing:
        print(f"failing configurations ({len(failing)}):")
        print(head)
        print("-" * len(head))
        for r in failing:
            print(line(r))
        print()

    share = len(in_band) / len(pcts) if pcts else 0.0
    print(f"{len(results)} logs: {len(ran)} ran, {len(refused)} refused by "
          "llama.cpp")
    print(f"KV exact: {len(ran) - len(kv_bad)}/{len(ran)}")
    print(f"recurrent state exact: {len(ran) - len(rs_bad)}/{len(ran)}")
    print(f"weights = breakdown model: {len(wt_checked) - len(wt_bad)}/"
          f"{len(wt_checked)}")
    print(f"compute within {LOW:+.0f} %/{HIGH:+.0f} %: {len(in_band)}/"
          f"{len(pcts)} ({share * 100:.1f} %, need {SHARE * 100:.0f} %); "
          f"below {LOW:+.0f} %: {len(below)}"
          + (f" (worst {min(below):+.1f} %)" if below else ""))
    if pcts:
        print(f"compute error range: {min(pcts):+.1f} % .. "
              f"{max(pcts):+.1f} %")
    if other:
        print(f"other failures: {len(other)} (refusals or unreadable "
              "output, listed above)")

    ok = (not kv_bad and not rs_bad and not wt_bad and bool(wt_checked) and
          not below and share >= SHARE and
          not other and bool(pcts))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
