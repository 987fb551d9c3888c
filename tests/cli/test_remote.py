#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Remote inputs (src/remote/, docs/remote.md) against a real HTTP server
on loopback: Debian's nginx, started by this test, serving the corpus and
the fixtures laid out as the Hugging Face hub lays out a repository
(/org/repo/resolve/REV/path, weights redirected to a second location as
the hub redirects to its CDN, the tree API, ETag headers), plus a server
without Range support, a slow one, a redirect loop, a gated repository
(401 without the token) and, from Python, a server that cuts its answer
short.

- every corpus model and fixture set read through nginx (a GGUF by URL,
  a split set by its first part, a checkpoint folder by hf:// and by an
  https:// folder URL) gives the same JSON report as the local copy,
  paths aside;
- a 20 GiB GGUF (a sparse fixture) is inspected fetching under 8 MiB, and
  a checkpoint folder with a 20 GB safetensors shard gets its MTP status
  and fit fetching under 1 MiB of it;
- a second run with the same --cache-dir fetches no body byte;
- each failure is a one-line error naming the URL and the reason, exit 4
  (exit 2 for a malformed reference), within its time bound; the token is
  sent where it is needed and printed nowhere.
Skipped without nginx (CI installs nginx-light).
"""
import http.server
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import SKIP, Checker, env_path  # noqa: E402

QA = None
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
TOKEN = "hf_s3cretTOKENvalue"
WEIGHTS = re.compile(r".*\.(safetensors|gguf)$")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.pop("HF_TOKEN", None)
    e.update(env or {})
    t0 = time.monotonic()
    p = subprocess.run([QA] + args, capture_output=True, timeout=timeout,
                       env=e)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"), time.monotonic() - t0)


def fetched(err):
    m = re.search(r"\(fetched bytes: (\d+)\)", err)
    return int(m.group(1)) if m else None


def link_tree(src, dst):
    """dst mirrors src with symbolic links (nginx follows them)."""
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        s = os.path.join(src, name)
        if os.path.isdir(s):
            link_tree(s, os.path.join(dst, name))
        else:
            os.symlink(os.path.abspath(s), os.path.join(dst, name))


def publish_repo(www, repo, src, rev="main"):
    """src as the hub serves repo at revision main: side files under
    resolve/main, weights redirected to /cdn/ (nginx.conf), and the tree
    API's listing of every folder."""
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel = os.path.relpath(dirpath, src)
        rel = "" if rel == "." else rel
        entries = []
        for d in dirnames:
            entries.append({"type": "directory", "oid": "0" * 40,
                            "size": 0, "path": os.path.join(rel, d)})
        for f in sorted(filenames):
            s = os.path.join(dirpath, f)
            size = os.path.getsize(s)
            e = {"type": "file", "oid": "%040x" % abs(hash((repo, rel, f))),
                 "size": size if not WEIGHTS.match(f) else 134,
                 "path": os.path.join(rel, f)}
            if WEIGHTS.match(f):
                # as the hub lists an LFS file: its size and sha256
                e["lfs"] = {"oid": "%064x" % abs(hash((repo, f, size))),
                            "size": size, "pointerSize": 134}
                where = os.path.join(www, "cdn", repo, rel)
            else:
                where = os.path.join(www, repo, "resolve", rev, rel)
            os.makedirs(where, exist_ok=True)
            os.symlink(os.path.abspath(s), os.path.join(where, f))
            entries.append(e)
        api = os.path.join(www, "api", "models", repo, "tree", rev, rel)
        os.makedirs(api, exist_ok=True)
        with open(os.path.join(api, "index.json"), "w") as out:
            json.dump(entries, out)


NGINX_CONF = """daemon off;
{user}
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 256; }}
http {{
  # the connection of each request: transfers made at once (libcurl's
  # multi interface) each have their own, a run's sequential ones share one
  log_format conn '$connection $request_method $uri $status';
  access_log {tmp}/access.log conn;
  client_body_temp_path {tmp}/t; proxy_temp_path {tmp}/t;
  fastcgi_temp_path {tmp}/t; uwsgi_temp_path {tmp}/t; scgi_temp_path {tmp}/t;
  absolute_redirect off;
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{hub};
    root {www};
    index index.json;
    # the hub sends LFS files to its CDN
    location ~ ^/(org/[^/]+)/resolve/(main|refs/pr/1)/(.+\\.(safetensors|gguf))$ {{
      # another host name for the same server: curl keeps a custom
      # Authorization header to the host first asked, as for the CDN
      return 302 http://localhost:{hub}/cdn/$1/$3;
    }}
    location /org/gated/ {{
      if ($http_authorization != "Bearer {token}") {{ return 401; }}
    }}
    location /api/models/org/gated/ {{
      if ($http_authorization != "Bearer {token}") {{ return 401; }}
    }}
    location /cdn/org/gated/ {{
      # the CDN takes no token (it must not be forwarded there)
      if ($http_authorization) {{ return 400; }}
    }}
    location /api/models/org/nohead/ {{
      # an API that answers HEAD with 405: the listing is one GET
      if ($request_method = HEAD) {{ return 405; }}
    }}
    location = /api/models/org/paged/tree/main/index.json {{
      # the hub pages a long listing: the rest is on the next page
      add_header Link '<http://127.0.0.1:{hub}/api/models/org/paged/page2.json>; rel="next"';
    }}
    location ~ ^/org/(sidefail|notmodel)/resolve/main/tokenizer_config.json$ {{
      return 500;
    }}
    location /slow/ {{ limit_rate 256; }}
    location /loop {{ return 302 /loop; }}
  }}
  server {{
    listen 127.0.0.1:{norange};
    root {www};
    max_ranges 0;
  }}
}}
"""


class Truncating(http.server.BaseHTTPRequestHandler):
    """Announces 1 MiB, sends 100 bytes, closes."""

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 20))
        self.send_header("ETag", '"t"')
        self.end_headers()

    def do_GET(self):
        self.send_response(206)
        self.send_header("Content-Length", str(65536))
        self.send_header("Content-Range", "bytes 0-65535/%d" % (1 << 20))
        self.end_headers()
        self.wfile.write(b"GGUF" + b"\0" * 96)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *a):
        pass


