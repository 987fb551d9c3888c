#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A poisoned or damaged HTTP cache entry never changes a verdict (issue
32, src/remote/remote.c "the disk cache", docs/security.md "The HTTP
cache"), against a Python HTTP server on loopback started by this test
(ranges, ETag = a digest of the content).

Two GGUFs are served: one that passes `check` and one that fails it
(a duplicated metadata key). Each is checked once with --no-cache (the
fresh report), once to fill a --cache-dir, then its cache file (named by
the SHA-256 of the URL, as remote.c names it) is damaged and the check run
again. The report must equal the fresh one every time, and where the
entry was damaged rather than stale, stderr says so in one line naming
the URL:

- cut inside a record (a write torn by a crash): the whole records before
  the cut are used, the rest fetched again;
- one byte of a record's data flipped (in the GGUF header, where it would
  change the report): its checksum fails;
- the failing model's cache file copied to the passing model's name (and
  the other way round): another URL's entry;
- the passing model's entry with its head edited to the failing model's
  URL, ETag and size (a cache poisoned to make a bad model look clean):
  every record's checksum binds it to the head, so none is used;
- a record moved to another offset: its checksum fails;
- the ETag in the head changed (the server's file changed): fetched again
  without a note, as a cache of an older version is no damage;
- a cache file in the format of an earlier version: started over.
"""
import hashlib
import http.server
import os
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qa_common import Checker, env_path  # noqa: E402

QA = None
FILES = {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _head(self, code, data, extra=()):
        self.send_response(code)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag",
                         '"%s"' % hashlib.sha256(data).hexdigest()[:20])

    def do_HEAD(self):
        data = FILES.get(self.path)
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._head(200, data, [("Content-Length", str(len(data)))])
        self.end_headers()

    def do_GET(self):
        data = FILES.get(self.path)
        if data is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        rng = self.headers.get("Range", "")
        if not rng.startswith("bytes="):
            self._head(200, data, [("Content-Length", str(len(data)))])
            self.end_headers()
            self.wfile.write(data)
            return
        a, b = rng[6:].split("-")
        a, b = int(a), min(int(b), len(data) - 1)
        part = data[a:b + 1]
        self._head(206, data, [
            ("Content-Range", f"bytes {a}-{b}/{len(data)}"),
            ("Content-Length", str(len(part)))])
        self.end_headers()
        self.wfile.write(part)


def run(args):
    env = dict(os.environ)
    env.pop("HF_TOKEN", None)
    p = subprocess.run([QA] + args, capture_output=True, timeout=120,
                       env=env)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def cache_name(cache, url):
    return os.path.join(cache, hashlib.sha256(url.encode()).hexdigest())


def parse(blob):
    """(head lines, [(offset, length, digest, data start)]) of a cache
    file, read here from the format docs/remote.md describes."""
    lines = blob.split(b"\n", 4)
    head_len = sum(len(x) + 1 for x in lines[:4])
    recs, k = [], head_len
    while k < len(blob):
        nl = blob.index(b"\n", k)
        off, n, d = blob[k + 1:nl].split(b" ")
        recs.append((int(off), int(n), d, nl + 1))
        k = nl + 1 + int(n)
    return lines[:4], head_len, recs


def main():
    global QA
    QA = sys.argv[1]
    fix = env_path("QA_FIXTURES")
    good = open(os.path.join(fix, "gguf", "valid-llama-q8_0.gguf"),
                "rb").read()
    bad = open(os.path.join(fix, "gguf", "duplicate-key.gguf"), "rb").read()
    FILES["/good.gguf"] = good
    FILES["/bad.gguf"] = bad
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    urls = {"good": base + "/good.gguf", "bad": base + "/bad.gguf"}
    c = Checker()
    fresh = {k: run(["check", "--format", "json", "--no-cache", u])
             for k, u in urls.items()}
    c.check(fresh["good"][0] == 0 and fresh["bad"][0] == 1,
            f"fresh: exits {fresh['good'][0]}, {fresh['bad'][0]} "
            f"({fresh['bad'][2][:200]})")

    with tempfile.TemporaryDirectory(prefix="qa-cache-") as cache:
        def check(which):
            return run(["check", "--format", "json", "--cache-dir", cache,
                        urls[which]])

        def fill():
            for f in os.listdir(cache):
                os.unlink(os.path.join(cache, f))
            for k in urls:
                check(k)
            return {k: open(cache_name(cache, u), "rb").read()
                    for k, u in urls.items()}

        def same(what, which, note):
            code, out, err = check(which)
            want = fresh[which]
            c.check(code == want[0] and out == want[1],
                    f"{what}: exit {code} (fresh {want[0]}), report "
                    f"{'same' if out == want[1] else 'differs'} ({err})")
            notes = [ln for ln in err.splitlines() if "cache entry" in ln]
            if note:
                alts = note if isinstance(note, tuple) else (note,)
                c.check(len(notes) == 1 and urls[which] in notes[0] and
                        any(a in notes[0] for a in alts) and
                        "fetched again" in notes[0],
                        f"{what}: no one-line note with {note!r}: {err}")
            else:
                c.check(not notes, f"{what}: a note {notes}")
            return err

        blobs = fill()
        # the second run is served from the cache, and reports the same
        code, out, err = check("good")
        c.check("(fetched bytes: 0)" in err and out == fresh["good"][1],
                f"cache: the second run fetches ({err})")
        head, hl, recs = parse(blobs["good"])
        c.check(head[0] == b"quantaudit-http-cache 2" and
                head[1] == urls["good"].encode() and recs and
                all(len(r[2]) == 64 for r in recs),
                f"cache file: head {head}, records {recs[:2]}")
        # each record's digest as docs/remote.md gives it
        for off, n, d, at in recs:
            want = hashlib.sha256(blobs["good"][:hl] + b"%d %d\n" % (off, n) +
                                  blobs["good"][at:at + n]).hexdigest()
            c.check(d.decode() == want, f"record @{off}: digest {d!r}, "
                    f"SHA-256 of head, offset line and data {want}")

        for which in ("good", "bad"):
            blob = blobs[which]
            head, hl, recs = parse(blob)
            path = cache_name(cache, urls[which])
            # cut inside the first record's data
            off, n, d, at = recs[0]
            open(path, "wb").write(blob[:at + n // 2])
            same(f"{which}: cut", which, "cut short or malformed")
            # a byte flipped in the GGUF header: the architecture name
            fill()
            i = blob.find(b"llama", at)
            flipped = bytearray(blob)
            flipped[i + 4] ^= 0x01
            open(path, "wb").write(bytes(flipped))
            same(f"{which}: flipped byte", which, "checksum fails")
            # a record moved: the first one's offset rewritten (past the
            # file's end when the record holds all of it: malformed)
            fill()
            line = b"@%d %d " % (off, n)
            moved = blob.replace(line, b"@%d %d " % (off + 1, n), 1)
            open(path, "wb").write(moved)
            same(f"{which}: moved record", which,
                 ("checksum fails", "cut short or malformed"))
            # a record moved where it fits: its first byte dropped and
            # its offset moved up by one
            fill()
            line = b"@%d %d %s\n" % (off, n, d)
            moved = blob.replace(line + blob[at:at + 1],
                                 b"@%d %d %s\n" % (off + 1, n - 1, d), 1)
            open(path, "wb").write(moved)
            same(f"{which}: shifted record", which, "checksum fails")
            # the ETag changed: stale, fetched again silently
            fill()
            stale = blob.replace(head[2], b'"other-etag"', 1)
            open(path, "wb").write(stale)
            err = same(f"{which}: another ETag", which, None)
            c.check("(fetched bytes: 0)" not in err,
                    f"{which}: another ETag is not fetched again ({err})")
            # an earlier version's file
            fill()
            open(path, "wb").write(blob.replace(
                b"quantaudit-http-cache 2", b"quantaudit-http-cache 1", 1))
            same(f"{which}: version 1", which, None)

        # swapped between the URLs
        blobs = fill()
        open(cache_name(cache, urls["good"]), "wb").write(blobs["bad"])
        open(cache_name(cache, urls["bad"]), "wb").write(blobs["good"])
        same("swapped: good", "good", "holds another URL's entry")
        same("swapped: bad", "bad", "holds another URL's entry")
        # poisoned: the good model's records under the bad one's head
        blobs = fill()
        gh, ghl, _ = parse(blobs["good"])
        bh, bhl, _ = parse(blobs["bad"])
        poisoned = b"\n".join(bh) + b"\n" + blobs["good"][ghl:]
        open(cache_name(cache, urls["bad"]), "wb").write(poisoned)
        same("poisoned head", "bad", "checksum fails")
    srv.shutdown()
    c.finish()


if __name__ == "__main__":
    main()
