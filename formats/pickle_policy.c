/* SPDX-License-Identifier: MIT */
/*
 * The pickle walker's judgement of a global (formats/pickle.h): which
 * (module, name) pairs pickle.load may import for a model file.
 *
 * The judgement is an allowlist first: PyTorch's weights_only unpickler
 * (pytorch/pytorch torch/_weights_only_unpickler.py @ 00f730b6,
 * _get_allowed_globals() and _tensor_rebuild_functions()). A denylist
 * (the union of picklescan 1.0.5 scanner.py, modelscan settings.py and
 * fickling analysis.py UnsafeImports, and the scanner advisories listed
 * in docs/security.md) only decides whether a global outside the
 * allowlist is named "dangerous" (QA1601) or "outside the allowlist"
 * (QA1602): both are errors. The machine that meets the globals is
 * formats/pickle.c; the opcodes are formats/pickle_ops.c.
 */
#define QA_PICKLE_INTERNAL
#include "formats/pickle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ------------------------------------------------------------- */

/*
 * What torch.load(weights_only=True) accepts by default, as "module.name"
 * (torch/_weights_only_unpickler.py @ 00f730b6): collections.OrderedDict
 * and Counter, torch.nn.parameter.Parameter, torch.serialization.
 * _get_layout, torch.Size, torch.Tensor, torch.device, _codecs.encode,
 * builtins bytearray/set/complex; every dtype of
 * torch.storage._dtype_to_storage_type_map() and _new_dtypes() and
 * torch.uint1-7/int1-7 (str(dtype) spells them "torch.float32"); the
 * legacy tensor classes of torch._tensor_classes; the storage classes of
 * torch._storage_classes; the quantization schemes; the
 * torch._utils._rebuild_* functions; torch._tensor._rebuild_from_type_v2.
 * Sorted by strcmp (bsearch; tests/unit/test_pickle.c checks the order).
 */
