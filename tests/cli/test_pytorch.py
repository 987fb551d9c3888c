# SPDX-License-Identifier: MIT
"""PyTorch checkpoints and the pickle walker against independent readers.

The fixtures are written without torch (fixtures/gen/gen_pt.c). Three
things are checked here with Python's own pickle, pickletools and zipfile,
never with quantaudit's output alone:

1. Bytes. Every benign fixture has a recipe (OUTDIR/pt-recipes/*.json):
   the object tree and storages it was written from. The tree is rebuilt
   with stand-in classes named like torch's (torch._utils.
   _rebuild_tensor_v2, torch.HalfStorage...) whose tensors reduce as
   torch/_tensor.py reduces them, and pickled with CPython's
   pickle.Pickler(protocol=2) and torch.save's persistent_id
   (torch/serialization.py _save, _legacy_save). The result must equal
   the fixture's data.pkl byte for byte (the legacy files: the whole
   file). The zip is read with a small parser of this file against the
   layout PyTorchStreamWriter and miniz write (data aligned to 64 bytes by
   an FB extra field, data descriptors, zip64 end records), and with
   zipfile (CRCs, names).
2. Inventory. The tensors are computed from the bytes: the recipe's
   names, the storage classes' dtypes, the member data offsets zipfile
   reports (legacy: where pickle.load leaves the stream, as torch's
   _legacy_load reads storages), and compared with quantaudit's JSON.
3. Verdicts. Every file of pt/malicious/ gets at least one security
   finding at error severity and exit 1 (zero false negatives); no benign
   file gets a security finding. The offset of each QA1601/QA1602 global
   finding in the dangerous-global files is where pickletools.genops
   finds a GLOBAL opcode. zipfile disagrees with torch on the zip quirks
   the way the advisories say (duplicate data.pkl, CRC, header names).
"""
import collections
import io
import json
import os
import pickle
import pickletools
import shutil
import struct
import subprocess
import sys
import tempfile
import types
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path, run_json  # noqa: E402

# ---- stand-ins for torch's classes ---------------------------------------

torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
sys.modules["torch"] = torch
sys.modules["torch._utils"] = torch_utils


def _rebuild_tensor_v2(*args):
    raise AssertionError("never called")


def _rebuild_tensor_v3(*args):
    raise AssertionError("never called")


for _f in (_rebuild_tensor_v2, _rebuild_tensor_v3):
    _f.__module__ = "torch._utils"
    setattr(torch_utils, _f.__name__, _f)

STORAGE_DTYPES = {  # class: (dtype as quantaudit names it, bytes)
    "DoubleStorage": ("F64", 8), "FloatStorage": ("F32", 4),
    "HalfStorage": ("F16", 2), "BFloat16Storage": ("BF16", 2),
    "LongStorage": ("I64", 8), "IntStorage": ("I32", 4),
    "ShortStorage": ("I16", 2), "CharStorage": ("I8", 1),
    "ByteStorage": ("U8", 1), "BoolStorage": ("BOOL", 1),
    "UntypedStorage": ("U8", 1),
}
V3_DTYPES = {"float8_e4m3fn": ("F8_E4M3", 1), "float8_e5m2": ("F8_E5M2", 1)}

for _name in STORAGE_DTYPES:
    _cls = type(_name, (), {})
    _cls.__module__ = "torch"
    setattr(torch, _name, _cls)


class FakeDtype:
    """A torch.dtype: pickled as the global torch.<name>."""

    def __init__(self, name):
        self.name = name
        self.__module__ = "torch"

    def __reduce__(self):
        return self.name


for _name in V3_DTYPES:
    setattr(torch, _name, FakeDtype(_name))


class Storage:
    def __init__(self, spec):
        self.cls = getattr(torch, spec["class"])
        self.key = spec["key"]
        self.numel = spec["numel"]


