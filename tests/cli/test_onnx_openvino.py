# SPDX-License-Identifier: MIT
"""ONNX Runtime GenAI and OpenVINO IR folders are named, checked for the
files that must travel together, and say what was not audited (QA1413):
an openvino_model.xml without its .bin (QA1415), a genai_config.json
whose model.decoder.filename is absent (QA1414). The files are laid out
as optimum-intel and onnxruntime-genai's builder write them
(openvino_model.xml + openvino_model.bin; genai_config.json + model.onnx
+ model.onnx.data); their contents are not parsed by quantaudit, so
placeholders stand for them."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, run_json  # noqa: E402


def put(path, data):
    with open(path, "wb") as f:
        f.write(data)


def check(binary, path):
    code, doc, err = run_json(binary, ["check", path])
    inp = doc["inputs"][0]
    return inp, sorted(f["code"] for f in inp["findings"])


def main():
    binary = sys.argv[1]
    c = Checker()
    with tempfile.TemporaryDirectory() as tmp:
        ov = os.path.join(tmp, "ov")
        os.makedirs(ov)
        put(os.path.join(ov, "openvino_model.xml"), b'<?xml version="1.0"?><net/>')
        put(os.path.join(ov, "openvino_model.bin"), b"\0" * 64)
        put(os.path.join(ov, "config.json"), b'{"model_type": "llama"}')
        inp, codes = check(binary, ov)
        c.check(inp["model"]["format"] == "openvino", "openvino named")
        c.check(codes == ["QA1413"] and inp["verdict"] == "warn",
                f"complete IR: {codes} {inp['verdict']}")
        os.remove(os.path.join(ov, "openvino_model.bin"))
        inp, codes = check(binary, ov)
        c.check(codes == ["QA1413", "QA1415"] and inp["verdict"] == "fail",
                f"IR without .bin: {codes}")
        gen = os.path.join(tmp, "genai")
        os.makedirs(gen)
        put(os.path.join(gen, "genai_config.json"), json.dumps(
            {"model": {"type": "llama", "decoder":
                       {"filename": "model.onnx"}}}).encode())
        put(os.path.join(gen, "model.onnx"), b"\x08\x07")
        put(os.path.join(gen, "model.onnx.data"), b"\0" * 64)
        inp, codes = check(binary, gen)
        c.check(inp["model"]["format"] == "onnx", "onnx named")
        c.check(codes == ["QA1413"], f"complete GenAI folder: {codes}")
        os.remove(os.path.join(gen, "model.onnx"))
        inp, codes = check(binary, gen)
        c.check(codes == ["QA1413", "QA1414"] and inp["verdict"] == "fail",
                f"GenAI folder without its graph: {codes}")
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
