# SPDX-License-Identifier: MIT
"""The llama.cpp fit at its edges, through the binary, against numbers
worked out here and not read from quantaudit:

- the GGUF header of each real-shape fixture ($QA_FIXTURES/fit/) is parsed
  by the small reader below (tensor shapes and types, hyperparameters);
- the formulas are those of docs/fit.md "## llama.cpp" (weights per unit,
  CUDA padding of one row per quantized tensor, KV, SWA, GDN state, the
  compute closed form with per-stream masks of
  ../shared/knowledge/llamacpp-memory-2.md section 2.2, the margin, the
  split by usable memory and the split --fit moves to, partial offload);
- GPU sizes and bandwidths come from rules/gpus.def and
  src/fit/gpuspec.h.

Cases: --margin 0 and 512; `check` with every fit option and its search
for the largest context; a default split that overflows one of two
unequal GPUs and the split --fit moves to; partial offload of experts
(--n-cpu-moe) and of layers (-ngl), on one GPU and on two; fit refused
for incomplete weights; the decode ceiling; the GPU index and the margin
in QA4001/QA4002; and every text line within 80 columns."""
import json
import os
import re
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run, run_json  # noqa: E402

MIB = 1 << 20
N_UB = 512          # llama.cpp -ub default
N_B = 2048          # -b default
MARGIN = 1024 * MIB  # --fit's target free memory per device
ROW_PAD = 512       # ggml-cuda MATRIX_ROW_PADDING
ALIGN = 128         # CUDA buffer alignment

# ---- a minimal GGUF reader ---------------------------------------------

# ggml type id -> (block elements, block bytes), ggml/src/ggml.c
GGML_TYPES = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22),
              7: (32, 24), 8: (32, 34), 9: (32, 36), 10: (256, 84),
              11: (256, 110), 12: (256, 144), 13: (256, 176),
              14: (256, 210), 15: (256, 292), 30: (1, 2)}
KV_TYPES = {"f16": (1, 2), "q8_0": (32, 34), "q4_0": (32, 18)}
# llama-model.cpp create_memory: archs whose filter keeps nextn blocks
# out of the main caches; llama-arch.cpp llm_arch_supports_rs_rollback;
# graphs exporting a second hidden state (t_h_nextn).
FILTERED = {"qwen3next", "qwen35", "qwen35moe", "step35", "hy_v3",
            "glm-dsa", "mimo2", "deepseek32", "deepseek4"}