class Tensor:
    """Reduces as torch/_tensor.py _reduce_ex_internal does."""

    def __init__(self, node, storages):
        self.storage = storages[node["storage"]]
        self.node = node

    def __reduce_ex__(self, proto):
        n = self.node
        args = (self.storage, n["offset"], tuple(n["shape"]),
                tuple(n["stride"]), False, collections.OrderedDict())
        if "dtype" in n:
            return (_rebuild_tensor_v3, args + (getattr(torch, n["dtype"]),))
        return (_rebuild_tensor_v2, args)


def build(node, storages):
    t = node["t"]
    if t == "none":
        return None
    if t == "bool":
        return bool(node["v"])
    if t in ("int", "float"):
        return node["v"]
    if t == "str":
        return node["v"]
    if t == "istr":
        return sys.intern(node["v"])
    if t == "list":
        return [build(x, storages) for x in node["items"]]
    if t == "tuple":
        return tuple(build(x, storages) for x in node["items"])
    if t in ("dict", "odict"):
        d = {} if t == "dict" else collections.OrderedDict()
        it = node["items"]
        for i in range(0, len(it), 2):
            d[build(it[i], storages)] = build(it[i + 1], storages)
        if t == "odict" and "state" in node:
            for k, v in build(node["state"], storages).items():
                setattr(d, k, v)
        return d
    if t == "tensor":
        return Tensor(node, storages)
    raise AssertionError(f"recipe node {t}")


def pickle_like_torch(obj, legacy):
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)

    def persistent_id(o):
        if isinstance(o, Storage):
            if legacy:
                return ("storage", o.cls, o.key, "cpu", o.numel, None)
            return ("storage", o.cls, o.key, "cpu", o.numel)
        return None

    p.persistent_id = persistent_id
    p.dump(obj)
    return buf.getvalue()


def legacy_bytes(recipe, obj):
    """_legacy_save, without torch."""
    out = io.BytesIO()
    pickle.dump(0x1950a86a20f9469cfc6c, out, protocol=2)
    pickle.dump(1001, out, protocol=2)
    pickle.dump(dict(protocol_version=1001, little_endian=True,
                     type_sizes=dict(short=2, int=4, long=4)), out,
                protocol=2)
    out.write(pickle_like_torch(obj, True))
    keys = sorted(s["key"] for s in recipe["storages"])
    pickle.dump(keys, out, protocol=2)
    by_key = {s["key"]: (i, s) for i, s in enumerate(recipe["storages"])}
    for k in keys:
        i, s = by_key[k]
        n = s["numel"] * s["elem"]
        out.write(struct.pack("<q", s["numel"]))
        out.write(bytes((j * 31 + i * 7) % 61 for j in range(n)))
    return out.getvalue()


# ---- the zip as torch writes it ------------------------------------------