static const char *const allow_names[] = {
	"_codecs.encode", "builtins.bytearray", "builtins.complex",
	"builtins.set", "collections.Counter", "collections.OrderedDict",
	"torch.BFloat16Storage", "torch.BFloat16Tensor", "torch.BoolStorage",
	"torch.BoolTensor", "torch.ByteStorage", "torch.ByteTensor",
	"torch.CharStorage", "torch.CharTensor",
	"torch.ComplexDoubleStorage", "torch.ComplexFloatStorage",
	"torch.DoubleStorage", "torch.DoubleTensor", "torch.FloatStorage",
	"torch.FloatTensor", "torch.HalfStorage", "torch.HalfTensor",
	"torch.IntStorage", "torch.IntTensor", "torch.LongStorage",
	"torch.LongTensor", "torch.QInt32Storage", "torch.QInt8Storage",
	"torch.QUInt2x4Storage", "torch.QUInt4x2Storage",
	"torch.QUInt8Storage", "torch.ShortStorage", "torch.ShortTensor",
	"torch.Size", "torch.Tensor", "torch.TypedStorage",
	"torch.UntypedStorage", "torch._tensor._rebuild_from_type_v2",
	"torch._utils._rebuild_device_tensor_from_cpu_tensor",
	"torch._utils._rebuild_device_tensor_from_numpy",
	"torch._utils._rebuild_meta_tensor_no_storage",
	"torch._utils._rebuild_nested_tensor",
	"torch._utils._rebuild_parameter",
	"torch._utils._rebuild_parameter_with_state",
	"torch._utils._rebuild_qtensor",
	"torch._utils._rebuild_sparse_tensor",
	"torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v2",
	"torch._utils._rebuild_tensor_v3",
	"torch._utils._rebuild_wrapper_subclass", "torch.bfloat16",
	"torch.bits16", "torch.bits1x8", "torch.bits2x4", "torch.bits4x2",
	"torch.bits8", "torch.bool", "torch.complex128", "torch.complex32",
	"torch.complex64", "torch.cuda.BFloat16Storage",
	"torch.cuda.BFloat16Tensor", "torch.cuda.BoolStorage",
	"torch.cuda.BoolTensor", "torch.cuda.ByteStorage",
	"torch.cuda.ByteTensor", "torch.cuda.CharStorage",
	"torch.cuda.CharTensor", "torch.cuda.ComplexDoubleStorage",
	"torch.cuda.ComplexFloatStorage", "torch.cuda.DoubleStorage",
	"torch.cuda.DoubleTensor", "torch.cuda.FloatStorage",
	"torch.cuda.FloatTensor", "torch.cuda.HalfStorage",
	"torch.cuda.HalfTensor", "torch.cuda.IntStorage",
	"torch.cuda.IntTensor", "torch.cuda.LongStorage",
	"torch.cuda.LongTensor", "torch.cuda.ShortStorage",
	"torch.cuda.ShortTensor", "torch.cuda.sparse.BFloat16Tensor",
	"torch.cuda.sparse.BoolTensor", "torch.cuda.sparse.ByteTensor",
	"torch.cuda.sparse.CharTensor", "torch.cuda.sparse.DoubleTensor",
	"torch.cuda.sparse.FloatTensor", "torch.cuda.sparse.HalfTensor",
	"torch.cuda.sparse.IntTensor", "torch.cuda.sparse.LongTensor",
	"torch.cuda.sparse.ShortTensor", "torch.device", "torch.float16",
	"torch.float32", "torch.float4_e2m1fn_x2", "torch.float64",
	"torch.float8_e4m3fn", "torch.float8_e4m3fnuz", "torch.float8_e5m2",
	"torch.float8_e5m2fnuz", "torch.float8_e8m0fnu", "torch.int1",
	"torch.int16", "torch.int2", "torch.int3", "torch.int32",
	"torch.int4", "torch.int5", "torch.int6", "torch.int64",
	"torch.int7", "torch.int8", "torch.nn.parameter.Parameter",
	"torch.per_channel_affine", "torch.per_channel_affine_float_qparams",
	"torch.per_channel_symmetric", "torch.per_tensor_affine",
	"torch.per_tensor_symmetric", "torch.qint32", "torch.qint8",
	"torch.quint2x4", "torch.quint4x2", "torch.quint8",
	"torch.serialization._get_layout", "torch.sparse.BFloat16Tensor",
	"torch.sparse.BoolTensor", "torch.sparse.ByteTensor",
	"torch.sparse.CharTensor", "torch.sparse.DoubleTensor",
	"torch.sparse.FloatTensor", "torch.sparse.HalfTensor",
	"torch.sparse.IntTensor", "torch.sparse.LongTensor",
	"torch.sparse.ShortTensor", "torch.storage.TypedStorage",
	"torch.storage.UntypedStorage", "torch.uint1", "torch.uint16",
	"torch.uint2", "torch.uint3", "torch.uint32", "torch.uint4",
	"torch.uint5", "torch.uint6", "torch.uint64", "torch.uint7",
	"torch.uint8",
};

/*
 * Safe globals torch's weights_only loader still refuses: numpy's array
 * and scalar reconstructors (picklescan's safe_globals; they rebuild
 * arrays from bytes and already-unpickled objects) and its random
 * generator constructors, which look bit generators up by name in a
 * fixed table. Sorted.
 */
static const char *const safe_names[] = {
	"numpy._core.multiarray._reconstruct",
	"numpy._core.multiarray.scalar",
	"numpy._core.numeric._frombuffer",
	"numpy.core.multiarray._reconstruct",
	"numpy.core.multiarray.scalar",
	"numpy.core.numeric._frombuffer",
	"numpy.dtype",
	"numpy.ndarray",
	"numpy.random._pickle.__bit_generator_ctor",
	"numpy.random._pickle.__generator_ctor",
	"numpy.random._pickle.__randomstate_ctor",
};

