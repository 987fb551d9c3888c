# SPDX-License-Identifier: MIT
"""--mmproj FILE: the projector a user names (llama-server --mmproj), read
where it is, counted with the model instead of the one its folder holds.

gguf-py writes the model and a CLIP projector (gguf_fixtures.projector,
as llama.cpp's convert_image_encoder_to_gguf.py lays it out) in two
folders; the projector's bytes are the sum of its tensors' n_bytes as
gguf-py's own reader counts them, and llama-server loads it whole on the
first GPU (tools/mtmd/clip.cpp clip_init), so GPU0's weights grow by
exactly that much.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, run_json  # noqa: E402
import gguf_fixtures as gf  # noqa: E402


def main():
    binary = sys.argv[1]
    if not gf.have_gguf():
        print("SKIP: gguf-py is not installed (requirements-test.txt)")
        return SKIP
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "models"))
        os.makedirs(os.path.join(tmp, "projectors"))
        model = os.path.join(tmp, "models", "m.gguf")
        proj = os.path.join(tmp, "projectors", "mmproj-m.gguf")
        gf.tiny_llama(model, gf.T.F16, layers=2, embd=256, vocab=512)
        gf.projector(proj)
        pbytes = sum(int(t.n_bytes) for t in gf.gguf.GGUFReader(proj).tensors)
        gpus = ["--gpus", "1x8G", "--ctx", "512"]
        _, d0, _ = run_json(binary, ["fit", model] + gpus)
        _, d1, _ = run_json(binary, ["fit", model, "--mmproj", proj] + gpus)
        i0, i1 = d0["inputs"][0], d1["inputs"][0]
        w0 = i0["fit"]["devices"][0]["weights_bytes"]
        w1 = i1["fit"]["devices"][0]["weights_bytes"]
        c.check(w1 - w0 == pbytes,
                f"GPU0 weights +{w1 - w0}, the projector holds {pbytes}")
        # what is not counted is said: the projector's compute buffer
        notes = i1["fit"].get("notes", [])
        c.check(any("projector" in n and "compute buffer" in n and
                    "not counted" in n for n in notes) and
                not any("projector" in n for n in i0["fit"].get("notes", [])),
                f"the projector's compute buffer named as not counted: {notes}")
        roles = [f.get("role") for f in i1["files"]]
        c.check(roles.count("mmproj") == 1 and len(d1["inputs"]) == 1,
                f"one input, the projector a file of it ({roles})")
        # a projector that is not there: named, not silently left out
        _, d2, _ = run_json(binary, ["check", model, "--mmproj",
                                     proj + ".missing"] + gpus)
        fs = d2["inputs"][0]["findings"]
        c.check(any(f["code"] == "QA1403" and "projector" in f["message"]
                    for f in fs),
                f"missing projector: QA1403 ({[f['code'] for f in fs]})")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