def torch_zip_layout(c, path, data):
    """Checks every record against PyTorchStreamWriter + miniz; returns
    {name: (data offset, size)}."""
    members = {}
    eocd = data.rfind(b"PK\x05\x06")
    c.check(eocd > 0 and eocd + 22 == len(data),
            f"{path}: end-of-central-directory record ends the file")
    loc = eocd - 20
    c.check(data[loc:loc + 4] == b"PK\x06\x07",
            f"{path}: zip64 locator before the end record (miniz zip64)")
    z64 = struct.unpack_from("<Q", data, loc + 8)[0]
    c.check(data[z64:z64 + 4] == b"PK\x06\x06",
            f"{path}: zip64 end record where the locator points")
    n, cd_size, cd_off = struct.unpack_from("<QQQ", data, z64 + 32)
    pos = cd_off
    for _ in range(n):
        c.check(data[pos:pos + 4] == b"PK\x01\x02",
                f"{path}: central entry at {pos}")
        (flags, method, _, _, crc, csize, usize, nl, xl,
         cl) = struct.unpack_from("<HHHHIIIHHH", data, pos + 8)
        lho = struct.unpack_from("<I", data, pos + 42)[0]
        name = data[pos + 46:pos + 46 + nl].decode()
        pos += 46 + nl + xl + cl
        lh = struct.unpack_from("<IHHHHHIIIHH", data, lho)
        c.check(lh[0] == 0x04034b50 and lh[1] == 0 and lh[3] == 0,
                f"{path} {name}: local header, version 0, stored")
        c.check(lh[2] == (0x0808 if usize else 0x0800) == flags,
                f"{path} {name}: flags 0x0808 (descriptor, UTF-8)")
        c.check(lh[6:9] == (0, 0, 0),
                f"{path} {name}: CRC and sizes left to the descriptor")
        lnl, lxl = lh[9], lh[10]
        extra = data[lho + 30 + lnl:lho + 30 + lnl + lxl]
        start = lho + 30 + lnl + lxl
        c.check(extra[:2] == b"FB" and
                struct.unpack_from("<H", extra, 2)[0] == lxl - 4 and
                extra[4:] == b"Z" * (lxl - 4) and start % 64 == 0,
                f"{path} {name}: FB padding aligns the data to 64")
        if usize:
            dd = struct.unpack_from("<IIII", data, start + csize)
            c.check(dd == (0x08074b50, crc, csize, usize),
                    f"{path} {name}: data descriptor after the data")
        members[name] = (start, usize)
    order = [m for m in members]
    c.check(order[0] == "archive/data.pkl" and
            order[1:4] == ["archive/.format_version",
                           "archive/.storage_alignment", "archive/byteorder"]
            and order[-2:] == ["archive/version",
                               "archive/.data/serialization_id"],
            f"{path}: records in torch.save's order ({order})")
    with zipfile.ZipFile(path) as z:
        c.check(z.testzip() is None, f"{path}: zipfile finds every CRC right")
        c.check(z.namelist() == order, f"{path}: zipfile lists the records")
    return members


# ---- expected inventory --------------------------------------------------

def expected_tensors(recipe, offsets):
    """(name, dtype, shape, bytes, offset) of the state dict's tensors:
    the root's own tensors, or those under its 'model' key."""
    root = recipe["root"]
    items = root["items"]
    pairs = [(items[i], items[i + 1]) for i in range(0, len(items), 2)]
    if not any(v["t"] == "tensor" for _, v in pairs):
        pairs = [p for k, v in pairs if k.get("v") == "model"
                 for p in zip(v["items"][0::2], v["items"][1::2])]
    out = []
    for k, v in pairs:
        if v["t"] != "tensor":
            continue
        st = recipe["storages"][v["storage"]]
        dtype, size = (V3_DTYPES[v["dtype"]] if "dtype" in v
                       else STORAGE_DTYPES[st["class"]])
        n = 1
        for d in v["shape"]:
            n *= d
        out.append((k["v"], dtype, v["shape"], n * size,
                    offsets[st["key"]] + v["offset"] * size))
    return out


