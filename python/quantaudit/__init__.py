# SPDX-License-Identifier: MIT
"""quantaudit: inspect and audit LLM model files (GGUF, safetensors,
Hugging Face folders and caches) from their headers, without loading the
weights.

Each function returns the quantaudit/1 JSON report as a dict, the very
document `quantaudit COMMAND --format json` writes (its "schema" key is
the schema version), computed in-process by libquantaudit through ctypes:

    >>> import quantaudit
    >>> r = quantaudit.inspect("model.gguf")
    >>> r["schema"], r["inputs"][0]["model"]["architecture"]
    >>> quantaudit.check("model/", gpus="2x16G")["verdict"]
    >>> quantaudit.fit("model.gguf", gpus="rtx-4090", ctx="32k")
    >>> quantaudit.diff("a.gguf", "b.gguf")

A path may be anything the command line takes: a file, a model folder, a
Hugging Face cache folder (models--org--name, or the snapshots/REV folder
huggingface_hub.snapshot_download returns), a URL or hf://org/repo.
Options are keyword arguments named as the command line's (gpus="24G",
fail_on="warning", kv_k="q8_0"; True for a flag), or a list of
command-line words in `options`.

Findings are data, not errors: a model that fails its checks returns its
report (verdict "fail"). Exceptions say the call itself went wrong:
UsageError (bad options), NotAModelError (the input is no model the tool
reads, or is missing), QuantauditSystemError (I/O, out of memory).
"""
import ctypes
import ctypes.util
import json
import os

__all__ = ["inspect", "check", "fit", "diff", "scan", "tensors", "run",
           "library_version", "QuantauditError", "UsageError",
           "NotAModelError", "QuantauditSystemError", "SCHEMA"]

SCHEMA = "quantaudit/1"
__version__ = "0.1.0"


class QuantauditError(Exception):
    """A call that produced no usable report. exit_code is the command
    line's (2 usage, 3 input not recognized, 4 system), report the
    document when one was written (its "errors" say why)."""

    def __init__(self, message, exit_code=None, report=None):
        super().__init__(message)
        self.exit_code = exit_code
        self.report = report


class UsageError(QuantauditError, ValueError):
    """Bad command, options or number of inputs (exit 2)."""


class NotAModelError(QuantauditError):
    """An input that is missing or is no model quantaudit reads
    (exit 3)."""


class QuantauditSystemError(QuantauditError, OSError):
    """An I/O error or out of memory (exit 4)."""


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("QUANTAUDIT_LIBRARY"),
                  os.path.join(here, "libquantaudit.so"),
                  os.path.join(here, "libquantaudit.so.1"),
                  ctypes.util.find_library("quantaudit"),
                  "libquantaudit.so.1"]
    errors = []
    for c in candidates:
        if not c:
            continue
        try:
            lib = ctypes.CDLL(c)
        except OSError as e:
            errors.append(f"{c}: {e}")
            continue
        lib.quantaudit_version.restype = ctypes.c_char_p
        lib.quantaudit_version.argtypes = []
        lib.quantaudit_report.restype = ctypes.c_void_p
        lib.quantaudit_report.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int),
            ctypes.POINTER(ctypes.c_void_p)]
        lib.quantaudit_free.restype = None
        lib.quantaudit_free.argtypes = [ctypes.c_void_p]
        return lib
    raise ImportError("libquantaudit not found (set QUANTAUDIT_LIBRARY): "
                      + "; ".join(errors))


_lib = _load()


def library_version():
    """The version of the C library in use."""
    return _lib.quantaudit_version().decode()


def _word(x, what):
    if isinstance(x, bytes):
        b = x
    elif isinstance(x, (str, os.PathLike)):
        b = os.fsencode(x)
    else:
        raise TypeError(f"{what} must be str, bytes or os.PathLike, not "
                        f"{type(x).__name__}")
    if b"\0" in b:
        raise ValueError(f"{what} contains a NUL byte: {x!r}")
    if not b:
        raise ValueError(f"{what} is empty")
    return b


def _options(options, kwargs):
    words = []
    for key, value in kwargs.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if v is True:
                words.append(flag)
            else:
                words += [flag, str(v) if not isinstance(
                    v, (bytes, os.PathLike)) else v]
    if options:
        if isinstance(options, (str, bytes)):
            raise TypeError("options is a list of command-line words")
        words += list(options)
    return [_word(w, "option") for w in words]


def _array(items):
    arr = (ctypes.c_char_p * (len(items) + 1))(*items, None)
    return arr


def run(command, paths, options=None, **kwargs):
    """Runs COMMAND over paths; returns (exit code, report dict). Raises
    only when no report was written or it says the inputs could not be
    read (see the exceptions)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [_word(p, "path") for p in paths]
    words = _options(options, kwargs)
    code = ctypes.c_int(0)
    err = ctypes.c_void_p(None)
    ptr = _lib.quantaudit_report(_word(command, "command"), _array(paths),
                                 len(paths), _array(words),
                                 ctypes.byref(code), ctypes.byref(err))
    message = None
    if err.value:
        message = ctypes.string_at(err.value).decode("utf-8", "replace")
        _lib.quantaudit_free(err)
    if not ptr:
        cls = {2: UsageError, 3: NotAModelError}.get(
            code.value, QuantauditSystemError)
        raise cls(message or f"quantaudit {command}: no report (exit "
                  f"{code.value})", code.value)
    try:
        text = ctypes.string_at(ptr)
    finally:
        _lib.quantaudit_free(ptr)
    report = json.loads(text.decode("utf-8"))
    if code.value in (3, 4) and report.get("errors"):
        first = report["errors"][0]
        cls = NotAModelError if code.value == 3 else QuantauditSystemError
        raise cls(f"{first.get('path')}: {first.get('message')}",
                  code.value, report)
    if code.value == 2:
        raise UsageError(message or "usage error", 2, report)
    return code.value, report


def inspect(path, options=None, **kwargs):
    """The model summary, components, tensors and findings of the
    built-in checks (`quantaudit inspect`)."""
    return run("inspect", path, options, **kwargs)[1]


def tensors(path, options=None, **kwargs):
    """One entry per tensor (`quantaudit tensors`; match= a regex)."""
    return run("tensors", path, options, **kwargs)[1]


def check(path, options=None, *, policy=None, **kwargs):
    """Every rule and a verdict (`quantaudit check`); policy= a JSON
    policy file (--rules), gpus=, engine=, fail_on= and the rest as on
    the command line. path may be a list of inputs."""
    if policy is not None:
        kwargs["rules"] = policy
    return run("check", path, options, **kwargs)[1]


def fit(path, gpus, options=None, **kwargs):
    """Per-GPU memory under llama.cpp, vLLM or SGLang (`quantaudit fit
    --gpus SPEC`): gpus="2x16G", "rtx-4090", "none"..."""
    return run("fit", path, options, gpus=gpus, **kwargs)[1]


def scan(path, options=None, **kwargs):
    """check plus the data scan of every tensor (`quantaudit scan`)."""
    return run("scan", path, options, **kwargs)[1]


def diff(a, b, options=None, **kwargs):
    """What changed between two models (`quantaudit diff A B`);
    content=True also compares every byte."""
    return run("diff", [a, b], options, **kwargs)[1]
