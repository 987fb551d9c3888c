# SPDX-License-Identifier: MIT
"""GitLab Code Quality and CycloneDX 1.6 reports (src/report/
report_codequality.c, report_cyclonedx.c), validated against GitLab's
documented format (tests/data/gitlab-codequality.schema.json) and the
official CycloneDX 1.6 schema (tests/data/bom-1.6.SNAPSHOT.schema.json and
the two it references; tests/data/README.md says where they come from).

Expected values are computed here: the findings each fixture must produce
come from the fixture manifest, the license and base model from a GGUF the
gguf-py writer produces, the parameter count from the tensors written, and
the SHA-256 of a Hugging Face cache blob with hashlib. The JSON report is
only a cross-check that every format lists the same findings.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import SKIP, Checker, env_path  # noqa: E402

try:
    import jsonschema
    import referencing
except ImportError:
    print("python3-jsonschema (with referencing) is not installed: skipped")
    sys.exit(SKIP)

FIXTURES = [
    "gguf/valid-llama-q8_0.gguf",
    "gguf/truncated-data.gguf",
    "gguf/big-endian.gguf",
    "gguf/duplicate-key.gguf",
    "st/valid.safetensors",
    "st/ghost",
    "st/traversal",
    "mtp/qwen35-missing",
]
CQ_SEVERITY = {"error": "critical", "warning": "major", "info": "info"}


def run_in(binary, cwd, args):
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True,
                       timeout=120)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode()


def load_manifest(fixtures):
    rows = {}
    with open(os.path.join(fixtures, "manifest.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rel, _, codes, match = line.rstrip("\n").split("\t")[:4]
                rows[rel] = (set() if codes == "-" else
                             set(codes.split(",")), match)
    return rows


def cdx_validator(data):
    base = "http://cyclonedx.org/schema/"
    resources = []
    for name in ("bom-1.6.SNAPSHOT.schema.json", "spdx.SNAPSHOT.schema.json",
                 "jsf-0.82.SNAPSHOT.schema.json"):
        doc = json.load(open(os.path.join(data, name)))
        res = referencing.Resource.from_contents(
            doc, default_specification=referencing.jsonschema.DRAFT7)
        resources.append((base + name, res))
        resources.append((doc["$id"], res))
    reg = referencing.Registry().with_resources(resources)
    bom = json.load(open(os.path.join(data, "bom-1.6.SNAPSHOT.schema.json")))
    return jsonschema.Draft7Validator(bom, registry=reg)


def json_findings(binary, cwd, rels):
    code, out, _ = run_in(binary, cwd, ["check", "-q", "--format", "json"]
                          + rels)
    doc = json.loads(out)
    return [f for i in doc["inputs"] for f in i["findings"]], doc


def check_codequality(c, binary, fixtures, schema, manifest):
    v = jsonschema.Draft7Validator(schema)
    for rel in FIXTURES:
        code, out, err = run_in(binary, fixtures,
                                ["check", "-q", "--format", "codequality",
                                 "./" + rel])
        doc = json.loads(out)
        errs = list(v.iter_errors(doc))
        c.check(not errs, f"codequality {rel}: schema: {errs[:1]}")
        want, _ = json_findings(binary, fixtures, ["./" + rel])
        c.check(len(doc) == len(want), f"codequality {rel}: one issue per "
                f"finding ({len(doc)} vs {len(want)})")
        c.check([i["check_name"] for i in doc] ==
                [f["code"] for f in want], f"codequality {rel}: codes")
        c.check([i["severity"] for i in doc] ==
                [CQ_SEVERITY[f["severity"]] for f in want],
                f"codequality {rel}: severities")
        c.check(all(not i["location"]["path"].startswith("./")
                    for i in doc), f"codequality {rel}: ./ stripped")
        c.check(all(i["location"]["lines"]["begin"] == 1 for i in doc),
                f"codequality {rel}: line 1")
        fps = [i["fingerprint"] for i in doc]
        c.check(len(set(fps)) == len(fps), f"codequality {rel}: "
                "fingerprints unique")
        # the fingerprint as documented: SHA-256 over code, path, tensor
        # and detail, each NUL-terminated
        c.check(fps == [hashlib.sha256(b"".join(
            (x or "").encode() + b"\0" for x in
            (f["code"], re.sub(r"^(\./)+", "", f.get("file") or rel),
             f.get("tensor"),
             f.get("detail") or ""))).hexdigest() for f in want],
            f"codequality {rel}: fingerprints")
        exp, match = manifest[rel]
        got = {i["check_name"] for i in doc}
        c.check(got == exp if match == "exact" else exp <= got,
                f"codequality {rel}: manifest codes {exp} vs {got}")
        c.check(code == (1 if any(f["severity"] == "error" for f in want)
                         else 0), f"codequality {rel}: exit {code}")
    # the fingerprint does not depend on the order of the inputs
    a, b = FIXTURES[1], FIXTURES[3]
    _, o1, _ = run_in(binary, fixtures, ["check", "-q", "--format",
                                         "codequality", a, b])
    _, o2, _ = run_in(binary, fixtures, ["check", "-q", "--format",
                                         "codequality", b, a])
    c.check(sorted(i["fingerprint"] for i in json.loads(o1)) ==
            sorted(i["fingerprint"] for i in json.loads(o2)),
            "codequality: fingerprints independent of input order")
    # an input that is no model: a blocker issue, the document stays valid
    code, out, _ = run_in(binary, fixtures, ["check", "-q", "--format",
                                             "codequality", "manifest.tsv",
                                             FIXTURES[0]])
    doc = json.loads(out)
    c.check(not list(v.iter_errors(doc)), "codequality failed: schema")
    c.check([i["severity"] for i in doc if i["location"]["path"] ==
             "manifest.tsv"] == ["blocker"], "codequality: blocker for an "
            "input not audited")
    c.check(code == 3, f"codequality failed input: exit {code}")


def write_gguf(path):
    """A GGUF from gguf-py's writer with a license and a base model;
    returns the parameters written."""
    import numpy as np
    import gguf
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("bom-fixture")
    w.add_license("apache-2.0")
    w.add_base_model_count(1)
    w.add_base_model_name(0, "Llama 3.2 1B")
    w.add_base_model_organization(0, "Meta Llama")
    w.add_base_model_repo_url(0, "https://huggingface.co/meta-llama/"
                              "Llama-3.2-1B")
    w.add_block_count(1)
    w.add_context_length(256)
    w.add_embedding_length(16)
    w.add_feed_forward_length(32)
    w.add_head_count(2)
    w.add_head_count_kv(2)
    w.add_layer_norm_rms_eps(1e-5)
    rng = np.random.default_rng(7)
    shapes = {"token_embd.weight": (32, 16), "output_norm.weight": (16,),
              "blk.0.attn_norm.weight": (16,),
              "blk.0.attn_q.weight": (16, 16),
              "blk.0.attn_k.weight": (16, 16),
              "blk.0.attn_v.weight": (16, 16),
              "blk.0.attn_output.weight": (16, 16),
              "blk.0.ffn_norm.weight": (16,),
              "blk.0.ffn_gate.weight": (32, 16),
              "blk.0.ffn_up.weight": (32, 16),
              "blk.0.ffn_down.weight": (16, 32)}
    n = 0
    for name, shape in shapes.items():
        w.add_tensor(name, rng.standard_normal(shape).astype(np.float32))
        n += int(np.prod(shape))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return n


def props(obj):
    out = {}
    for p in obj.get("properties", []):
        out.setdefault(p["name"], []).append(p["value"])
    return out


def check_cyclonedx(c, binary, fixtures, validator, manifest):
    for rel in FIXTURES:
        code, out, _ = run_in(binary, fixtures, ["check", "-q", "--format",
                                                 "cyclonedx", rel])
        doc = json.loads(out)
        errs = list(validator.iter_errors(doc))
        c.check(not errs, f"cyclonedx {rel}: schema: "
                f"{[e.message[:200] for e in errs[:1]]}")
        models = [x for x in doc["components"]
                  if x["type"] == "machine-learning-model"]
        c.check(len(models) == 1, f"cyclonedx {rel}: one model")
        want, jdoc = json_findings(binary, fixtures, [rel])
        got = props(models[0]).get("quantaudit:finding", [])
        c.check([g.split()[0] for g in got] == [f["code"] for f in want],
                f"cyclonedx {rel}: findings as properties")
        c.check(props(models[0])["quantaudit:verdict"] ==
                [jdoc["inputs"][0]["verdict"]], f"cyclonedx {rel}: verdict")
        files = [x for x in doc["components"] if x["type"] == "file"]
        c.check(sorted(x["name"] for x in files) ==
                sorted(f["path"] for f in jdoc["inputs"][0]["files"]),
                f"cyclonedx {rel}: files")
        exp, match = manifest[rel]
        codes = {g.split()[0] for g in got}
        c.check(codes == exp if match == "exact" else exp <= codes,
                f"cyclonedx {rel}: manifest codes {exp} vs {codes}")

    try:
        import gguf  # noqa: F401
        import numpy  # noqa: F401
        import safetensors.numpy
    except ImportError:
        print("gguf-py / safetensors missing: producer-written BOM cases "
              "skipped")
        c.skipped += 1
        return
    tmp = tempfile.mkdtemp(prefix="qa-bom-")
    try:
        path = os.path.join(tmp, "bom.gguf")
        n_params = write_gguf(path)
        _, out, _ = run_in(binary, tmp, ["check", "-q", "--format",
                                         "cyclonedx", "bom.gguf"])
        doc = json.loads(out)
        c.check(not list(validator.iter_errors(doc)), "cyclonedx gguf-py: "
                "schema")
        m = doc["components"][0]
        c.check(m["name"] == "bom-fixture", "cyclonedx: general.name")
        c.check(m.get("licenses") == [{"license": {"name": "apache-2.0"}}],
                f"cyclonedx: license {m.get('licenses')}")
        anc = m.get("pedigree", {}).get("ancestors", [])
        c.check(len(anc) == 1 and anc[0]["name"] == "Llama 3.2 1B" and
                anc[0].get("group") == "Meta Llama" and
                anc[0]["externalReferences"][0]["url"] ==
                "https://huggingface.co/meta-llama/Llama-3.2-1B",
                f"cyclonedx: base model {anc}")
        mc = m["modelCard"]
        c.check(mc["modelParameters"].get("modelArchitecture") == "llama",
                "cyclonedx: modelArchitecture")
        mp = props(mc)
        c.check(mp.get("quantaudit:parameters") == [str(n_params)],
                f"cyclonedx: parameters {mp.get('quantaudit:parameters')} "
                f"vs {n_params}")
        c.check(mp.get("quantaudit:quantization") == ["gguf:F32"] or
                mp.get("quantaudit:quantization", [""])[0].startswith(
                    "gguf:"), f"cyclonedx: quantization "
                f"{mp.get('quantaudit:quantization')}")
        c.check(mp.get("quantaudit:layers") == ["1"], "cyclonedx: layers")

        # A Hugging Face cache: the LFS blob is named by its SHA-256.
        import numpy as np
        repo = os.path.join(tmp, "models--org--tiny")
        snap = os.path.join(repo, "snapshots", "0" * 40)
        os.makedirs(os.path.join(repo, "blobs"))
        os.makedirs(snap)
        os.makedirs(os.path.join(repo, "refs"))
        open(os.path.join(repo, "refs", "main"), "w").write("0" * 40)
        st = safetensors.numpy.save({
            "model.embed_tokens.weight": np.zeros((8, 4), np.float32)})
        sha = hashlib.sha256(st).hexdigest()
        open(os.path.join(repo, "blobs", sha), "wb").write(st)
        os.symlink(os.path.join("..", "..", "blobs", sha),
                   os.path.join(snap, "model.safetensors"))
        cfg = json.dumps({"model_type": "llama",
                          "architectures": ["LlamaForCausalLM"]}).encode()
        git_sha1 = hashlib.sha1(b"blob %d\0" % len(cfg) + cfg).hexdigest()
        open(os.path.join(repo, "blobs", git_sha1), "wb").write(cfg)
        os.symlink(os.path.join("..", "..", "blobs", git_sha1),
                   os.path.join(snap, "config.json"))
        _, out, err = run_in(binary, tmp, ["check", "-q", "--format",
                                           "cyclonedx", "models--org--tiny"])
        doc = json.loads(out)
        c.check(not list(validator.iter_errors(doc)), "cyclonedx hf cache: "
                "schema")
        hashes = {x["name"].rsplit("/", 1)[-1]: x.get("hashes")
                  for x in doc["components"] if x["type"] == "file"}
        c.check(hashes.get("model.safetensors") ==
                [{"alg": "SHA-256", "content": sha}],
                f"cyclonedx hf cache: blob sha-256 {hashes}")
        c.check(hashes.get("config.json", "absent") is None,
                "cyclonedx hf cache: no hash from a git blob name")
    finally:
        shutil.rmtree(tmp)


def main():
    binary = os.path.abspath(sys.argv[1])
    fixtures = env_path("QA_FIXTURES")
    root = env_path("QA_SOURCE_ROOT")
    data = os.path.join(root, "tests", "data")
    c = Checker()
    manifest = load_manifest(fixtures)
    check_codequality(c, binary, fixtures, json.load(open(os.path.join(
        data, "gitlab-codequality.schema.json"))), manifest)
    check_cyclonedx(c, binary, fixtures, cdx_validator(data), manifest)
    c.finish()


main()