def legacy_offsets(path):
    """Storage data offsets as torch's _legacy_load finds them: after the
    five pickles, each storage's int64 count, then its bytes."""
    ids = {}

    class U(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("collections", "OrderedDict"):
                return collections.OrderedDict
            if module == "torch":
                return f"{module}.{name}"	# storage classes
            return lambda *a: (f"{module}.{name}", a)

        def persistent_load(self, pid):
            ids[pid[2]] = pid
            return pid[2]

    with open(path, "rb") as f:
        for _ in range(3):
            pickle.load(f)
        U(f).load()
        keys = pickle.load(f)
        offsets = {}
        for k in keys:
            numel = struct.unpack("<q", f.read(8))[0]
            offsets[k] = f.tell()
            elem = STORAGE_DTYPES[ids[k][1].split(".")[-1]][1]
            f.seek(numel * elem, 1)
        return offsets


def audit_tensors(binary, path):
    """The tensors quantaudit lists from path itself (a shard stands for
    its whole set)."""
    code, doc, err = run_json(binary, ["tensors", path])
    inp = doc["inputs"][0]
    return {t["name"]: t for t in inp["tensors"]
            if os.path.basename(t["file"]) == os.path.basename(path)}, code


# ---- checkpoints written by torch itself (when a torch is installed) -----

# Run by a Python that has torch (Debian's python3-torch, or pip's): writes
# real checkpoints into argv[1] with torch.save / torch.jit.save, as
# transformers' save_pretrained(safe_serialization=False) and training
# scripts do, and prints what torch itself says about each state dict.
TORCH_WRITER = r"""
import json, os, sys, torch, torch.nn as nn
out = sys.argv[1]
torch.manual_seed(0)

class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(8, 4)
        self.q_proj = nn.Linear(4, 4, bias=False)
        self.norm = nn.LayerNorm(4)
        self.lm_head = nn.Linear(4, 8, bias=False)
        self.lm_head.weight = self.embed_tokens.weight    # tied
        self.register_buffer("position_ids", torch.arange(6))
    def forward(self, x):
        return self.lm_head(self.norm(self.q_proj(self.embed_tokens(x))))

m = Tiny()
facts = {"torch": torch.__version__, "files": {}}
def note(name, sd):
    facts["files"][name] = {k: [str(v.dtype).replace("torch.", ""),
                                list(v.shape)] for k, v in sd.items()}
def save(name, obj, sd, **kw):
    torch.save(obj, os.path.join(out, name), **kw)
    note(name, sd)

sd = m.state_dict()
save("state-dict.pt", sd, sd)
save("legacy.pt", sd, sd, _use_new_zipfile_serialization=False)
half = {k: v.half() if v.is_floating_point() else v for k, v in sd.items()}
save("pytorch_model.bin", half, half)
x = torch.arange(32, dtype=torch.bfloat16).reshape(4, 8)
views = {"a": x, "b": x[1:3, 2:6], "c": x.t(), "d": x[:, 1],
         "i8": torch.ones(3, dtype=torch.int8),
         "flag": torch.zeros(2, dtype=torch.bool),
         "f64": torch.zeros(2, 2, dtype=torch.float64)}
save("views.pt", views, views)
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
m(torch.tensor([1, 2])).sum().backward()
opt.step()
save("training.pt", {"model": m.state_dict(), "optimizer": opt.state_dict(),
                     "epoch": 3, "loss": 0.25}, m.state_dict())
# a sharded folder as save_pretrained(safe_serialization=False) writes it
os.makedirs(os.path.join(out, "sharded"))
keys = list(half)
shards = {"pytorch_model-00001-of-00002.bin": keys[:3],
          "pytorch_model-00002-of-00002.bin": keys[3:]}
wm, total = {}, 0
for fname, ks in shards.items():
    part = {k: half[k] for k in ks}
    torch.save(part, os.path.join(out, "sharded", fname))
    for k in ks:
        wm[k] = fname
total = sum(v.numel() * v.element_size() for v in half.values())
with open(os.path.join(out, "sharded", "pytorch_model.bin.index.json"),
          "w") as f:
    json.dump({"metadata": {"total_size": total}, "weight_map": wm}, f)
note("sharded", half)
# not weights: a whole pickled module, and a TorchScript program
torch.save(m, os.path.join(out, "whole-module.pt"))
torch.jit.save(torch.jit.script(nn.Linear(4, 2)),
               os.path.join(out, "scripted.pt"))
print(json.dumps(facts))
"""

# torch.load(weights_only=True) of each benign generated zip, then
# torch.save of what it loaded: the data.pkl must come back byte for byte
# (files this torch cannot load, such as float8 before torch 2.1, are
# reported as such and not compared).
TORCH_ROUNDTRIP = r"""
import io, json, sys, zipfile, torch
res = {}
for path in sys.argv[1:]:
    try:
        obj = torch.load(path, weights_only=True)
    except Exception as e:
        res[path] = "unloadable: " + str(e).splitlines()[-1][:120]
        continue
    buf = io.BytesIO()
    torch.save(obj, buf)
    def pkl(z):
        return z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0])
    same = pkl(zipfile.ZipFile(buf)) == pkl(zipfile.ZipFile(path))
    res[path] = "same" if same else "differs"
print(json.dumps(res))
"""

TORCH_DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16",
                "float64": "F64", "int64": "I64", "int8": "I8",
                "bool": "BOOL"}