enum deny_reason {
	R_EXEC, R_FILE, R_NET, R_IMP, R_PKL, R_ATTR, R_SYS, R_SCAN, R_TORCH,
};

static const char *const reason_text[] = {
	[R_EXEC] = "runs commands or code",
	[R_FILE] = "reads or writes files",
	[R_NET] = "opens network connections",
	[R_IMP] = "imports modules or loads code",
	[R_PKL] = "loads further pickles",
	[R_ATTR] = "reaches attributes by name (a getattr gadget)",
	[R_SYS] = "changes the interpreter or process",
	[R_SCAN] = "imports a pickle scanner (to tamper with it)",
	[R_TORCH] = "a torch loader or compiler path that runs code",
};

struct deny {
	const char *name;
	uint8_t reason;	/* enum deny_reason */
};

/*
 * Module trees denied whole (the module and its submodules): picklescan
 * 1.0.5 _unsafe_globals "*" entries, modelscan's CRITICAL/HIGH modules,
 * fickling's UnsafeImports, and the scanner advisories (pip, cProfile,
 * uuid, pkgutil, _osx_support, _aix_support, _pyrepl, torch._dynamo,
 * torch._inductor...). Sorted.
 */
static const struct deny deny_modules[] = {
	{ "_aix_support", R_EXEC },
	{ "_ctypes", R_EXEC },
	{ "_operator", R_ATTR },
	{ "_osx_support", R_EXEC },
	{ "_pickle", R_PKL },
	{ "_posixsubprocess", R_EXEC },
	{ "_pyrepl", R_EXEC },
	{ "_thread", R_EXEC },
	{ "aiohttp", R_NET },
	{ "asyncio", R_EXEC },
	{ "bdb", R_EXEC },
	{ "cPickle", R_PKL },
	{ "cProfile", R_EXEC },
	{ "cloudpickle", R_PKL },
	{ "code", R_EXEC },
	{ "codeop", R_EXEC },
	{ "commands", R_EXEC },
	{ "compileall", R_EXEC },
	{ "ctypes", R_EXEC },
	{ "dill", R_PKL },
	{ "distutils", R_EXEC },
	{ "doctest", R_EXEC },
	{ "ensurepip", R_EXEC },
	{ "fcntl", R_FILE },
	{ "fickling", R_SCAN },
	{ "ftplib", R_NET },
	{ "functools", R_ATTR },
	{ "gc", R_SYS },
	{ "http", R_NET },
	{ "httplib", R_NET },
	{ "httpx", R_NET },
	{ "idlelib", R_EXEC },
	{ "imaplib", R_NET },
	{ "imp", R_IMP },
	{ "importlib", R_IMP },
	{ "inspect", R_ATTR },
	{ "joblib", R_PKL },
	{ "lib2to3", R_EXEC },
	{ "logging.config", R_EXEC },
	{ "marshal", R_IMP },
	{ "mmap", R_FILE },
	{ "modelaudit", R_SCAN },
	{ "modelscan", R_SCAN },
	{ "multiprocessing", R_EXEC },
	{ "nntplib", R_NET },
	{ "nt", R_EXEC },
	{ "numpy.ctypeslib", R_EXEC },
	{ "numpy.distutils", R_EXEC },
	{ "numpy.f2py", R_EXEC },
	{ "numpy.testing", R_EXEC },
	{ "operator", R_ATTR },
	{ "os", R_EXEC },
	{ "paramiko", R_NET },
	{ "pdb", R_EXEC },
	{ "pexpect", R_EXEC },
	{ "pickle", R_PKL },
	{ "picklescan", R_SCAN },
	{ "pip", R_EXEC },
	{ "pkgutil", R_IMP },
	{ "platform", R_EXEC },
	{ "poplib", R_NET },
	{ "posix", R_EXEC },
	{ "profile", R_EXEC },
	{ "pty", R_EXEC },
	{ "py_compile", R_EXEC },
	{ "pydoc", R_EXEC },
	{ "requests", R_NET },
	{ "resource", R_SYS },
	{ "runpy", R_EXEC },
	{ "select", R_NET },
	{ "setuptools", R_EXEC },
	{ "shelve", R_PKL },
	{ "shutil", R_FILE },
	{ "signal", R_SYS },
	{ "site", R_IMP },
	{ "smtpd", R_NET },
	{ "smtplib", R_NET },
	{ "socket", R_NET },
	{ "socketserver", R_NET },
	{ "sqlite3", R_FILE },
	{ "ssl", R_NET },
	{ "subprocess", R_EXEC },
	{ "sys", R_SYS },
	{ "tarfile", R_FILE },
	{ "telnetlib", R_NET },
	{ "tempfile", R_FILE },
	{ "test", R_EXEC },
	{ "threading", R_EXEC },
	{ "timeit", R_EXEC },
	{ "torch._dynamo", R_TORCH },
	{ "torch._inductor", R_TORCH },
	{ "torch.fx.experimental.symbolic_shapes", R_TORCH },
	{ "torch.hub", R_TORCH },
	{ "torch.jit", R_TORCH },
	{ "torch.package", R_TORCH },
	{ "torch.utils._config_module", R_TORCH },
	{ "torch.utils.cpp_extension", R_TORCH },
	{ "trace", R_EXEC },
	{ "types", R_EXEC },
	{ "urllib", R_NET },
	{ "urllib2", R_NET },
	{ "urllib3", R_NET },
	{ "uuid", R_EXEC },
	{ "venv", R_EXEC },
	{ "webbrowser", R_EXEC },
	{ "xmlrpc", R_NET },
	{ "xmlrpclib", R_NET },
	{ "zipfile", R_FILE },
	{ "zipimport", R_IMP },
};

