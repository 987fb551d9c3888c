# SPDX-License-Identifier: MIT
"""`quantaudit serve --stdio` (src/cli/cli_serve.c) driven by a client:
the Model Context Protocol handshake (initialize, the initialized
notification), ping, tools/list, then tools/call of inspect, check, fit
and diff, each result compared with the binary's own JSON report for the
same command line; JSON-RPC errors for garbage, unknown methods and
unknown tools; isError for arguments and inputs that cannot be audited.
Every message the server writes must be one line of JSON.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from qa_common import Checker, env_path  # noqa: E402


class Client:
    def __init__(self, binary, cwd):
        self.p = subprocess.Popen([binary, "serve", "--stdio"], cwd=cwd,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.next_id = 0

    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str) else
                            json.dumps(obj)) + "\n")
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        assert line.endswith("\n"), f"no reply line: {line!r}"
        return json.loads(line)

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        reply = self.recv()
        assert reply["id"] == self.next_id, reply
        assert reply["jsonrpc"] == "2.0"
        return reply

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        return rc, self.p.stdout.read(), self.p.stderr.read()


def cli(binary, cwd, args):
    p = subprocess.run([binary] + args, cwd=cwd, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, json.loads(p.stdout)


def main():
    binary = os.path.abspath(sys.argv[1])
    fixtures = env_path("QA_FIXTURES")
    c = Checker()
    cl = Client(binary, fixtures)

    r = cl.request("initialize", {"protocolVersion": "2025-06-18",
                                  "capabilities": {},
                                  "clientInfo": {"name": "test",
                                                 "version": "1"}})
    res = r.get("result", {})
    c.check(res.get("protocolVersion") == "2025-06-18", f"version {res}")
    c.check(res.get("serverInfo", {}).get("name") == "quantaudit",
            "serverInfo")
    c.check("tools" in res.get("capabilities", {}), "tools capability")
    cl.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    c.check(cl.request("ping").get("result") == {}, "ping")

    tools = cl.request("tools/list")["result"]["tools"]
    c.check([t["name"] for t in tools] == ["inspect", "check", "fit",
                                           "diff"], "tools/list names")
    try:
        import jsonschema
        for t in tools:
            jsonschema.Draft7Validator.check_schema(t["inputSchema"])
        c.check(True, "input schemas are JSON Schema")
    except ImportError:
        c.skipped += 1
    schemas = {t["name"]: t["inputSchema"] for t in tools}

    good = "gguf/valid-llama-q8_0.gguf"
    calls = [
        ("inspect", {"path": good}, ["inspect", "--format", "json", good]),
        ("inspect", {"path": good, "summary": True},
         ["inspect", "--format", "json", "--summary", good]),
        ("check", {"paths": ["gguf/truncated-data.gguf", "st/ghost"],
                   "fail_on": "warning", "engine": "llama.cpp"},
         ["check", "--format", "json", "--fail-on", "warning", "--engine",
          "llama.cpp", "gguf/truncated-data.gguf", "st/ghost"]),
        ("fit", {"path": good, "gpus": "rtx-5060-ti", "ctx": "2048"},
         ["fit", "--format", "json", "--gpus", "rtx-5060-ti", "--ctx",
          "2048", good]),
        ("diff", {"a": good, "b": "gguf/big-endian.gguf"},
         ["diff", "--format", "json", good, "gguf/big-endian.gguf"]),
        ("check", {"paths": [good], "options": ["--severity",
                                                "QA1011=error"]},
         ["check", "--format", "json", "--severity", "QA1011=error", good]),
    ]
    for name, args, argv in calls:
        try:
            jsonschema.validate(args, schemas[name])
        except NameError:
            pass
        r = cl.request("tools/call", {"name": name, "arguments": args})
        res = r.get("result", {})
        code, want = cli(binary, fixtures, argv)
        c.check(res.get("structuredContent") == want,
                f"{name} {args}: structuredContent is the report")
        c.check(json.loads(res["content"][0]["text"]) == want,
                f"{name}: text is the report")
        c.check(res.get("isError") is False, f"{name}: not an error")

    r = cl.request("tools/call", {"name": "inspect",
                                  "arguments": {"path": "manifest.tsv"}})
    res = r["result"]
    c.check(res["isError"] is True and "exit 3" in res["content"][0]["text"]
            and res["structuredContent"]["errors"], "not a model: isError")
    r = cl.request("tools/call", {"name": "fit", "arguments": {"path": good}})
    c.check(r["result"]["isError"] is True and "gpus" in
            r["result"]["content"][0]["text"], "fit without gpus")
    r = cl.request("tools/call", {"name": "check", "arguments": {
        "paths": [good], "gpus": "12 bananas"}})
    c.check(r["result"]["isError"] is True, "bad --gpus: isError")
    r = cl.request("tools/call", {"name": "check", "arguments": {
        "paths": [good], "options": "--oops"}})
    c.check(r["result"]["isError"] is True, "options not an array")
    r = cl.request("tools/call", {"name": "rm", "arguments": {}})
    c.check(r.get("error", {}).get("code") == -32602, "unknown tool")
    r = cl.request("resources/list")
    c.check(r.get("error", {}).get("code") == -32601, "unknown method")
    cl.send("this is not json")
    r = cl.recv()
    c.check(r.get("error", {}).get("code") == -32700 and r["id"] is None,
            "parse error")
    cl.send(json.dumps({"jsonrpc": "2.0", "method": "ping"}))  # no reply
    c.check(cl.request("ping").get("result") == {},
            "a notification gets no reply")
    rc, rest, err = cl.close()
    c.check(rc == 0 and rest == "", f"exit 0 at end of input ({rc}, "
            f"{rest!r}, {err[-200:]!r})")

    p = subprocess.run([binary, "serve"], capture_output=True, text=True)
    c.check(p.returncode == 2, "serve without --stdio: usage error")
    c.finish()


main()