def torch_python():
    """A Python that can import torch, or None."""
    for py in (sys.executable, "/usr/bin/python3"):
        if not os.path.exists(py):
            continue
        try:
            subprocess.run([py, "-c", "import torch"], check=True,
                           capture_output=True, timeout=300)
            return py
        except (subprocess.SubprocessError, OSError):
            continue
    return None


class RebuildReader(pickle.Unpickler):
    """Reads a data.pkl without torch: a tensor becomes (storage key,
    storage offset); persistent ids are recorded."""

    def __init__(self, f):
        super().__init__(f)
        self.pids = {}

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda st, off, *rest: ("tensor", st, off)
        if (module, name) == ("torch._utils", "_rebuild_parameter"):
            return lambda t, *rest: t
        if module == "torch":
            return f"torch.{name}"
        raise pickle.UnpicklingError(f"unexpected global {module}.{name}")

    def persistent_load(self, pid):
        self.pids[pid[2]] = pid
        return pid[2]


def zip_tensor_offsets(path):
    """{name: absolute offset} of a torch zip's state dict, from its
    data.pkl (read by RebuildReader) and zipfile's member offsets."""
    with open(path, "rb") as fh:
        raw = fh.read()
    with zipfile.ZipFile(path) as z:
        pkl = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
        folder = pkl[:-len("data.pkl")]
        r = RebuildReader(io.BytesIO(z.read(pkl)))
        sd = r.load()
        if isinstance(sd.get("model"), dict):	# a training checkpoint
            sd = sd["model"]
        out = {}
        for name, (_, key, off) in sd.items():
            info = z.getinfo(folder + "data/" + key)
            nl, xl = struct.unpack_from("<HH", raw, info.header_offset + 26)
            elem = STORAGE_DTYPES[r.pids[key][1].split(".")[-1]][1]
            out[name] = info.header_offset + 30 + nl + xl + off * elem
        return out


def legacy_tensor_offsets(path):
    """{name: absolute offset} of a legacy checkpoint's state dict, the
    way _legacy_load reads it."""
    with open(path, "rb") as f:
        for _ in range(3):
            pickle.load(f)
        r = RebuildReader(f)
        sd = r.load()
        keys = pickle.load(f)
        where = {}
        for k in keys:
            numel = struct.unpack("<q", f.read(8))[0]
            where[k] = f.tell()
            f.seek(numel * STORAGE_DTYPES[r.pids[k][1].split(".")[-1]][1], 1)
    return {name: where[key] + off * STORAGE_DTYPES[
        r.pids[key][1].split(".")[-1]][1] for name, (_, key, off)
        in sd.items()}