/* Single callables denied by full name (builtins and __builtin__ eval,
 * exec, compile, open, getattr..., torch.load and its internals, numpy
 * loaders, file handlers). Sorted. */
static const struct deny deny_names[] = {
	{ "__builtin__.__import__", R_IMP },
	{ "__builtin__.apply", R_EXEC },
	{ "__builtin__.compile", R_EXEC },
	{ "__builtin__.eval", R_EXEC },
	{ "__builtin__.exec", R_EXEC },
	{ "__builtin__.execfile", R_EXEC },
	{ "__builtin__.file", R_FILE },
	{ "__builtin__.getattr", R_ATTR },
	{ "__builtin__.input", R_EXEC },
	{ "__builtin__.open", R_FILE },
	{ "__builtin__.reload", R_IMP },
	{ "__builtin__.setattr", R_ATTR },
	{ "_io.FileIO", R_FILE },
	{ "_io.open", R_FILE },
	{ "_io.open_code", R_FILE },
	{ "builtins.__import__", R_IMP },
	{ "builtins.apply", R_EXEC },
	{ "builtins.breakpoint", R_EXEC },
	{ "builtins.compile", R_EXEC },
	{ "builtins.delattr", R_ATTR },
	{ "builtins.eval", R_EXEC },
	{ "builtins.exec", R_EXEC },
	{ "builtins.execfile", R_EXEC },
	{ "builtins.exit", R_SYS },
	{ "builtins.file", R_FILE },
	{ "builtins.getattr", R_ATTR },
	{ "builtins.globals", R_ATTR },
	{ "builtins.help", R_EXEC },
	{ "builtins.input", R_EXEC },
	{ "builtins.locals", R_ATTR },
	{ "builtins.open", R_FILE },
	{ "builtins.quit", R_SYS },
	{ "builtins.raw_input", R_EXEC },
	{ "builtins.reload", R_IMP },
	{ "builtins.setattr", R_ATTR },
	{ "builtins.vars", R_ATTR },
	{ "bz2.open", R_FILE },
	{ "codecs.open", R_FILE },
	{ "collections.namedtuple", R_EXEC },
	{ "fileinput.input", R_FILE },
	{ "gzip.open", R_FILE },
	{ "io.FileIO", R_FILE },
	{ "io.open", R_FILE },
	{ "io.open_code", R_FILE },
	{ "logging.FileHandler", R_FILE },
	{ "logging.handlers.RotatingFileHandler", R_FILE },
	{ "logging.handlers.SocketHandler", R_NET },
	{ "lzma.open", R_FILE },
	{ "numpy.fromfile", R_FILE },
	{ "numpy.lib.npyio.load", R_PKL },
	{ "numpy.load", R_PKL },
	{ "numpy.loadtxt", R_FILE },
	{ "numpy.memmap", R_FILE },
	{ "numpy.save", R_FILE },
	{ "numpy.savetxt", R_FILE },
	{ "numpy.tofile", R_FILE },
	{ "pathlib.Path.write_text", R_FILE },
	{ "torch._C._jit_compile", R_TORCH },
	{ "torch.jit.unsupported_tensor_ops.execWrapper", R_TORCH },
	{ "torch.load", R_TORCH },
	{ "torch.serialization._legacy_load", R_TORCH },
	{ "torch.serialization._load", R_TORCH },
	{ "torch.serialization.load", R_TORCH },
	{ "torch.storage._load_from_bytes", R_TORCH },
};