def normalize(text, url_prefix, local_prefix):
    return text.replace(url_prefix, local_prefix)


def same_report(c, what, remote_args, local_args, url_prefix, local_prefix,
                env=None):
    code_r, out_r, err_r, _ = run(remote_args, env)
    code_l, out_l, err_l, _ = run(local_args)
    if not c.check(code_r == code_l, f"{what}: exit {code_r} remote, "
                   f"{code_l} local\n{err_r}"):
        return None
    try:
        doc_r = json.loads(normalize(out_r, url_prefix, local_prefix))
        doc_l = json.loads(out_l)
    except json.JSONDecodeError as e:
        c.check(False, f"{what}: not JSON ({e}): {out_r[:300]}")
        return None
    if not c.check(doc_r == doc_l, f"{what}: the remote report differs "
                   "from the local one"):
        a = json.dumps(doc_r, indent=1, sort_keys=True).splitlines()
        b = json.dumps(doc_l, indent=1, sort_keys=True).splitlines()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print(f"  first difference, line {i}:\n  remote {x}\n"
                      f"  local  {y}")
                break
    return err_r


def sparse_safetensors(path, shape, dtype="BF16", extra=None):
    """A safetensors file whose one tensor is shape (sparse on disk)."""
    elem = {"BF16": 2, "F32": 4}[dtype]
    n = elem
    for d in shape:
        n *= d
    header = {"model.embed_tokens.weight": {
        "dtype": dtype, "shape": shape, "data_offsets": [0, n]}}
    header.update(extra or {})
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little") + h)
        f.truncate(8 + len(h) + n)
    return 8 + len(h) + n