def real_torch(c, binary, fixtures):
    py = torch_python()
    if not py:
        print("skipped: no Python with torch (checkpoints written by torch)")
        c.skipped += 1
        return
    pt = os.path.join(fixtures, "pt")
    zips = [os.path.join(pt, f) for f in sorted(os.listdir(pt))
            if f.endswith(".pt") and zipfile.is_zipfile(os.path.join(pt, f))]
    zips += [os.path.join(pt, "llama", "pytorch_model.bin")]
    zips += [os.path.join(pt, "sharded", f) for f in
             sorted(os.listdir(os.path.join(pt, "sharded")))
             if f.endswith(".bin")]
    proc = subprocess.run([py, "-c", TORCH_ROUNDTRIP] + zips,
                          capture_output=True, timeout=600)
    if c.check(proc.returncode == 0, f"torch round trip ran: "
               f"{proc.stderr.decode()[-300:]}"):
        res = json.loads(proc.stdout)
        for path, how in res.items():
            print(f"torch round trip {os.path.basename(path)}: {how}")
            c.check(how != "differs", f"{path}: torch.save of what "
                    f"torch.load read gives another data.pkl")
        c.check(sum(how == "same" for how in res.values()) >= 5,
                f"at least 5 fixtures round-trip through torch ({res})")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([py, "-c", TORCH_WRITER, tmp],
                              capture_output=True, timeout=600)
        if not c.check(proc.returncode == 0,
                       f"torch wrote the checkpoints: "
                       f"{proc.stderr.decode()[-500:]}"):
            return
        facts = json.loads(proc.stdout)
        print(f"checkpoints written by torch {facts['torch']}")
        for name, want in facts["files"].items():
            path = os.path.join(tmp, name)
            code, doc, _ = run_json(binary, ["check", "--summary", path])
            inp = doc["inputs"][0]
            sec = [f"{x['code']} {x['message']}" for x in inp["findings"]
                   if x["category"] == "security" or
                   x["severity"] == "error"]
            c.check(code == 0 and not sec,
                    f"torch's {name}: exit {code}, no security or error "
                    f"finding ({sec})")
            _, doc, _ = run_json(binary, ["tensors", path])
            got = {t["name"]: t for t in doc["inputs"][0]["tensors"]}
            c.check(sorted(got) == sorted(want),
                    f"torch's {name}: tensors {sorted(got)}, torch says "
                    f"{sorted(want)}")
            if name == "sharded":
                continue
            offsets = (legacy_tensor_offsets(path) if name == "legacy.pt"
                       else zip_tensor_offsets(path))
            for tname, (dtype, shape) in want.items():
                t = got.get(tname)
                if t is None:
                    continue
                c.check((t["dtype"], t["shape"], t["offset"]) ==
                        (TORCH_DTYPES[dtype], shape, offsets[tname]),
                        f"torch's {name} {tname}: {t['dtype']} {t['shape']} "
                        f"@{t['offset']}, expected {TORCH_DTYPES[dtype]} "
                        f"{shape} @{offsets[tname]}")
        # a pickled nn.Module: weights_only refuses it, so must we
        code, doc, _ = run_json(binary, ["check", os.path.join(
            tmp, "whole-module.pt")])
        codes = {x["code"] for x in doc["inputs"][0]["findings"]}
        c.check(code == 1 and "QA1602" in codes,
                f"torch.save(model): exit {code}, codes {sorted(codes)}")
        code, doc, _ = run_json(binary, ["check", os.path.join(
            tmp, "scripted.pt")])
        codes = {x["code"] for x in doc["inputs"][0]["findings"]}
        c.check(code == 1 and codes == {"QA1629"},
                f"torch.jit.save: exit {code}, codes {sorted(codes)} (the "
                f"archive is a program; its __torch__ classes are not "
                f"reported one by one)")