/* Python 2 module names pickle maps for protocols below 3 and torch's
 * weights_only loader always maps (CPython Lib/_compat_pickle.py
 * IMPORT_MAPPING, the entries that matter here). */
static const char *const py2_modules[][2] = {
	{ "__builtin__", "builtins" },
	{ "cPickle", "pickle" },
	{ "commands", "subprocess" },
	{ "copy_reg", "copyreg" },
	{ "exceptions", "builtins" },
	{ "httplib", "http.client" },
	{ "urllib2", "urllib.request" },
	{ "xmlrpclib", "xmlrpc.client" },
	{ "SocketServer", "socketserver" },
	{ "cStringIO", "io" },
	{ "StringIO", "io" },
	{ "UserDict", "collections" },
};

static int
cmp_str_key(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static int
cmp_deny_key(const void *key, const void *elem)
{
	return strcmp((const char *)key, ((const struct deny *)elem)->name);
}

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static bool
in_list(const char *const *list, size_t n, const char *full)
{
	return bsearch(full, list, n, sizeof(*list), cmp_str_key) != NULL;
}

/* The denylist entry for module (or one of its parent packages), or
 * for module.name; NULL when none. */
static const struct deny *
denied(const char *module, const char *full)
{
	const struct deny *d;
	char buf[512];
	size_t n = strlen(module);

	d = bsearch(full, deny_names, N_ELEMS(deny_names), sizeof(*d),
		    cmp_deny_key);
	if (d)
		return d;
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, module, n + 1);
	for (;;) {
		char *dot;

		d = bsearch(buf, deny_modules, N_ELEMS(deny_modules),
			    sizeof(*d), cmp_deny_key);
		if (d)
			return d;
		dot = strrchr(buf, '.');
		if (!dot)
			return NULL;
		*dot = '\0';
	}
}

static const char *
py2_map(const char *module)
{
	size_t i;

	for (i = 0; i < N_ELEMS(py2_modules); i++)
		if (strcmp(module, py2_modules[i][0]) == 0)
			return py2_modules[i][1];
	return module;
}

/* A dunder component in a dotted name ("a.__globals__.b"). */
static bool
has_dunder_part(const char *s)
{
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);

		if (is_dunder(s, n))
			return true;
		if (!dot)
			break;
		s = dot + 1;
	}
	return false;
}

static bool
has_non_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	return false;
}

static bool
has_unprintable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || *s == 0x7f)
			return true;
	return false;
}