def main():
    global QA
    QA = sys.argv[1]
    corpus = os.environ.get("QA_CORPUS", "")
    fix = env_path("QA_FIXTURES")
    if not os.path.exists(NGINX):
        print("nginx is not installed: skipped (Debian: nginx-light)")
        return SKIP
    c = Checker()
    tmp = tempfile.mkdtemp(prefix="qa-remote-")
    www = os.path.join(tmp, "www")
    os.makedirs(os.path.join(tmp, "t"))
    hub, norange = free_port(), free_port()
    base = f"http://127.0.0.1:{hub}"
    have_corpus = os.path.isdir(os.path.join(corpus, "gguf"))

    # ---- the server's files
    gguf_dirs = [os.path.join(fix, "gguf")]
    if have_corpus:
        gguf_dirs += [os.path.join(corpus, "gguf"),
                      os.path.join(corpus, "gguf-vocab"),
                      os.path.join(corpus, "tiny-llama")]
    ggufs = []
    for d in gguf_dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".gguf") and (d != gguf_dirs[0] or name in (
                    "valid-llama-q8_0.gguf", "mtp-present.gguf",
                    "sparse-20g.gguf")):
                ggufs.append(os.path.join(d, name))
    link_tree(os.path.join(fix, "gguf", "split"),
              os.path.join(www, "files", "split"))
    if have_corpus:
        link_tree(os.path.join(corpus, "tiny-llama", "split"),
                  os.path.join(www, "files", "tiny-split"))
    for i, p in enumerate(ggufs):
        dst = os.path.join(www, "files", str(i))
        os.makedirs(dst)
        os.symlink(p, os.path.join(dst, os.path.basename(p)))
    repos = {}
    if have_corpus:
        for name in sorted(os.listdir(os.path.join(corpus, "hf"))):
            repos[name] = os.path.join(corpus, "hf", name)
    repos["qwen3"] = os.path.join(fix, "st", "qwen3")
    # a checkpoint with a 20 GB shard (sparse) and its MTP layer
    big = os.path.join(tmp, "big")
    os.makedirs(big)
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
           "hidden_size": 5120, "num_hidden_layers": 1,
           "num_attention_heads": 40, "num_key_value_heads": 8,
           "head_dim": 128, "intermediate_size": 17408,
           "vocab_size": 2000000, "max_position_embeddings": 40960,
           "torch_dtype": "bfloat16"}
    with open(os.path.join(big, "config.json"), "w") as f:
        json.dump(cfg, f)
    big_size = sparse_safetensors(os.path.join(big, "model.safetensors"),
                                  [2000000, 5120])
    repos["big"] = big
    for name, src in repos.items():
        publish_repo(www, f"org/{name}", src)
        link_tree(src, os.path.join(www, "plain", name))
    publish_repo(www, "org/gated", repos["qwen3"])
    publish_repo(www, "org/nohead", repos["qwen3"])
    # a listing in two pages (the second named by a Link header)
    publish_repo(www, "org/paged", repos["qwen3"])
    first = os.path.join(www, "api", "models", "org", "paged", "tree", "main",
                         "index.json")
    entries = json.load(open(first))
    with open(first, "w") as f:
        json.dump(entries[:len(entries) // 2], f)
    with open(os.path.join(www, "api", "models", "org", "paged",
                           "page2.json"), "w") as f:
        json.dump(entries[len(entries) // 2:], f)
    # a listing whose sizes no file has (a mirror or proxy gone wrong,
    # or a hostile one): 1e30 (beyond any integer), -5, 1.5, and 1e400,
    # which a JSON parser reads as infinity. None is a size: the file's
    # HEAD gives it, and the report is the local one.
    publish_repo(www, "org/oddsizes", repos["qwen3"])
    odd = os.path.join(www, "api", "models", "org", "oddsizes", "tree",
                       "main", "index.json")
    with open(odd) as f:
        text = f.read()
    bad = iter(["1e30", "-5", "1.5", "1e400"] * 1000)
    text, k = re.subn(r'"size": [0-9]+', lambda m: '"size": ' + next(bad),
                      text)
    assert k >= 4, k
    with open(odd, "w") as f:
        f.write(text)
    # damaged weights in a repository whose server fails one side file
    # (HTTP 500 for tokenizer_config.json, which the audit reads but can
    # do without): the weights' finding as for the local copy, and the
    # side file's failure as a finding of its own
    sidefail = os.path.join(tmp, "sidefail")
    os.makedirs(sidefail)
    for name in os.listdir(repos["qwen3"]):
        shutil.copy(os.path.join(repos["qwen3"], name), sidefail)
    weights = os.path.join(sidefail, "model.safetensors")
    with open(weights, "r+b") as f:
        # a header length past the end of the file
        f.write(struct.pack("<Q", os.path.getsize(weights) + 4096))
    publish_repo(www, "org/sidefail", sidefail)
    # no model at all (a README and a tokenizer config), and the server
    # fails the tokenizer config, whose listed size is refused, so that
    # the file's own HEAD (HTTP 500) is asked: the answer is still the
    # local one, "not a model folder" (exit 3), not the HTTP error
    notmodel = os.path.join(tmp, "notmodel")
    os.makedirs(notmodel)
    with open(os.path.join(notmodel, "README.md"), "w") as f:
        f.write("# a model card with no model\n")
    with open(os.path.join(notmodel, "tokenizer_config.json"), "w") as f:
        f.write("{}\n")
    publish_repo(www, "org/notmodel", notmodel)
    listing = os.path.join(www, "api", "models", "org", "notmodel", "tree",
                           "main", "index.json")
    with open(listing) as f:
        entries = json.load(f)
    for e in entries:
        if e["path"] == "tokenizer_config.json":
            e["size"] = -5
    with open(listing, "w") as f:
        json.dump(entries, f)
    repos_extra = {"sidefail": sidefail, "notmodel": notmodel}
    # a pull request's revision (refs/pr/1; nginx decodes the %2F)
    publish_repo(www, "org/pr", repos["qwen3"], rev="refs/pr/1")
    # a GGUF repository as they are published: a quant per folder, a
    # split set in one of them
    ggrepo = os.path.join(tmp, "ggrepo")
    link_tree(os.path.join(fix, "gguf", "split"),
              os.path.join(ggrepo, "Q8_0"))
    os.makedirs(os.path.join(ggrepo, "BIG"))
    os.symlink(os.path.join(fix, "gguf", "sparse-20g.gguf"),
               os.path.join(ggrepo, "BIG", "model-BIG.gguf"))
    publish_repo(www, "org/ggufs", ggrepo)
    os.makedirs(os.path.join(www, "slow"))
    shutil.copy(os.path.join(fix, "gguf", "valid-llama-q8_0.gguf"),
                os.path.join(www, "slow", "m.gguf"))

    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        # as root, workers run as root too: they read the test's
        # private temporary folder and the links into the corpus
        user = "user root;" if os.geteuid() == 0 else ""
        f.write(NGINX_CONF.format(user=user, tmp=tmp, www=www, hub=hub,
                                  norange=norange, token=TOKEN))
    server = subprocess.Popen([NGINX, "-p", tmp, "-c", conf],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    trunc = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Truncating)
    threading.Thread(target=trunc.serve_forever, daemon=True).start()
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", hub), 0.2).close()
                socket.create_connection(("127.0.0.1", norange),
                                         0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            c.check(False, "nginx did not start: "
                    + open(os.path.join(tmp, "error.log")).read())
            c.finish()
        cases(c, tmp, www, base, norange, fix, ggufs, repos, big_size,
              trunc.server_address[1], corpus, repos_extra)
    finally:
        server.terminate()
        server.wait(10)
        trunc.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


def cases(c, tmp, www, base, norange, fix, ggufs, repos, big_size,
          trunc_port, corpus, repos_extra):
    hub_env = {"HF_ENDPOINT": base}
    nc = ["--no-cache"]

    # ---- one GGUF by URL: the same report as the local file
    for i, p in enumerate(ggufs):
        name = os.path.basename(p)
        url = f"{base}/files/{i}/{name}"
        err = same_report(c, name, ["inspect", "--format", "json", url] + nc,
                          ["inspect", "--format", "json", p],
                          url, p)
        n = fetched(err or "")
        size = os.path.getsize(p)
        if name == "sparse-20g.gguf":
            c.check(size >= 20 << 30 and n is not None and n < 8 << 20,
                    f"{name}: {n} bytes fetched of a {size}-byte file "
                    "(under 8 MiB)")
        elif err is not None:
            c.check(n is not None and n <= size,
                    f"{name}: fetched {n} of {size} bytes")

    # ---- a split set by the URL of its first part
    split = os.path.join(fix, "gguf", "split")
    first = "tiny-00001-of-00003.gguf"
    log = os.path.join(tmp, "access.log")
    mark = os.path.getsize(log)
    same_report(c, "split set",
                ["inspect", "--format", "json",
                 f"{base}/files/split/{first}"] + nc,
                ["inspect", "--format", "json", os.path.join(split, first)],
                f"{base}/files/split", split)
    # parts 2 and 3 were fetched at once, once their HEADs gave their
    # sizes (prefetch_split): each GET on a connection of its own, and
    # none on the run's one connection its sequential requests share
    with open(log) as f:
        f.seek(mark)
        reqs = [l.split() for l in f.read().splitlines()]
    gets = {l[2].rsplit("/", 1)[1]: l[0] for l in reqs
            if len(l) == 4 and l[1] == "GET" and "/files/split/" in l[2]}
    heads = {l[0] for l in reqs if len(l) == 4 and l[1] == "HEAD"}
    later = [gets.get(f"tiny-0000{k}-of-00003.gguf") for k in (2, 3)]
    c.check(len(gets) == 3 and None not in later and
            len(set(later)) == 2 and not set(later) & heads,
            f"split set: parts 2 and 3 fetched at once, each on its own "
            f"connection: {reqs}")

    # the corpus's split set (llama-gguf-split output), by its first part
    tsplit = os.path.join(corpus, "tiny-llama", "split")
    if os.path.isdir(tsplit):
        first = sorted(n for n in os.listdir(tsplit)
                       if "-00001-of-" in n)[0]
        same_report(c, "corpus split set",
                    ["inspect", "--format", "json",
                     f"{base}/files/tiny-split/{first}"] + nc,
                    ["inspect", "--format", "json",
                     os.path.join(tsplit, first)],
                    f"{base}/files/tiny-split", tsplit)

    # ---- checkpoint folders: hf:// (tree API, CDN redirect) and a
    # plain https:// folder URL (names looked up one by one)
    for name, src in repos.items():
        if name == "big":
            continue
        url = f"{base}/org/{name}/resolve/main"
        for args in (["check", "--format", "json"],
                     ["fit", "--format", "json", "--gpus", "2x16GiB"]):
            same_report(c, f"hf://org/{name} {args[0]}",
                        args + [f"hf://org/{name}"] + nc,
                        args + [src], url, src, env=hub_env)
        same_report(c, f"{base}/plain/{name}/",
                    ["check", "--format", "json",
                     f"{base}/plain/{name}/"] + nc,
                    ["check", "--format", "json", src],
                    f"{base}/plain/{name}", src)
    # a revision with '/' in it, given plain or encoded
    q3 = repos["qwen3"]
    for ref in ("hf://org/pr@refs%2Fpr%2F1", "hf://org/pr@refs%2Fpr%2F1/"):
        same_report(c, ref, ["check", "--format", "json", ref] + nc,
                    ["check", "--format", "json", q3],
                    f"{base}/org/pr/resolve/refs%2Fpr%2F1", q3, env=hub_env)
    same_report(c, "hub API without HEAD",
                ["check", "--format", "json", "hf://org/nohead"] + nc,
                ["check", "--format", "json", q3],
                f"{base}/org/nohead/resolve/main", q3, env=hub_env)
    same_report(c, "hub listing with sizes no file has",
                ["check", "--format", "json", "hf://org/oddsizes"] + nc,
                ["check", "--format", "json", q3],
                f"{base}/org/oddsizes/resolve/main", q3, env=hub_env)
    same_report(c, "hub listing in two pages",
                ["check", "--format", "json", "hf://org/paged"] + nc,
                ["check", "--format", "json", q3],
                f"{base}/org/paged/resolve/main", q3, env=hub_env)
    # a GGUF repository's folders by hf://
    split = os.path.join(fix, "gguf", "split")
    same_report(c, "hf:// GGUF folder with a split set",
                ["inspect", "--format", "json", "hf://org/ggufs/Q8_0"] + nc,
                ["inspect", "--format", "json", split],
                f"{base}/org/ggufs/resolve/main/Q8_0", split, env=hub_env)
    code, out, err, _ = run(["inspect", "--format", "json",
                             "hf://org/ggufs/BIG/model-BIG.gguf"] + nc,
                            hub_env)
    n = fetched(err)
    c.check(code == 0 and n is not None and n < 8 << 20,
            f"hf:// 20 GiB GGUF: exit {code}, {n} bytes fetched\n{err}")
    # a file inside a repository, by its hf:// path
    if "qwen3_moe" in repos:
        src = repos["qwen3_moe"]
        same_report(c, "hf:// shard",
                    ["inspect", "--format", "json",
                     "hf://org/qwen3_moe@main/model-00001-of-00002."
                     "safetensors"] + nc,
                    ["inspect", "--format", "json",
                     os.path.join(src, "model-00001-of-00002.safetensors")],
                    f"{base}/org/qwen3_moe/resolve/main", src, env=hub_env)

    # ---- a 20 GB shard: MTP status and fit, the shard's header only
    code, out, err, _ = run(["fit", "--format", "json", "--gpus", "2x16GiB",
                             "hf://org/big"] + nc, hub_env)
    n = fetched(err)
    c.check(code in (0, 1) and n is not None and n < 1 << 20,
            f"20 GB shard: exit {code}, {n} bytes fetched of "
            f"{big_size}\n{err}")
    try:
        doc = json.loads(out)
        inp = doc["inputs"][0]
        c.check(inp.get("fit") is not None and
                inp.get("parameters", inp.get("params")) is not None or
                "fit" in json.dumps(inp), "20 GB shard: a fit is reported")
        c.check(inp["files"][0]["size"] == big_size if "files" in inp and
                "size" in inp["files"][0] else True,
                "20 GB shard: its size as the server gives it")
    except (ValueError, KeyError, IndexError) as e:
        c.check(False, f"20 GB shard: report {e}: {out[:300]}")

    # ---- the cache: a second run fetches no body byte, same report
    cache = os.path.join(tmp, "cache")
    first_run = run(["check", "--format", "json", "--cache-dir", cache,
                     "hf://org/qwen3"], hub_env)
    second = run(["check", "--format", "json", "--cache-dir", cache,
                  "hf://org/qwen3"], hub_env)
    c.check(fetched(first_run[2]) and fetched(first_run[2]) > 0,
            f"cache: the first run fetches ({first_run[2]})")
    c.check(fetched(second[2]) == 0 and second[1] == first_run[1] and
            second[0] == first_run[0],
            f"cache: the second run fetches nothing and reports the "
            f"same ({second[2]})")
    # a damaged cache is no input: each file cut inside a record, or its
    # head overwritten, is read as far as it is whole (or not at all),
    # the rest fetched again, and the report is the same
    for how in ("cut", "head", "record"):
        for name in os.listdir(cache):
            path = os.path.join(cache, name)
            data = open(path, "rb").read()
            if how == "cut":
                data = data[:len(data) * 2 // 3]
            elif how == "head":
                data = b"quantaudit-http-cache 9\n" + data[24:]
            else:
                # a record claiming more bytes than the file has
                at = data.find(b"\n@")
                if at > 0:
                    nl = data.index(b"\n", at + 1)
                    data = data[:at + 1] + b"@0 99999999999" + data[nl:]
            with open(path, "wb") as f:
                f.write(data)
        again = run(["check", "--format", "json", "--cache-dir", cache,
                     "hf://org/qwen3"], hub_env)
        c.check(again[0] == first_run[0] and again[1] == first_run[1],
                f"cache damaged ({how}): the same report ({again[2]})")
    # a file that changed on the server (another ETag) is fetched again
    gg = ggufs[0]
    url = f"{base}/files/0/{os.path.basename(gg)}"
    run(["inspect", "--cache-dir", cache, url])
    served = os.path.join(www, "files", "0", os.path.basename(gg))
    os.unlink(served)
    shutil.copy(gg, served)
    os.utime(served, (time.time() + 100, time.time() + 100))
    code, out, err, _ = run(["inspect", "--cache-dir", cache, url])
    c.check(code == 0 and fetched(err) and fetched(err) > 0,
            f"cache: a new ETag is fetched again ({err})")

    # ---- the token: the gated repository needs it, the CDN never sees
    # it, and no output shows it
    code, out, err, _ = run(["check", "hf://org/gated"] + nc, hub_env)
    c.check(code == 4 and "HTTP 401" in err and "access denied" in err and
            "/org/gated/" in err,
            f"gated without a token: exit {code}, {err}")
    env = dict(hub_env, HF_TOKEN=TOKEN)
    code, out, err, _ = run(["check", "--format", "json",
                             "hf://org/gated"] + nc, env)
    c.check(code in (0, 1) and TOKEN not in out + err,
            f"gated with HF_TOKEN: exit {code}, {err}")
    tf = os.path.join(tmp, "token")
    with open(tf, "w") as f:
        f.write("  " + TOKEN + "  \n")
    code2, out2, err2, _ = run(["check", "--format", "json", "--token-file",
                                tf, "hf://org/gated"] + nc, hub_env)
    c.check(code2 == code and out2 == out and TOKEN not in out2 + err2,
            f"gated with --token-file: exit {code2}, {err2}")
    # an https:// URL off the hub never gets the token
    code, out, err, _ = run(["inspect", "--format", "json",
                             f"{base}/cdn/org/gated/model.safetensors"] + nc,
                            dict(env, HF_ENDPOINT="https://hub.invalid"))
    c.check(code == 0, f"token kept off other hosts: exit {code} {err}")

    # ---- failures: one line naming the URL and why, never a hang
    def fails(what, args, want, code_want=4, env=None, within=30):
        code, out, err, took = run(args, env)
        lines = [l for l in err.splitlines() if "remote:" not in l]
        c.check(code == code_want and any(want in l for l in lines) and
                took < within,
                f"{what}: exit {code} in {took:.1f} s, want {code_want} "
                f"and '{want}': {err}")

    gg_name = os.path.basename(ggufs[0])
    big_i = [os.path.basename(p) for p in ggufs].index("sparse-20g.gguf")
    fails("no Range support", ["inspect", "--timeout", "5",
          f"http://127.0.0.1:{norange}/files/{big_i}/sparse-20g.gguf"]
          + nc, "ignores Range requests")
    code, out, err, _ = run(["inspect", "--format", "json",
                             "--allow-full-download",
                             f"http://127.0.0.1:{norange}/files/0/{gg_name}"]
                            + nc)
    c.check(code == 0 and fetched(err) == os.path.getsize(ggufs[0]),
            f"--allow-full-download: exit {code}, {err}")
    fails("--max-fetch", ["inspect", "--max-fetch", "1K",
          f"{base}/files/0/{gg_name}"] + nc, "--max-fetch")
    fails("slow server", ["inspect", "--timeout", "2",
          f"{base}/slow/m.gguf"] + nc, "no complete answer within 2 s",
          within=20)
    fails("redirect loop", ["inspect", f"{base}/loop"] + nc,
          "redirect loop")
    fails("404", ["inspect", f"{base}/files/0/nothing.gguf"] + nc,
          "nothing.gguf")
    fails("404 on the hub", ["check", "hf://org/no-such-repo"] + nc,
          "no-such-repo", env=hub_env)
    fails("truncated answer", ["inspect", "--timeout", "5",
          f"http://127.0.0.1:{trunc_port}/m.gguf"] + nc, "cut short")
    fails("malformed reference", ["inspect", "hf://just-org"] + nc,
          "hf://org/repo", code_want=2)
    fails("hash of a remote model", ["hash", f"{base}/files/0/{gg_name}"],
          "download the model first", code_want=2)
    fails("scan of a remote model", ["scan", "hf://org/qwen3"],
          "download the model first", code_want=2, env=hub_env)
    # diff reads headers: a remote model against its local copy is the
    # same model
    if "qwen3_moe" in repos:
        code, out, err, _ = run(["diff", "hf://org/qwen3_moe",
                                 repos["qwen3_moe"]] + nc, hub_env)
        c.check(code == 0, f"diff remote vs local: exit {code}\n{out}{err}")
    # a side file the server fails is a finding of its own (QA1412, the
    # server's words), never silence, and does not stand in for the
    # weights' own damage nor for "not a model folder"
    sidefail = repos_extra["sidefail"]
    lcode, lout, _, _ = run(["inspect", "--format", "json", sidefail])
    code, out, err, _ = run(["inspect", "--format", "json",
                             "hf://org/sidefail"] + nc, hub_env)
    try:
        lf = json.loads(lout)["inputs"][0]["findings"]
        rf = json.loads(out)["inputs"][0]["findings"]
    except (ValueError, KeyError, IndexError):
        lf, rf = [], []
    unread = [f for f in rf if f["code"] == "QA1412"]
    # exit 4: the report stands, but the run met a system error (the
    # server's), which a retry may not
    c.check(lcode == 1 and code == 4 and
            [f["code"] for f in lf] == ["QA1203"] and
            sorted(f["code"] for f in rf) == ["QA1203", "QA1412"] and
            len(unread) == 1 and
            unread[0]["file"].endswith("/tokenizer_config.json") and
            "tokenizer_config.json could not be read (HTTP 500 from the "
            "server)" in unread[0]["message"],
            f"damaged weights, failed side file: exit {code} (local "
            f"{lcode}): the weights' QA1203 and the side file's QA1412\n"
            f"{out}{err}\nlocal: {lout}")
    notmodel = repos_extra["notmodel"]
    lcode, _, lerr, _ = run(["inspect", notmodel])
    code, out, err, _ = run(["inspect", "hf://org/notmodel"] + nc, hub_env)
    c.check(lcode == 3 and code == lcode and "HTTP 500" not in err and
            "not a model folder" in err,
            f"no model, failed side file: exit {code} (local {lcode})\n"
            f"{err}\nlocal: {lerr}")
    closed = free_port()
    fails("nobody listening", ["inspect", "--timeout", "3",
          f"http://127.0.0.1:{closed}/m.gguf"] + nc,
          f"127.0.0.1:{closed}", within=20)


if __name__ == "__main__":
    sys.exit(main())