def mixed_folder(c, binary, fixtures):
    """A folder with safetensors weights and pytorch_model.bin beside
    them: transformers' from_pretrained takes model.safetensors(.index.
    json) before pytorch_model.bin (modeling_utils.py
    _get_resolved_checkpoint_files), so the safetensors are the model; the
    .bin files are still scanned, and a payload in one is an error."""
    with tempfile.TemporaryDirectory() as tmp:
        st = os.path.join(fixtures, "st", "sharded")
        for f in os.listdir(st):
            shutil.copy(os.path.join(st, f), tmp)
        shutil.copy(os.path.join(fixtures, "pt", "llama", "pytorch_model.bin"),
                    tmp)
        code, doc, _ = run_json(binary, ["check", tmp])
        inp = doc["inputs"][0]
        found = [(x["code"], os.path.basename(x.get("file") or ""))
                 for x in inp["findings"]]
        c.check(code == 0 and found == [("QA1638", "pytorch_model.bin")],
                f"safetensors + pytorch_model.bin: exit {code}, findings "
                f"{found}")
        _, doc, _ = run_json(binary, ["tensors", tmp])
        files = {os.path.basename(t["file"]) for t in
                 doc["inputs"][0]["tensors"]}
        c.check(files == {"model-00001-of-00002.safetensors",
                          "model-00002-of-00002.safetensors"},
                f"the tensors are the safetensors' ({sorted(files)})")
        shutil.copy(os.path.join(fixtures, "pt", "malicious", "global-00.pt"),
                    os.path.join(tmp, "pytorch_model-extra.bin"))
        code, doc, _ = run_json(binary, ["check", tmp])
        found = {(x["code"], os.path.basename(x.get("file") or ""))
                 for x in doc["inputs"][0]["findings"]}
        c.check(code == 1 and ("QA1601", "pytorch_model-extra.bin") in found,
                f"a payload in a .bin beside the safetensors: exit {code}, "
                f"{sorted(found)}")


def corpus_checkpoints(c, binary):
    """Real checkpoints of the shared corpus, when it has any."""
    root = os.environ.get("QA_CORPUS", "")
    found = []
    for d, _, files in os.walk(root) if os.path.isdir(root) else ():
        found += [os.path.join(d, f) for f in files
                  if f.endswith((".bin", ".pt", ".pth", ".ckpt"))]
    if not found:
        print("skipped: no PyTorch checkpoint in the corpus")
        c.skipped += 1
        return
    for path in sorted(found):
        code, doc, _ = run_json(binary, ["check", "--summary", path])
        sec = [x["code"] for i in doc.get("inputs", [])
               for x in i["findings"] if x["category"] == "security"]
        c.check(not sec, f"corpus {path}: no security finding ({sec})")