static void
ascii_lower(char *dst, const char *src, size_t cap)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < cap; i++)
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ?
			 (char)(src[i] - 'A' + 'a') : src[i];
	dst[i] = '\0';
}

enum qa_pkl_class
qa_pickle_classify(const char *module, const char *name, int proto,
		   const char **why)
{
	char full[1024], lmod[512], lfull[1024];
	const char *m2 = py2_map(module);
	const struct deny *d;

	(void)proto;	/* mapped names are judged whatever the protocol:
			 * torch's loader maps them always */
	*why = NULL;
	if (strlen(module) + strlen(name) + 2 > sizeof(lmod)) {
		*why = "an overlong name";
		return QA_PKL_UNLISTED;
	}
	snprintf(full, sizeof(full), "%s.%s", module, name);
	if (in_list(allow_names, N_ELEMS(allow_names), full))
		return QA_PKL_ALLOWED;
	snprintf(full, sizeof(full), "%s.%s", m2, name);
	if (in_list(allow_names, N_ELEMS(allow_names), full))
		return QA_PKL_ALLOWED;
	if (in_list(safe_names, N_ELEMS(safe_names), full))
		return QA_PKL_SAFE;
	d = denied(module, full);
	if (!d && m2 != module) {
		snprintf(full, sizeof(full), "%s.%s", module, name);
		d = denied(m2, full);
	}
	if (d) {
		*why = reason_text[d->reason];
		return QA_PKL_DANGEROUS;
	}
	if (strchr(name, '.')) {
		*why = "a dotted name pickle resolves as an attribute chain";
		return QA_PKL_DANGEROUS;
	}
	if (has_dunder_part(name) || has_dunder_part(module)) {
		if (strcmp(module, "__main__") != 0 || has_dunder_part(name)) {
			*why = "a dunder attribute";
			return QA_PKL_DANGEROUS;
		}
	}
	ascii_lower(lmod, module, sizeof(lmod));
	snprintf(full, sizeof(full), "%s.%s", module, name);
	ascii_lower(lfull, full, sizeof(lfull));
	if (strcmp(lfull, full) != 0 && denied(lmod, lfull)) {
		*why = "differs from a denylisted name only by case";
		return QA_PKL_DANGEROUS;
	}
	if (has_non_ascii(module) || has_non_ascii(name)) {
		*why = "non-ASCII characters in the name (a look-alike spelling?)";
		return QA_PKL_DANGEROUS;
	}
	if (has_unprintable(module) || has_unprintable(name) || !*module ||
	    !*name) {
		*why = "an empty name or control characters in it";
		return QA_PKL_DANGEROUS;
	}
	if (strcmp(module, "__main__") == 0)
		*why = "a class of the script that saved the file (__main__)";
	else if (strncmp(module, "torch", 5) == 0 &&
		 (module[5] == '\0' || module[5] == '.'))
		*why = "a torch class or function weights_only does not allow "
		       "(a pickled module or optimizer object?)";
	else
		*why = "outside the weights_only allowlist";
	return QA_PKL_UNLISTED;
}

const char *const *
qa_pickle_allowlist(size_t *n)
{
	*n = N_ELEMS(allow_names);
	return allow_names;
}

bool
qa_pickle_tables_sorted(void)
{
	size_t i;

	for (i = 1; i < N_ELEMS(allow_names); i++)
		if (strcmp(allow_names[i - 1], allow_names[i]) >= 0)
			return false;
	for (i = 1; i < N_ELEMS(safe_names); i++)
		if (strcmp(safe_names[i - 1], safe_names[i]) >= 0)
			return false;
	for (i = 1; i < N_ELEMS(deny_modules); i++)
		if (strcmp(deny_modules[i - 1].name, deny_modules[i].name) >= 0)
			return false;
	for (i = 1; i < N_ELEMS(deny_names); i++)
		if (strcmp(deny_names[i - 1].name, deny_names[i].name) >= 0)
			return false;
	return true;
}
