#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A bounded remote run (issue 32, docs/remote.md "Deadline"), against a
Python HTTP server on loopback started by this test.

- A server that answers every request after 0.8 s, serving a checkpoint
  folder of 40 shards (well over a hundred requests: minutes in all):
  `check URL --timeout 3 --deadline 3` stops within a second or two of
  the deadline, exit 4, stderr saying the deadline passed. Before
  --deadline the same run took one request after another to the end.
- A server that never answers: --timeout 60 --deadline 2 ends at the
  deadline (each request is cut to what is left of the run), exit 4.
- Content-Range: a total that cannot be parsed ("bytes 0-99/abc"), an
  unknown total ("/*"), a total that disagrees with the size the server
  announced, a range other than the one asked for, and no Content-Range
  at all on a 206 are each a one-line error, exit 4; the same file
  served honestly reads (exit 0), so the server itself is not the fault.
"""
import http.server
import json
import os
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker  # noqa: E402

QA = sys.argv[1]
c = Checker()


def safetensors_bytes(name="w", n=4):
    header = json.dumps({name: {"dtype": "F32", "shape": [n],
                                "data_offsets": [0, 4 * n]}}).encode()
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header + b"\0" * (4 * n)


FILES = {}
MODE = {"delay": 0.0, "range": "honest"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _body(self):
        if MODE["delay"]:
            time.sleep(MODE["delay"])
        return FILES.get(self.path.split("?")[0])

    def do_HEAD(self):
        data = self._body()
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", '"e1"')
        self.end_headers()

    def do_GET(self):
        data = self._body()
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        rng = self.headers.get("Range", "")
        if not rng.startswith("bytes="):
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        a, b = rng[6:].split("-")
        a, b = int(a), min(int(b), len(data) - 1)
        part = data[a:b + 1]
        total = {"honest": str(len(data)), "garbage": "abc", "star": "*",
                 "wrong-total": str(len(data) + 1)}.get(MODE["range"],
                                                        str(len(data)))
        self.send_response(206)
        if MODE["range"] == "wrong-range":
            self.send_header("Content-Range",
                             f"bytes {a}-{b - 1}/{len(data)}")
        elif MODE["range"] != "missing":
            self.send_header("Content-Range", f"bytes {a}-{b}/{total}")
        self.send_header("Content-Length", str(len(part)))
        self.send_header("ETag", '"e1"')
        self.end_headers()
        self.wfile.write(part)


class Silent(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_HEAD(self):
        time.sleep(30)

    do_GET = do_HEAD


def serve(handler):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def run(args, timeout=120):
    env = dict(os.environ)
    env.pop("HF_TOKEN", None)
    t0 = time.monotonic()
    p = subprocess.run([QA] + args, capture_output=True, timeout=timeout,
                       env=env)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"), time.monotonic() - t0)


def main():
    srv, base = serve(Handler)
    FILES["/one/model.safetensors"] = safetensors_bytes()
    shards = 40
    weight_map = {}
    for k in range(shards):
        name = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        FILES["/many/" + name] = safetensors_bytes(f"w{k}")
        weight_map[f"w{k}"] = name
    FILES["/many/config.json"] = json.dumps(
        {"architectures": ["LlamaForCausalLM"]}).encode()
    FILES["/many/model.safetensors.index.json"] = json.dumps(
        {"metadata": {}, "weight_map": weight_map}).encode()
    common = ["--no-cache"]

    # the slow server: 0.8 s per request
    MODE["delay"] = 0.8
    code, out, err, took = run(["check"] + common +
                               ["--timeout", "3", "--deadline", "3",
                                base + "/many/"])
    c.check(code == 4 and "deadline of 3 s passed" in err and took < 5.5,
            f"slow server: exit {code} in {took:.1f} s\n{err[-600:]}")
    MODE["delay"] = 0.0

    # honest ranges read; each lie is refused
    code, out, err, took = run(["inspect"] + common +
                               [base + "/one/model.safetensors"])
    c.check(code == 0, f"honest server: exit {code} {err[-300:]}")
    for mode, words in (("garbage", "Content-Range cannot be read"),
                        ("star", "Content-Range cannot be read"),
                        ("wrong-total", "does not match"),
                        ("wrong-range", "does not match"),
                        ("missing", "no Content-Range")):
        MODE["range"] = mode
        code, out, err, took = run(["inspect"] + common +
                                   [base + "/one/model.safetensors"])
        c.check(code == 4 and words in err,
                f"Content-Range {mode}: exit {code}\n{err[-400:]}")
    MODE["range"] = "honest"
    srv.shutdown()

    # a server that never answers: the deadline cuts the request
    silent, sbase = serve(Silent)
    code, out, err, took = run(["inspect"] + common +
                               ["--timeout", "60", "--deadline", "2",
                                sbase + "/x.gguf"])
    c.check(code == 4 and "deadline of 2 s passed" in err and took < 4.5,
            f"silent server: exit {code} in {took:.1f} s\n{err[-400:]}")
    silent.shutdown()

    code, out, err, took = run(["inspect", "--deadline", "x", "a.gguf"])
    c.check(code == 2 and "--deadline 'x'" in err,
            f"--deadline x: exit {code} {err}")
    c.finish()


main()