def main():
    binary = sys.argv[1]
    fixtures = env_path("QA_FIXTURES")
    c = Checker()
    rdir = os.path.join(fixtures, "pt-recipes")
    recipes = sorted(os.listdir(rdir))
    c.check(len(recipes) >= 8, f"{len(recipes)} recipes")
    for name in recipes:
        with open(os.path.join(rdir, name)) as f:
            recipe = json.load(f)
        path = os.path.join(fixtures, recipe["file"])
        with open(path, "rb") as f:
            data = f.read()
        storages = [Storage(s) for s in recipe["storages"]]
        obj = build(recipe["root"], storages)
        if recipe["container"] == "zip":
            members = torch_zip_layout(c, path, data)
            start, size = members["archive/data.pkl"]
            want = pickle_like_torch(obj, False)
            c.check(data[start:start + size] == want,
                    f"{recipe['file']}: data.pkl is what pickle protocol 2 "
                    f"writes for the recipe ({size} vs {len(want)} bytes)")
            offsets = {s["key"]: members["archive/data/" + s["key"]][0]
                       for s in recipe["storages"]}
            for s in recipe["storages"]:
                c.check(members["archive/data/" + s["key"]][1] ==
                        s["numel"] * s["elem"],
                        f"{recipe['file']}: data/{s['key']} holds numel x "
                        f"element size bytes")
        else:
            c.check(data == legacy_bytes(recipe, obj),
                    f"{recipe['file']}: the file is what _legacy_save "
                    f"writes for the recipe")
            offsets = legacy_offsets(path)
        got, code = audit_tensors(binary, path)
        want = expected_tensors(recipe, offsets)
        c.check(len(got) == len(want),
                f"{recipe['file']}: {len(got)} tensors, expected {len(want)}")
        for tname, dtype, shape, nbytes, off in want:
            t = got.get(tname)
            if not c.check(t is not None, f"{recipe['file']}: {tname} listed"):
                continue
            c.check((t["dtype"], t["shape"], t["bytes"], t["offset"]) ==
                    (dtype, shape, nbytes, off),
                    f"{recipe['file']} {tname}: {t['dtype']} {t['shape']} "
                    f"{t['bytes']} @{t['offset']}, expected {dtype} {shape} "
                    f"{nbytes} @{off}")

    # verdicts over the whole PyTorch corpus
    pt = os.path.join(fixtures, "pt")
    for sub, malicious in (("malicious", True), ("", False)):
        folder = os.path.join(pt, sub)
        for f in sorted(os.listdir(folder)):
            path = os.path.join(folder, f)
            if not malicious and (f in ("malicious", "bad") or
                                  f.endswith(".json")):
                continue
            code, doc, err = run_json(binary, ["check", "--summary", path])
            sec = [x for i in doc.get("inputs", []) for x in i["findings"]
                   if x["category"] == "security"]
            if malicious:
                c.check(code == 1 and any(x["severity"] == "error"
                                          for x in sec),
                        f"{f}: exit {code} with a security error "
                        f"({[x['code'] for x in sec]})")
            else:
                c.check(not sec and code == 0,
                        f"{f}: benign, exit {code}, security findings "
                        f"{[x['code'] for x in sec]}")

    # each dangerous global is reported where its GLOBAL opcode is
    for f in sorted(os.listdir(os.path.join(pt, "malicious"))):
        if not f.startswith("global-"):
            continue
        path = os.path.join(pt, "malicious", f)
        with zipfile.ZipFile(path) as z:
            info = z.getinfo("archive/data.pkl")
            pkl = z.read(info)
        with open(path, "rb") as fh:
            raw = fh.read()
        nl, xl = struct.unpack_from("<HH", raw, info.header_offset + 26)
        start = info.header_offset + 30 + nl + xl
        try:
            globals_at = {pos + start: arg for op, arg, pos in
                          pickletools.genops(pkl) if op.name == "GLOBAL"}
        except UnicodeDecodeError:
            continue	# pickletools reads GLOBAL names as ASCII only
        code, doc, err = run_json(binary, ["check", path])
        for x in doc["inputs"][0]["findings"]:
            if x["code"] in ("QA1601", "QA1602"):
                g = globals_at.get(x.get("offset"))
                c.check(g is not None and g.replace(" ", ".") in x["message"],
                        f"{f}: {x['code']} at offset {x.get('offset')} is a "
                        f"GLOBAL opcode naming what the message says "
                        f"({g!r}, {x['message']!r})")

    # the zip quirks fool zipfile (and the scanners built on it) as the
    # advisories say; quantaudit reports them (fixture manifest)
    mal = os.path.join(pt, "malicious")
    with zipfile.ZipFile(os.path.join(mal, "zip-dup-datapkl.pt")) as z:
        c.check(z.namelist().count("archive/data.pkl") == 2,
                "zipfile lists both data.pkl")
    for f, what in (("zip-bad-crc.pt", "Bad CRC-32"),
                    ("zip-name-mismatch.pt", "differ")):
        try:
            with zipfile.ZipFile(os.path.join(mal, f)) as z:
                z.read("archive/data.pkl")
            c.check(False, f"zipfile reads {f}")
        except zipfile.BadZipFile as e:
            c.check(what in str(e), f"zipfile refuses {f}: {e}")
    with zipfile.ZipFile(os.path.join(mal, "zip-case-datapkl.pt")) as z:
        c.check("archive/data.pkl" not in z.namelist(),
                "an exact-name lookup misses archive/DATA.PKL")
    with open(os.path.join(mal, "polyglot.bin"), "rb") as fh:
        c.check(zipfile.is_zipfile(fh) and fh.seek(0) == 0 and
                fh.read(4) != b"PK\x03\x04",
                "polyglot.bin: zipfile.is_zipfile says zip, torch's "
                "_is_zipfile (first four bytes) says no")
    mixed_folder(c, binary, fixtures)
    real_torch(c, binary, fixtures)
    corpus_checkpoints(c, binary)
    c.finish()


main()