ROLLBACK = {"qwen35", "qwen35moe", "deepseek4"}
SECOND_HIDDEN = {"qwen3next", "qwen35", "qwen35moe", "gpt-oss",
                 "cohere2moe", "hy_v3", "mimo2", "step35"}
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f",
           7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_gguf(path):
    """(metadata dict, [tensor dicts]) of a GGUF v3 file."""
    with open(path, "rb") as f:
        def rd(fmt):
            return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]

        def rstr():
            return f.read(rd("<Q")).decode("utf-8")

        def rval(t):
            if t in SCALARS:
                return rd(SCALARS[t])
            if t == 8:
                return rstr()
            if t == 9:
                et, n = rd("<I"), rd("<Q")
                return [rval(et) for _ in range(n)]
            raise ValueError(f"GGUF value type {t}")
        if f.read(4) != b"GGUF":
            raise ValueError(f"{path}: not GGUF")
        rd("<I")
        n_t, n_kv = rd("<Q"), rd("<Q")
        meta = {}
        for _ in range(n_kv):
            k = rstr()
            meta[k] = rval(rd("<I"))
        tensors = []
        for _ in range(n_t):
            name = rstr()
            ne = [rd("<Q") for _ in range(rd("<I"))]
            typ = rd("<I")
            rd("<Q")
            n = 1
            for x in ne:
                n *= x
            blk, size = GGML_TYPES[typ]
            tensors.append({"name": name, "ne": ne, "type": typ,
                            "bytes": n // blk * size})
    return meta, tensors


def dev_bytes(t):
    """A tensor in a CUDA buffer: one row's padding at the end when the
    row is not a multiple of 512 (ggml-cuda.cu get_alloc_size adds
    ggml_row_size(type, 512 - ne0 % 512) once), 128-byte aligned."""
    blk, size = GGML_TYPES[t["type"]]
    b = t["bytes"]
    if blk > 1 and t["ne"][0] % ROW_PAD:
        b += (ROW_PAD - t["ne"][0] % ROW_PAD) // blk * size
    return (b + ALIGN - 1) // ALIGN * ALIGN


def pad256(x):
    return (x + 255) // 256 * 256


def rho(kv, n):
    blk, size = KV_TYPES[kv]
    assert n % blk == 0
    return n // blk * size


# ---- the fit, worked out independently ---------------------------------

class Model:
    """A fixture's shapes and the llama.cpp memory of docs/fit.md."""

    def __init__(self, path, mtp=False):
        meta, tensors = read_gguf(path)
        a = meta["general.architecture"]
        self.arch = a

        def g(k, d=None):
            return meta.get(f"{a}.{k}", d)
        self.n_all = g("block_count")
        self.n_layer = self.n_all - g("nextn_predict_layers", 0)
        # load_tensors splits n_layer_all + 1 units whatever --mtp says
        # (llama-model.cpp l.1318); nextn weights are TENSOR_SKIP unless
        # the MTP draft loads them; qwen35 filters nextn blocks out of
        # its main caches; the draft's own cache is F16 and the
        # recurrent state gets 1 + n_max (3) rows for rollback
        # (llamacpp-memory-2 sections 1, 4.2).
        self.n_placed = self.n_all
        self.mtp = mtp and self.n_all > self.n_layer
        self.nextn_kv = self.n_all > self.n_layer and a not in FILTERED
        self.n_rs = 3 if self.mtp and a in ROLLBACK else 0
        self.h2 = a in SECOND_HIDDEN
        self.n_pos = 4 if f"{a}.rope.dimension_sections" in meta else 1
        self.Hs = g("ssm.time_step_rank", 0)
        self.E = g("embedding_length")
        self.H = g("attention.head_count")
        hkv = g("attention.head_count_kv", self.H)
        self.hkv = hkv if isinstance(hkv, list) else [hkv] * self.n_all
        self.dk = g("attention.key_length", self.E // self.H)
        self.dv = g("attention.value_length", self.E // self.H)
        self.n_ctx_train = g("context_length")
        self.swa = g("attention.sliding_window", 0)
        self.F = g("feed_forward_length")
        self.n_exp = g("expert_count", 0)
        self.n_used = g("expert_used_count", 0)
        self.F_exp = g("expert_feed_forward_length", 0)
        embd = [t for t in tensors if t["name"] == "token_embd.weight"][0]
        self.V = g("vocab_size", embd["ne"][1])
        self.fai = g("full_attention_interval", 0)
        self.ssm = (g("ssm.conv_kernel", 0), g("ssm.inner_size", 0),
                    g("ssm.state_size", 0), g("ssm.group_count", 1))
        # units 0..n_placed-1 are blocks, unit n_placed the output
        n_u = self.n_placed + 1
        self.unit_w = [0] * n_u       # device bytes
        self.unit_exp = [0] * n_u     # device bytes of expert tensors
        self.unit_file = [0] * n_u    # file bytes
        self.unit_exp_file = [0] * n_u
        self.host = 0                 # token_embd, host RAM
        have_output = False
        for t in tensors:
            m = re.match(r"blk\.(\d+)\.", t["name"])
            if t["name"] == "token_embd.weight":
                self.host += t["bytes"]
                embd_dev = dev_bytes(t)
                continue
            if m and int(m.group(1)) >= self.n_layer and not self.mtp:
                continue          # nextn block, not loaded
            u = int(m.group(1)) if m else self.n_placed
            have_output |= t["name"] == "output.weight"
            self.unit_w[u] += dev_bytes(t)
            self.unit_file[u] += t["bytes"]
            if "_exps" in t["name"]:
                self.unit_exp[u] += dev_bytes(t)
                self.unit_exp_file[u] += t["bytes"]
        if not have_output:   # tied: a copy on the output device
            self.unit_w[self.n_placed] += embd_dev

    # -- per-layer caches
    def layer_swa(self, l):
        # gemma3: period 6, the last of each period full (set_swa_pattern)
        return self.arch == "gemma3" and self.swa > 0 and l % 6 < 5

    def layer_recurrent(self, l):
        return (self.fai > 0 and l < self.n_layer and
                (l + 1) % self.fai != 0)

    def layer_has_kv(self, l):
        if l >= self.n_layer and not self.nextn_kv:
            return False
        return not self.layer_recurrent(l) and self.hkv[l] > 0

    def draft_kv(self, l, ctx, n_seq=1):
        """The MTP draft context's cache (nextn blocks only for qwen35),
        F16."""
        if not self.mtp or l < self.n_layer:
            return 0
        _, seq, _, _ = self.ctx_shape(ctx, n_seq)
        return n_seq * seq * (rho("f16", self.hkv[l] * self.dk) +
                              rho("f16", self.hkv[l] * self.dv))

    def ctx_shape(self, ctx, n_seq):
        n_ctx = pad256(ctx)
        seq = pad256(n_ctx // n_seq)
        n_ctx = seq * n_seq
        n_ub = min(N_UB, min(N_B, n_ctx))
        swa = pad256(min(seq, self.swa + n_ub)) if self.swa else 0
        return n_ctx, seq, n_ub, swa

    def layer_kv(self, l, ctx, n_seq=1, kv="f16"):
        if l >= self.n_placed or not self.layer_has_kv(l):
            return 0
        _, seq, _, swa = self.ctx_shape(ctx, n_seq)
        cells = swa if self.layer_swa(l) else seq
        return n_seq * cells * (rho(kv, self.hkv[l] * self.dk) +
                                rho(kv, self.hkv[l] * self.dv))

    def layer_state(self, l, n_seq=1):
        if not self.layer_recurrent(l):
            return 0
        conv, inner, state, groups = self.ssm
        r = (conv - 1) * (inner + 2 * groups * state)
        return 4 * n_seq * (1 + self.n_rs) * (r + state * inner)

    def compute(self, ctx, n_seq, has_output, pipeline, ub=N_UB,
                kv="f16"):
        """llamacpp-memory-2 section 3 on CUDA, FA on: the larger of a
        head phase (logits, result_norm, the MTP graphs' second hidden
        state, plus the placement term G) and a layer phase (inputs,
        per-stream masks, the worst layer's live set, the F16 copy FA
        makes of a non-F16 layer cache); inp_embd in CUDA_Host; x4 input
        copies under pipeline parallelism. Returns (conservative,
        tight)."""
        n_ctx, seq, n_ub, swa = self.ctx_shape(ctx, n_seq)
        n_ub = min(ub, n_ub)
        n_tok = -(-n_ub // n_seq) * n_seq
        n_out = n_ub

        def al(x):
            return -(-x // ALIGN) * ALIGN
        layers = range(self.n_layer)
        base = any(self.layer_has_kv(l) and not self.layer_swa(l)
                   for l in layers)
        sw = any(self.layer_has_kv(l) and self.layer_swa(l) for l in layers)
        E, V = self.E, self.V
        small = (al(4 * n_tok) + al(4 * n_tok * self.n_pos) + al(4 * n_out) +
                 (base + sw) * 2 * al(8 * n_tok))
        mask = (al(seq * n_tok * 2) if base else 0) + \
            (al(swa * n_tok * 2) if sw else 0)
        inputs = small + mask
        head = al(4 * n_out * V) + al(4 * n_out * E) + \
            (al(4 * n_tok * E) if self.h2 else 0)
        k, fx, nx = self.n_used, self.F_exp, self.n_exp
        terms = []
        if not nx:
            terms.append(4 * n_tok * (2 * E + 3 * self.F))
        else:
            terms.append(4 * n_tok * (3 * E + 3 * k * fx +
                                      (k * E if E > 2 * fx else 0)) +
                         8 * n_tok * nx)
        gdn = any(self.layer_recurrent(l) for l in layers)
        if gdn:
            conv, inner, state, groups = self.ssm
            cd = inner + 2 * groups * state
            terms.append(4 * n_tok * (3 * E + 2 * cd) +
                         4 * (conv - 1) * cd * n_seq)
        fa_conv = 0
        if kv != "f16":
            for l in range(self.n_placed):
                if self.layer_has_kv(l):
                    cells = n_seq * (swa if self.layer_swa(l) else seq)
                    fa_conv = max(fa_conv, 2 * cells * self.hkv[l] *
                                  (self.dk + self.dv))
        # the F16 copies live in the FA node beside the residual, the
        # norm, Q and its output, not beside the FFN's tensors, which
        # are freed by then (a CUDA run of lfm2-1.2b at 32768 q8_0 in
        # tests/data/llamacpp-cuda-runs: 136.00 MiB, the head phase)
        layer = max(terms)
        if fa_conv:
            layer = max(layer, 4 * n_tok * (2 * E + self.H *
                                            (self.dk + self.dv)) + fa_conv)
        if gdn:
            g = mask + 4 * n_tok * E
        elif nx and E <= 2 * fx:
            g = 4 * n_tok * ((k + 2) * E + 3 * nx)
        elif nx:
            g = 4 * n_tok * 3 * E
        else:
            g = 4 * n_tok * 2 * E
        if pipeline:
            cons = 4 * inputs + max(head + g if has_output else 0, layer)
            tight = 4 * inputs + max(head if has_output else 0, layer)
        else:
            lp = inputs + layer
            cons = max(small + head + g, lp) if has_output else lp
            tight = max(small + head, lp) if has_output else lp
        return cons, tight

    def draft_compute(self, ctx, n_seq):
        """The MTP draft context's buffer (an estimate): its small inputs
        and the larger of its head (logits and result_norm of n_parallel
        outputs) and one block (mask, the worst layer term, the 2E
        concat of eh_proj)."""
        n_ctx, seq, n_ub, swa = self.ctx_shape(ctx, n_seq)
        n_tok = -(-n_ub // n_seq) * n_seq

        def al(x):
            return -(-x // ALIGN) * ALIGN
        small = al(4 * n_tok) + al(4 * n_tok * self.n_pos) + al(4 * n_ub) + \
            2 * al(8 * n_tok)
        hd = 4 * n_seq * (self.V + self.E)
        conv, inner, state, groups = self.ssm
        cd = inner + 2 * groups * state
        layer = max(4 * n_tok * (2 * self.E + 3 * self.F),
                    4 * n_tok * (3 * self.E + 2 * cd) + 4 * (conv - 1) * cd
                    * n_seq if any(self.layer_recurrent(l)
                                   for l in range(self.n_layer)) else 0)
        ld = seq * n_tok * 2 + layer + 8 * n_tok * self.E
        return small + max(hd, ld)

    # -- placements
    def default_split(self, usable):
        """load_tensors: unit l to upper_bound(cum(usable), l/(L+1))."""
        tot = sum(usable)
        cum, acc = [], 0
        for u in usable:
            acc += u
            cum.append(acc / tot)
        n_u = self.n_placed + 1
        return [next((j for j in range(len(usable) - 1) if cum[j] > i / n_u),
                     len(usable) - 1) for i in range(n_u)]

    def evaluate(self, split, usable, ctx, n_seq=1, kv="f16", cpu_exp=0,
                 margin=MARGIN, ub=N_UB):
        """Per device: weights, kv, state, compute, free. split[u] is a
        device or -1 (host); units < cpu_exp keep their experts on the
        host. Pipeline copies only with full offload and >1 GPU."""
        nd = len(usable)
        pipe = nd > 1 and all(d >= 0 for d in split) and cpu_exp == 0
        devs = []
        for j in range(nd):
            units = [u for u in range(len(split)) if split[u] == j]
            w = sum(self.unit_w[u] - (self.unit_exp[u] if u < cpu_exp
                                      else 0) for u in units)
            exp = sum(self.unit_exp[u] for u in units if u >= cpu_exp)
            kvb = sum(self.layer_kv(u, ctx, n_seq, kv) +
                      self.draft_kv(u, ctx, n_seq) for u in units
                      if u < self.n_placed)
            mtp_kv = sum(self.layer_kv(u, ctx, n_seq, kv) +
                         self.draft_kv(u, ctx, n_seq) for u in units
                         if self.n_layer <= u < self.n_placed)
            mtp_w = sum(self.unit_w[u] for u in units
                        if self.n_layer <= u < self.n_placed)
            rs = sum(self.layer_state(u, n_seq) for u in units
                     if u < self.n_placed)
            out = self.n_placed in units
            c, ct = (self.compute(ctx, n_seq, out, pipe, ub, kv)
                     if units else (0, 0))
            if out and self.mtp:
                c += self.draft_compute(ctx, n_seq)
                ct += self.draft_compute(ctx, n_seq)
            free = usable[j] - (w + kvb + rs + c + margin)
            # decode reads: non-expert weights, k/n of the experts, the
            # trunk's cache (not the MTP layers': no drafting)
            read = (w - exp - mtp_w + kvb - mtp_kv + rs // (1 + self.n_rs) +
                    (exp * self.n_used // self.n_exp if self.n_exp
                     else exp))
            # one MTP draft token reads the nextn block, the head and
            # the draft's cells
            draft = (sum(self.unit_w[u] for u in units
                         if self.n_layer <= u < self.n_placed) +
                     (self.unit_w[self.n_placed] if out else 0) +
                     sum(self.draft_kv(u, ctx, n_seq) for u in units
                         if u < self.n_placed)) if self.mtp else 0
            devs.append({"w": w, "kv": kvb, "rs": rs, "c": c, "ct": ct,
                         "free": free, "draft": draft,
                         "units": units, "read": read})
        return devs

    def fits(self, devs):
        return all(d["free"] >= 0 for d in devs)

    def greedy(self, usable, ctx, host=0, cpu_exp=0, **kw):
        """--fit's layer move: the last device takes as many whole units
        from the end as fit, and so on; the first takes the rest."""
        n_u = self.n_placed + 1
        split = [-1] * host + [0] * (n_u - host)
        end = n_u
        for j in range(len(usable) - 1, 0, -1):
            s = end
            while s > host:
                trial = split[:s - 1] + [j] * (end - s + 1) + split[end:]
                if self.evaluate(trial, usable, ctx, cpu_exp=cpu_exp,
                                 **kw)[j]["free"] < 0:
                    break
                s -= 1
                split = trial
            end = s
        return split

    def max_context(self, usable, n_seq=1, kv="f16", margin=MARGIN):
        """Largest multiple of 256 n_seq in [4096, n_ctx_train] that fits
        with the default split (all the cases here have one GPU or room
        enough that the default split is the one that fits)."""
        step = 256 * n_seq
        best = -1
        for k in range(-(-4096 // step), self.n_ctx_train // step + 1):
            split = self.default_split(usable)
            if self.fits(self.evaluate(split, usable, k * step, n_seq, kv,
                                       margin=margin)):
                best = k * step
        return best


# ---- GPUs --------------------------------------------------------------

def gpu_table(root):
    """rules/gpus.def: id -> (usable bytes, bandwidth GB/s)."""
    reserve = None
    for ln in open(os.path.join(root, "src", "fit", "gpuspec.h")):
        m = re.search(r"QA_GPU_DEFAULT_RESERVE\s+\(\(uint64_t\)(\d+) << 20\)",
                      ln)
        if m:
            reserve = int(m.group(1)) * MIB
    text = open(os.path.join(root, "rules", "gpus.def")).read()
    table = {}
    for m in re.finditer(r'QA_GPU\("([^"]+)",.*?QA_MIB\((\d+)\),\s*'
                         r'(QA_MIB\((\d+)\)|0),\s*(\d+),', text, re.S):
        vram = int(m.group(2)) * MIB
        usable = int(m.group(4)) * MIB if m.group(4) else vram - reserve
        table[m.group(1)] = (usable, int(m.group(5)))
    return table, reserve


def fixture(name):
    return os.path.join(env_path("QA_FIXTURES"), "fit", f"{name}-Q4_K_M.gguf")


def fit_json(binary, args):
    """`fit --format json ARGS`: exit code, the first input, stderr.
    (qa_common.run_json keeps only inspect, tensors, check and rules
    first, so the command goes here by hand.)"""
    code, out, err = run(binary, ["fit", "--format", "json"] + args)
    try:
        doc = json.loads(out)
    except json.JSONDecodeError:
        doc = {}
    inp = doc["inputs"][0] if doc.get("inputs") else {}
    return code, inp, err


def codes(inp):
    return [f["code"] for f in inp.get("findings", [])]


def finding(inp, code):
    return next((f["message"] for f in inp.get("findings", [])
                 if f["code"] == code), "")


def lines_ok(c, what, text):
    for ln in text.splitlines():
        c.check(len(ln) <= 80, f"{what}: line of {len(ln)} columns: {ln!r}")


def mib(x):
    return f"{x / MIB:.2f}"


# ---- 1. --margin --------------------------------------------------------

def margin_cases(c, binary, gpus):
    m = Model(fixture("llama-3.1-8b"))
    usable = [gpus["rtx-5060-ti"][0]] * 2
    base = ["--gpus", "rtx-5060-ti:2", "--ctx", "32768"]
    split = m.default_split(usable)
    got = {}
    for mg in (None, 0, 512):
        args = [fixture("llama-3.1-8b")] + base
        if mg is not None:
            args += ["--margin", str(mg)]
        code, inp, err = fit_json(binary, args)
        fit = inp.get("fit")
        if not c.check(fit is not None, f"margin {mg}: fit ({err[:200]})"):
            return
        got[mg] = fit
        want_m = MARGIN if mg is None else mg * MIB
        mine = m.evaluate(split, usable, 32768, margin=want_m)
        for j, d in enumerate(fit["devices"]):
            c.check(d["overhead_bytes"] == want_m,
                    f"--margin {mg}: GPU{j} overhead {d['overhead_bytes']}, "
                    f"want {want_m}")
            c.check(d["free_bytes"] == mine[j]["free"],
                    f"--margin {mg}: GPU{j} free {d['free_bytes']}, want "
                    f"{mine[j]['free']} (usable - weights - KV - compute - "
                    f"margin)")
    for j in range(2):
        c.check(got[0]["devices"][j]["free_bytes"] -
                got[None]["devices"][j]["free_bytes"] == 1024 * MIB,
                f"--margin 0 frees exactly 1024 MiB on GPU{j}")
        c.check(got[512]["devices"][j]["free_bytes"] -
                got[None]["devices"][j]["free_bytes"] == 512 * MIB,
                f"--margin 512 frees exactly 512 MiB on GPU{j}")
    # text: the overhead segment says 0.00
    code, out, _ = run(binary, ["fit", "--no-color", fixture("llama-3.1-8b"),
                                "--margin", "0"] + base)
    c.check(out.count("overhead 0.00") == 2, "--margin 0: text overhead 0.00 "
            "on both GPUs")
    lines_ok(c, "--margin 0 text", out)
    # The context where the margin decides: one card, the first multiple
    # of 256 at which the default 1024 MiB no longer fits.
    one = [gpus["rtx-5060-ti"][0]]
    ctx = next(k for k in range(4096, 131073, 256)
               if not m.fits(m.evaluate([0] * 33, one, k)))
    c.check(m.fits(m.evaluate([0] * 33, one, ctx, margin=0)),
            f"precondition: llama-8b fits one card at {ctx} without margin")
    code, inp, _ = fit_json(binary, [fixture("llama-3.1-8b"), "--gpus",
                                     "rtx-5060-ti", "--ctx", str(ctx)])
    c.check(inp.get("fit", {}).get("verdict") == "does-not-fit" and code == 1,
            f"llama-8b one card at {ctx}: does-not-fit with the margin "
            f"(exit {code})")
    code, inp, _ = fit_json(binary, [fixture("llama-3.1-8b"), "--gpus",
                                     "rtx-5060-ti", "--ctx", str(ctx),
                                     "--margin", "0"])
    fit = inp.get("fit", {})
    c.check(fit.get("verdict") in ("fits", "tight") and code == 0 and
            "placement" not in fit,
            f"llama-8b one card at {ctx} --margin 0: fits, all on the GPU "
            f"({fit.get('verdict')}, exit {code})")


# ---- 2. check takes every fit option -----------------------------------

def check_options(c, binary, gpus):
    m = Model(fixture("llama-3.1-8b"))
    usable = [16 * 1024 * MIB - RESERVE] * 2
    split = m.default_split(usable)
    for ctx, n_seq, want_ctx in ((32768, 2, 32768), (30000, 3, 30720)):
        code, doc, err = run_json(binary, [
            "check", fixture("llama-3.1-8b"), "--gpus", "2x16G", "--ctx",
            str(ctx), "--kv", "q8_0", "--parallel", str(n_seq)])
        fit = doc["inputs"][0].get("fit") if doc.get("inputs") else None
        if not c.check(fit is not None, f"check --ctx {ctx} -np {n_seq}: fit "
                       f"object ({err[:200]})"):
            continue
        # KV by hand: 32 layers x 8 KV heads x 128 x (K and V) x 34/32
        # bytes (q8_0) x n_seq streams x pad256(pad256(ctx) / n_seq)
        cells = pad256(pad256(ctx) // n_seq)
        kv = 32 * 8 * 128 * 2 * 34 // 32 * n_seq * cells
        c.check(fit["context"] == want_ctx == n_seq * cells,
                f"check -np {n_seq}: context {fit['context']}, want "
                f"{want_ctx}")
        c.check((fit["kv_type_k"], fit["kv_type_v"]) == ("q8_0", "q8_0"),
                "check --kv q8_0: K and V q8_0")
        c.check(fit["totals"]["kv_bytes"] == kv,
                f"check -np {n_seq}: KV {fit['totals']['kv_bytes']}, want "
                f"{kv}")
        mine = m.evaluate(split, usable, ctx, n_seq, "q8_0")
        for j, d in enumerate(fit["devices"]):
            c.check(d["kv_bytes"] == mine[j]["kv"],
                    f"-np {n_seq}: GPU{j} KV {d['kv_bytes']}, want "
                    f"{mine[j]['kv']}")
            # the mask is per stream (llamacpp-memory-2.md 2.2)
            c.check(d["compute_bytes"] == mine[j]["c"],
                    f"-np {n_seq}: GPU{j} compute {d['compute_bytes']}, "
                    f"want {mine[j]['c']} (per-stream KQ mask)")
        c.check(code == 0 and fit["verdict"] == "fits",
                f"check -np {n_seq}: exit {code}, {fit['verdict']}")
    # --ubatch, --flash-attn, --margin, --mtp, --tensor-split in check
    code, doc, err = run_json(binary, [
        "check", fixture("llama-3.1-8b"), "--gpus", "2x16G", "--ctx", "32768",
        "--ubatch", "256", "--flash-attn", "on", "--margin", "0", "--mtp",
        "off", "--tensor-split", "1,1"])
    fit = doc["inputs"][0].get("fit") if doc.get("inputs") else None
    if c.check(code == 0 and fit is not None, f"check with every fit option: "
               f"exit {code} ({err[:200]})"):
        mine = m.evaluate(split, usable, 32768, margin=0, ub=256)
        for j, d in enumerate(fit["devices"]):
            c.check(d["compute_bytes"] == mine[j]["c"] and
                    d["overhead_bytes"] == 0,
                    f"check --ubatch 256 --margin 0: GPU{j} compute "
                    f"{d['compute_bytes']} want {mine[j]['c']}, overhead "
                    f"{d['overhead_bytes']}")
    # Without --ctx check searches the largest context: two cards hold the
    # trained context, one card less.
    code, doc, _ = run_json(binary, ["check", fixture("llama-3.1-8b"),
                                     "--gpus", "2x16G", "--kv", "q8_0",
                                     "--parallel", "2"])
    fit = doc["inputs"][0].get("fit", {})
    c.check(fit.get("context") == fit.get("max_context", {}).get("q8_0") ==
            m.n_ctx_train, f"check without --ctx on 2x16G: context "
            f"{fit.get('context')} = max q8_0 = trained {m.n_ctx_train}")
    c.check("QA4004" not in codes(doc["inputs"][0]),
            "no QA4004 at the trained context")
    one = [gpus["rtx-5060-ti"][0]]
    for mg in (None, 0):
        args = ["check", fixture("llama-3.1-8b"), "--gpus", "rtx-5060-ti"]
        if mg is not None:
            args += ["--margin", str(mg)]
        code, doc, _ = run_json(binary, args)
        inp = doc["inputs"][0]
        fit = inp.get("fit", {})
        want = m.max_context(one, margin=MARGIN if mg is None else 0)
        c.check(fit.get("context") == fit.get("max_context", {}).get("f16")
                == want, f"check one card margin {mg}: context "
                f"{fit.get('context')}, max f16 "
                f"{fit.get('max_context', {}).get('f16')}, want {want}")
        c.check(f"{want} of the trained 131072" in finding(inp, "QA4004"),
                f"QA4004 names {want}: {finding(inp, 'QA4004')[:120]}")
        c.check(code == 0, f"check one card: exit {code} (a warning)")


# ---- 3. the split --fit moves to ---------------------------------------

def edge_split(c, binary, gpus):
    """Two unequal GPUs whose split by usable memory (llama.cpp's default)
    overflows one of them while the pair has room:
    - Gemma-3-12B at its trained 131072 on a 16 GB and an 8 GB card: the
      8 GB one gets a third of the layers plus the output and the logits;
    - the Qwen3.6-27B-like GDN hybrid at 131072 on an RTX 5060 Ti and an
      RTX 3060 12 GB (both profiles carry a bandwidth, so the decode
      ceiling of the moved split is checked too)."""
    cases = [("gemma-3-12b", "16G,8G", 131072,
              [16 * 1024 * MIB - RESERVE, 8 * 1024 * MIB - RESERVE], None),
             ("qwen3.6-27b-like-mtp", "rtx-5060-ti+rtx-3060-12g", 131072,
              [gpus["rtx-5060-ti"][0], gpus["rtx-3060-12g"][0]],
              [gpus["rtx-5060-ti"][1], gpus["rtx-3060-12g"][1]])]
    for name, spec, ctx, usable, bws in cases:
        edge_split_one(c, binary, name, spec, ctx, usable, bws)


def edge_split_one(c, binary, name, spec, ctx, usable, bws):
    m = Model(fixture(name))
    default = m.default_split(usable)
    dflt = m.evaluate(default, usable, ctx)
    c.check(dflt[1]["free"] < 0 <= dflt[0]["free"] and
            sum(d["free"] for d in dflt) > 0,
            f"precondition {name} on {spec}: the default split overflows "
            f"GPU1 by {mib(-dflt[1]['free'])} MiB, the pair has "
            f"{mib(sum(d['free'] for d in dflt))} MiB free")
    split = m.greedy(usable, ctx)
    mine = m.evaluate(split, usable, ctx)
    want_ts = [split[:m.n_placed].count(j) for j in range(2)]
    c.check(m.fits(mine), f"precondition: the split {want_ts} fits")
    code, inp, err = fit_json(binary, [fixture(name), "--gpus", spec,
                                       "--ctx", str(ctx)])
    fit = inp.get("fit")
    if not c.check(fit is not None and "placement" in fit,
                   f"{name} on {spec}: a placement ({err[:200]})"):
        return
    pl = fit["placement"]
    c.check(fit["verdict"] in ("fits", "tight") and code == 0,
            f"{name} on {spec}: verdict {fit['verdict']}, exit {code}")
    # every block counts, nextn blocks included: load_tensors splits
    # n_layer_all + 1 units
    c.check(pl["tensor_split"] == want_ts and sum(pl["tensor_split"]) ==
            m.n_placed, f"tensor_split {pl['tensor_split']}, want {want_ts} "
            f"(sums to {m.n_placed} blocks)")
    c.check(pl["n_gpu_layers"] == -1 and pl["n_cpu_moe"] == 0 and
            pl["partial_offload"] is False and pl["host_cache_bytes"] == 0,
            f"all on the GPUs: {pl}")
    first = 0
    for j, d in enumerate(fit["devices"]):
        n = pl["tensor_split"][j]
        c.check(d["layers"] == [first, first + n - 1],
                f"GPU{j} layers {d['layers']}, want {first}-{first + n - 1}")
        first += n
        c.check(d["has_output"] == (j == 1), f"output on GPU1 only ({j})")
        c.check(d["free_bytes"] >= 0 and d["free_bytes"] == mine[j]["free"],
                f"GPU{j} free {d['free_bytes']}, want {mine[j]['free']} "
                f"(>= 0)")
        c.check(d["usable_bytes"] == usable[j], f"GPU{j} usable")
    got = fit["decode_tokens_per_s_max"]
    if bws:
        want = ceiling(mine, bws)
        c.check(got is not None and abs(got - want) <= 0.005 * want,
                f"{name} on {spec}: ceiling {got}, want {want:.3f} for the "
                f"moved split")
    else:
        c.check(got is None, "plain sizes: no decode ceiling")
    # The text line is a command llama.cpp takes: -ts counts the output
    # with its device (common/fit.cpp), and feeding it back through
    # --tensor-split gives the same layers.
    code, out, _ = run(binary, ["fit", "--no-color", fixture(name), "--gpus",
                                spec, "--ctx", str(ctx)])
    lines_ok(c, f"{name} on {spec} text", out)
    mt = re.search(r"placement \(as llama.cpp --fit chooses\): -c (\d+) "
                   r"-ts (\d+),(\d+)\n", out)
    ts = f"{want_ts[0]},{want_ts[1] + 1}"
    if c.check(mt is not None and mt.group(1) == str(ctx) and
               f"{mt.group(2)},{mt.group(3)}" == ts,
               f"text placement line -c {ctx} -ts {ts}: "
               f"{mt.group(0) if mt else out[:300]}"):
        code, again, _ = fit_json(binary, [fixture(name), "--gpus", spec,
                                           "--ctx", str(ctx),
                                           "--tensor-split", ts])
        c.check([d["layers"] for d in again["fit"]["devices"]] ==
                [d["layers"] for d in fit["devices"]] and
                "placement" not in again["fit"],
                f"--tensor-split {ts} reproduces the placement")
    # With the user's --tensor-split (by free memory) there is no search:
    # QA4001 on GPU1.
    code, inp, _ = fit_json(binary, [
        fixture(name), "--gpus", spec, "--ctx", str(ctx), "--tensor-split",
        f"{usable[0] // MIB},{usable[1] // MIB}"])
    c.check(inp["fit"]["verdict"] == "does-not-fit" and
            "placement" not in inp["fit"] and
            inp["fit"]["devices"][1]["free_bytes"] == dflt[1]["free"],
            "--tensor-split in usable proportions is the default split, "
            "not moved")


# ---- 4. partial offload ------------------------------------------------

def partial_moe(c, binary, gpus):
    """Qwen3-30B-A3B on one RTX 5060 Ti: 17 GiB of weights. --fit keeps
    the experts of the first K layers in host RAM; K is the smallest
    that fits."""
    m = Model(fixture("qwen3-30b-a3b"))
    one = [gpus["rtx-5060-ti"][0]]
    ctx = m.n_ctx_train
    all_gpu = [0] * (m.n_placed + 1)
    k = next(k for k in range(1, m.n_layer + 1)
             if m.fits(m.evaluate(all_gpu, one, ctx, cpu_exp=k)))
    at_k = m.evaluate(all_gpu, one, ctx, cpu_exp=k)[0]
    below = m.evaluate(all_gpu, one, ctx, cpu_exp=k - 1)[0]
    c.check(at_k["free"] >= 0 > below["free"],
            f"precondition: K={k} fits, K-1 does not")
    code, inp, err = fit_json(binary, [fixture("qwen3-30b-a3b"), "--gpus",
                                       "rtx-5060-ti"])
    fit = inp.get("fit")
    if not c.check(fit is not None and "placement" in fit,
                   f"qwen3-30b one card: placement ({err[:200]})"):
        return
    pl, d = fit["placement"], fit["devices"][0]
    c.check(fit["verdict"] == "does-not-fit" and code == 1,
            f"qwen3-30b one card: {fit['verdict']}, exit {code}")
    c.check(pl["partial_offload"] is True and pl["n_cpu_moe"] == k and
            pl["n_gpu_layers"] == -1,
            f"--n-cpu-moe {pl['n_cpu_moe']}, want {k} (partial)")
    c.check(d["weights_bytes"] == at_k["w"],
            f"weights left on the GPU {d['weights_bytes']}, want "
            f"{at_k['w']} (all but the experts of layers 0-{k - 1})")
    c.check(d["kv_bytes"] == at_k["kv"] and d["compute_bytes"] == at_k["c"]
            and d["free_bytes"] == at_k["free"] >= 0,
            f"KV {d['kv_bytes']}/{at_k['kv']} compute {d['compute_bytes']}/"
            f"{at_k['c']} free {d['free_bytes']}/{at_k['free']}")
    # the experts of one layer fewer on the host would not fit
    c.check(at_k["free"] - m.unit_exp[k - 1] < 0,
            f"moving layer {k - 1}'s experts ({m.unit_exp[k - 1]} B) back "
            f"overflows")
    c.check(fit["host_bytes"] == m.host + sum(m.unit_exp_file[:k]),
            f"host RAM {fit['host_bytes']}, want token_embd + experts of "
            f"{k} layers at file size "
            f"{m.host + sum(m.unit_exp_file[:k])}")
    short = -m.evaluate(all_gpu, one, ctx)[0]["free"]
    msg = finding(inp, "QA4001")
    c.check(f"--n-cpu-moe {k})" in msg and "GPU0 (rtx-5060-ti) needs "
            f"{mib(short)} MiB more" in msg and "margin included" in msg,
            f"QA4001 names GPU0, {mib(short)} MiB, the margin and "
            f"--n-cpu-moe {k}: {msg}")
    c.check(fit["decode_tokens_per_s_max"] is None,
            "no decode ceiling under partial offload")
    code, out, _ = run(binary, ["fit", "--no-color",
                                fixture("qwen3-30b-a3b"), "--gpus",
                                "rtx-5060-ti"])
    lines_ok(c, "qwen3-30b one card text", out)
    c.check(f"placement (as llama.cpp --fit chooses): -c {ctx} --n-cpu-moe "
            f"{k}\n" in out, "text placement line names --n-cpu-moe "
            "(no -ts on one GPU)")

    # Two unequal GPUs with room together but no whole-layer split:
    # experts of one layer to the host, and without overrides no
    # pipeline copies.
    usable = [16 * 1024 * MIB - RESERVE, 8 * 1024 * MIB - RESERVE]
    ctx = 32768
    full = m.greedy(usable, ctx)
    over = m.evaluate(full, usable, ctx)
    c.check(not m.fits(over) and sum(d["free"] for d in
                                     m.evaluate(m.default_split(usable),
                                                usable, ctx)) > 0,
            "precondition: room together, no whole-layer split")
    k = next(k for k in range(1, m.n_layer + 1)
             if m.fits(m.evaluate(m.greedy(usable, ctx, cpu_exp=k), usable,
                                  ctx, cpu_exp=k)))
    split = m.greedy(usable, ctx, cpu_exp=k)
    mine = m.evaluate(split, usable, ctx, cpu_exp=k)
    code, inp, _ = fit_json(binary, [fixture("qwen3-30b-a3b"), "--gpus",
                                     "16G,8G", "--ctx", str(ctx)])
    fit = inp["fit"]
    pl = fit.get("placement", {})
    c.check(pl.get("n_cpu_moe") == k and pl.get("tensor_split") ==
            [split[:m.n_placed].count(j) for j in range(2)],
            f"16G,8G: --n-cpu-moe {pl.get('n_cpu_moe')} (want {k}), split "
            f"{pl.get('tensor_split')}")
    for j, d in enumerate(fit["devices"]):
        c.check(d["compute_bytes"] == mine[j]["c"] and
                d["free_bytes"] == mine[j]["free"],
                f"16G,8G GPU{j}: compute {d['compute_bytes']} (want "
                f"{mine[j]['c']}, no pipeline copies with overrides), free "
                f"{d['free_bytes']} (want {mine[j]['free']})")
    worst = min(range(2), key=lambda j: over[j]["free"])
    msg = finding(inp, "QA4001")
    c.check(f"GPU{worst} (" in msg and f"{mib(-over[worst]['free'])} MiB "
            "more" in msg and "0.00 MiB" not in msg,
            f"QA4001 names the GPU the whole-layer split leaves short: {msg}")


def partial_dense(c, binary, gpus):
    """Llama-3.1-8B at 131072 on an 8 GB card: the first layers (and
    their KV) stay in host RAM, -ngl the rest."""
    m = Model(fixture("llama-3.1-8b"))
    one = [8 * 1024 * MIB - RESERVE]
    ctx = 131072
    n_u = m.n_placed + 1
    host = next(h for h in range(1, m.n_layer + 1)
                if m.fits(m.evaluate([-1] * h + [0] * (n_u - h), one, ctx)))
    at = m.evaluate([-1] * host + [0] * (n_u - host), one, ctx)[0]
    code, inp, err = fit_json(binary, [fixture("llama-3.1-8b"), "--gpus",
                                       "8G", "--ctx", str(ctx)])
    fit = inp.get("fit", {})
    pl = fit.get("placement", {})
    c.check(fit.get("verdict") == "does-not-fit" and code == 1 and
            pl.get("partial_offload") is True and pl.get("n_cpu_moe") == 0
            and pl.get("n_gpu_layers") == n_u - host,
            f"llama-8b 8G 131072: -ngl {pl.get('n_gpu_layers')}, want "
            f"{n_u - host} ({err[:200]})")
    d = fit["devices"][0]
    c.check(d["layers"] == [host, m.n_layer - 1] and
            d["free_bytes"] == at["free"] >= 0,
            f"layers {d['layers']} free {d['free_bytes']}, want "
            f"[{host}, {m.n_layer - 1}] {at['free']}")
    c.check(m.evaluate([-1] * (host - 1) + [0] * (n_u - host + 1), one,
                       ctx)[0]["free"] < 0, "one layer more does not fit")
    host_kv = sum(m.layer_kv(l, ctx) for l in range(host))
    c.check(pl.get("host_cache_bytes") == host_kv,
            f"host cache {pl.get('host_cache_bytes')}, want {host_kv}")
    c.check(fit["host_bytes"] == m.host + sum(m.unit_file[:host]),
            f"host RAM {fit['host_bytes']}, want "
            f"{m.host + sum(m.unit_file[:host])} (file sizes)")
    msg = finding(inp, "QA4001")
    c.check(f"-ngl {n_u - host})" in msg and "GPU0 (8GiB)" in msg,
            f"QA4001 names GPU0 and -ngl {n_u - host}: {msg}")


# ---- 5. incomplete weights ---------------------------------------------

def incomplete(c, binary):
    fx = env_path("QA_FIXTURES")
    tmp = tempfile.mkdtemp(prefix="qa-fit-edge-")
    try:
        shutil.copy(os.path.join(fx, "hub", "granite-4.0-h-micro",
                                 "config.json"), tmp)
        split = os.path.join(fx, "gguf", "split-missing")
        cases = [
            (split, "1 weight file of the set is missing"),
            (os.path.join(split, "tiny-00001-of-00003.gguf"),
             "1 weight file of the set is missing"),
            (tmp, "holds only its configuration"),
        ]
        for path, why in cases:
            code, inp, err = fit_json(binary, [path, "--gpus", "2x16G"])
            c.check(code == 3, f"fit {os.path.basename(path)}: exit {code}, "
                    f"want 3 (cannot be sized)")
            c.check("fit" not in inp and why in inp.get("fit_error", ""),
                    f"fit {os.path.basename(path)}: no fit object, fit_error "
                    f"says '{why}': {inp.get('fit_error')}")
            code, out, err = run(binary, ["fit", "--no-color", path, "--gpus",
                                          "2x16G"])
            lines_ok(c, f"fit {os.path.basename(path)} text", out)
            lines = out.splitlines()
            at = next((i for i, ln in enumerate(lines)
                       if ln.startswith("VRAM fit")), None)
            c.check(at is not None and "not computed" in lines[at] and
                    not any(re.match(r"(error|warning) \[", ln)
                            for ln in lines[:at]) and
                    not any(ln.startswith(("|", "decode ceiling",
                                           "max context", "totals"))
                            for ln in lines),
                    f"text says 'not computed' first, and no bars: {out}")
            section = " ".join(" ".join(lines[at:at + 4]).split()) \
                if at is not None else ""
            c.check(why in section, f"text gives the reason: {out[:300]}")
            # issue 35: the reason is in the report, so it is said once
            c.check(why not in err, f"stderr repeats the reason: {err[:200]}")
            rep = os.path.join(tmp, "fit-report.txt")
            code, out, err = run(binary, ["fit", "--no-color", "-o", rep,
                                          path, "--gpus", "2x16G"])
            c.check(code == 3 and why in err,
                    f"fit -o FILE: exit {code}; stderr gives the reason "
                    f"when the report is not on stdout: {err[:200]}")
            # check with --gpus: the missing files are findings (exit 1)
            code, doc, _ = run_json(binary, ["check", path, "--gpus",
                                             "2x16G"])
            inp = doc["inputs"][0]
            c.check(code == 1 and "fit" not in inp and "fit_error" in inp,
                    f"check {os.path.basename(path)}: exit {code}, fit_error")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---- 6. decode ceiling -------------------------------------------------

def ceiling(devs, bws):
    return 1.0 / sum(d["read"] / (bw * 1e9) for d, bw in zip(devs, bws))


def decode_cases(c, binary, gpus):
    cases = [("llama-3.1-8b", ["rtx-5060-ti"] * 2, 32768, False),
             ("qwen3-30b-a3b", ["rtx-5060-ti"] * 2, 32768, False),
             ("qwen3.6-27b-like-mtp", ["rtx-5060-ti"] * 2, 32768, False),
             ("qwen3.6-27b-like-mtp", ["rtx-5060-ti"] * 2, 32768, True),
             ("llama-3.1-8b", ["rtx-4090", "rtx-3060-12g"], 65536, False)]
    for name, cards, ctx, mtp in cases:
        m = Model(fixture(name), mtp=mtp)
        usable = [gpus[x][0] for x in cards]
        bws = [gpus[x][1] for x in cards]
        split = m.default_split(usable)
        devs = m.evaluate(split, usable, ctx)
        want = ceiling(devs, bws)
        spec = "+".join(cards)
        code, inp, err = fit_json(binary, [fixture(name), "--gpus", spec,
                                           "--ctx", str(ctx), "--mtp",
                                           "on" if mtp else "off"])
        fit = inp.get("fit", {})
        got = fit.get("decode_tokens_per_s_max")
        c.check(m.fits(devs) and fit.get("verdict") in ("fits", "tight") and
                got is not None and abs(got - want) <= 0.005 * want,
                f"{name} on {spec} mtp {mtp}: ceiling {got}, want "
                f"{want:.3f} tokens/s (bandwidth / bytes per token)")
        code, out, _ = run(binary, ["fit", "--no-color", fixture(name),
                                    "--gpus", spec, "--ctx", str(ctx),
                                    "--mtp", "on" if mtp else "off"])
        lines_ok(c, f"{name} on {spec} text", out)
        flat = " ".join(out.split())
        c.check(f"decode ceiling: {want:.1f} tokens/s at context {ctx}" in
                flat or (got is not None and
                         f"decode ceiling: {got:.1f} tokens/s at context "
                         f"{ctx}" in flat),
                f"text ceiling at context {ctx}: "
                f"{re.findall(r'decode ceiling:[^.]*', out)}")
        has_mtp = name.endswith("mtp")
        spec_note = "speculative decoding accepts several tokens" in flat
        c.check(spec_note == (has_mtp and not mtp),
                f"{name} mtp {mtp}: speculative-decoding note shown "
                f"{spec_note}, model has an MTP head {has_mtp}")
        if mtp:
            # Qwen3.6 drafts accepted 75 %, 47 %, 27 % per position
            # (src/fit/decode.c): 2.49 tokens per pass of the dense
            # trunk plus 3 draft steps (llama.cpp's n_max default)
            per_pass = 1 + 0.75 + 0.47 + 0.27
            t = sum((d["read"] + 3 * d["draft"]) / (bw * 1e9)
                    for d, bw in zip(devs, bws))
            want_mtp = per_pass / t
            sp = fit.get("speculative", {})
            got_mtp = sp.get("decode_tokens_per_s_max")
            c.check(sp.get("draft_tokens") == 3 and
                    abs(sp.get("tokens_per_pass", 0) - per_pass) < 1e-4 and
                    got_mtp is not None and
                    abs(got_mtp - want_mtp) <= 0.005 * want_mtp,
                    f"{name} MTP ceiling {got_mtp}, want {want_mtp:.3f} "
                    f"({sp})")
            c.check(f"with MTP drafts (3 per step, {per_pass:.2f} tokens "
                    f"per verification pass expected): {want_mtp:.1f}"
                    in flat or (got_mtp is not None and
                                f"expected): {got_mtp:.1f}" in flat),
                    f"{name}: text MTP ceiling: {flat[-300:]}")
    # does not fit: null, and the text says none
    code, out, _ = run(binary, ["fit", "--no-color", fixture("gemma-3-12b"),
                                "--gpus", "8G"])
    c.check("decode ceiling: none (it does not fit)" in out,
            "text: no ceiling when it does not fit")
    code, inp, _ = fit_json(binary, [fixture("gemma-3-12b"), "--gpus", "8G"])
    c.check(inp["fit"]["verdict"] == "does-not-fit" and
            inp["fit"]["decode_tokens_per_s_max"] is None,
            "JSON: decode_tokens_per_s_max null when it does not fit")
    # plain sizes carry no bandwidth
    code, out, _ = run(binary, ["fit", "--no-color",
                                fixture("llama-3.1-8b"), "--gpus", "2x16G",
                                "--ctx", "32768"])
    c.check("decode ceiling: unknown" in out, "plain sizes: ceiling unknown")


# ---- 7. QA4001 / QA4002 name the GPU and the margin --------------------

def margin_phrase(over, margin):
    """What QA4001 says about the margin (docs/fit.md: the GPU index and
    whether the margin is in the shortfall)."""
    if margin == 0:
        return "with no margin kept free"
    if over > margin:
        return (f"keeping the {margin // MIB} MiB margin free "
                f"({mib(over - margin)} MiB more without it)")
    return (f"keeping the {margin // MIB} MiB margin free (without it "
            f"{mib(margin - over)} MiB would stay free)")


def messages(c, binary, gpus):
    """QA4001 (a user's --tensor-split: no search) and QA4002 name the
    GPU by index and say whether the margin is in the number."""
    m = Model(fixture("gemma-3-12b"))
    usable = [16 * 1024 * MIB - RESERVE, 8 * 1024 * MIB - RESERVE]
    n_u = m.n_placed + 1
    # everything on GPU0 ("1,0"): the first context it overflows by less
    # than the margin
    all0 = [0] * n_u
    near = next(k for k in range(4096, 131073, 256)
                if m.evaluate(all0, usable, k)[0]["free"] < 0)
    for ts, ctx, mg in (("1,1", 131072, 1024), ("1,1", 131072, 0),
                        ("1,0", 131072, 1024), ("1,0", near, 1024)):
        a, b = (int(x) for x in ts.split(","))
        split = [0 if i / n_u < a / (a + b) else 1 for i in range(n_u)]
        devs = m.evaluate(split, usable, ctx, margin=mg * MIB)
        worst = min(range(2), key=lambda j: devs[j]["free"])
        over = -devs[worst]["free"]
        code, inp, _ = fit_json(binary, [fixture("gemma-3-12b"), "--gpus",
                                         "16G,8G", "--ctx", str(ctx),
                                         "--tensor-split", ts, "--margin",
                                         str(mg)])
        msg = finding(inp, "QA4001")
        name = "16GiB" if worst == 0 else "8GiB"
        want = (f"GPU{worst} ({name}) needs {mib(over)} MiB more than its "
                f"{mib(usable[worst])} usable MiB at context {ctx} "
                f"(KV f16/f16), {margin_phrase(over, mg * MIB)};")
        c.check(over > 0 and code == 1 and want in msg,
                f"-ts {ts} -c {ctx} --margin {mg}: QA4001 '{want}' in "
                f"'{msg}'")
    # QA4002: one card, the largest context where it keeps under 10 % free
    ll = Model(fixture("llama-3.1-8b"))
    one = [gpus["rtx-5060-ti"][0]]
    for mg in (1024, 0):
        tight = max(k for k in range(4096, 131073, 256)
                    if 0 <= ll.evaluate([0] * 33, one, k,
                                        margin=mg * MIB)[0]["free"]
                    < one[0] // 10)
        free = ll.evaluate([0] * 33, one, tight, margin=mg * MIB)[0]["free"]
        code, inp, _ = fit_json(binary, [fixture("llama-3.1-8b"), "--gpus",
                                         "rtx-5060-ti", "--ctx", str(tight),
                                         "--margin", str(mg)])
        msg = finding(inp, "QA4002")
        tail = f"beyond the {mg} MiB margin" if mg else \
            ", with no margin kept free"
        c.check(inp["fit"]["verdict"] == "tight" and code == 0 and
                f"GPU0 (rtx-5060-ti) keeps only {mib(free)} MiB free at "
                f"context {tight}" in msg and msg.endswith(tail),
                f"QA4002 at {tight}, margin {mg}: {msg}")
        code, out, _ = run(binary, ["fit", "--no-color",
                                    fixture("llama-3.1-8b"), "--gpus",
                                    "rtx-5060-ti", "--ctx", str(tight),
                                    "--margin", str(mg)])
        lines_ok(c, "QA4002 text", out)


def text_widths(c, binary):
    """Every text line within 80 columns, also for many devices and the
    longest placement lines."""
    runs = [
        ["fit", fixture("llama-3.1-8b"), "--gpus", "8x3G", "--ctx", "65536"],
        ["fit", fixture("qwen3-30b-a3b"), "--gpus", "4x4G"],
        ["fit", fixture("qwen3-30b-a3b"), "--gpus", "rtx-5060-ti+8G"],
        ["fit", fixture("nemotron-nano-9b-v2"), "--gpus", "8G", "--ctx",
         "131072"],
        ["fit", fixture("lfm2-1.2b"), "--gpus", "rtx-3060-12g", "--parallel",
         "8"],
        ["fit", fixture("deepseek-v2-lite"), "--gpus", "rtx-5060-ti"],
        ["fit", fixture("qwen3.6-27b-like-mtp"), "--gpus", "rtx-5060-ti",
         "--mtp", "on"],
        ["check", fixture("gemma-3-12b"), "--gpus", "rtx-3060-12g+8G"],
    ]
    for args in runs:
        code, out, err = run(binary, args[:1] + ["--no-color"] + args[1:])
        c.check(code in (0, 1), f"{' '.join(args)}: exit {code} "
                f"{err[:200]}")
        lines_ok(c, " ".join(a if "/" not in a else os.path.basename(a)
                             for a in args), out)


RESERVE = 560 * MIB


def main():
    global RESERVE
    binary = sys.argv[1]
    root = env_path("QA_SOURCE_ROOT")
    c = Checker()
    gpus, reserve = gpu_table(root)
    if not c.check(reserve is not None and "rtx-5060-ti" in gpus,
                   "rules/gpus.def and gpuspec.h read"):
        c.finish()
    RESERVE = reserve
    # the rtx-5060-ti row: 15751 usable MiB, 448 GB/s
    c.check(gpus["rtx-5060-ti"] == (15751 * MIB, 448),
            f"rtx-5060-ti profile {gpus['rtx-5060-ti']}")
    margin_cases(c, binary, gpus)
    check_options(c, binary, gpus)
    edge_split(c, binary, gpus)
    partial_moe(c, binary, gpus)
    partial_dense(c, binary, gpus)
    incomplete(c, binary)
    decode_cases(c, binary, gpus)
    messages(c, binary, gpus)
    text_widths(c, binary)
    c.finish()


if __name__ == "__main__":
    main()
