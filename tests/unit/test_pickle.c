/* SPDX-License-Identifier: MIT */
/*
 * The non-executing pickle walker (formats/pickle.c) on hand-assembled
 * byte images: the allowlist and denylist (sorted, and the class of each
 * kind of name), the stack machine (memo, marks, STACK_GLOBAL from the
 * memo, calls hidden by POP, BUILD, persistent ids), every bypass class
 * of docs/security.md at opcode level, the bounds (marks,
 * line length, truncation at every offset of a pickle) and the probe.
 * Expected values come from CPython's pickle.py semantics (which opcode
 * pops what), not from the walker's own output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/pickle.h"
#include "harness.h"

/* Walks the bytes as one pickle; the inventory holds the findings, *root
 * the value at STOP. */
static struct qa_inventory *
walk_bytes(const void *p, size_t n, bool torch, struct qa_pkl_walk *w,
	   struct qa_arena *arena)
{
	struct qa_inventory *inv = qa_inventory_create("test.pkl");
	struct qa_source src;

	if (!inv)
		abort();
	qa_arena_init(arena, QA_PKL_ARENA_LIMIT);
	qa_source_open_memory(&src, "test.pkl", p, n);
	memset(w, 0, sizeof(*w));
	w->inv = inv;
	w->file = "test.pkl";
	w->arena = arena;
	w->torch_pickle = torch;
	CHECK_EQ(qa_pickle_walk(w, &src, 0, n), QA_OK);
	return inv;
}

/* Walks and compares the distinct finding codes with want. */
static void
codes(const char *name, const void *p, size_t n, bool torch,
      const char *want)
{
	struct qa_pkl_walk w;
	struct qa_arena a;
	struct qa_inventory *inv = walk_bytes(p, n, torch, &w, &a);

	th_case = name;
	CHECK_CODES(inv, NULL, name, want);
	th_case = NULL;
	qa_arena_finish(&a);
	qa_inventory_destroy(inv);
}

#define B(s) (s), (sizeof(s) - 1)

static void
test_tables(void)
{
	const char *why;
	size_t n;

	CHECK(qa_pickle_tables_sorted());
	CHECK(qa_pickle_allowlist(&n) != NULL && n > 100);
	CHECK_EQ(qa_pickle_classify("torch._utils", "_rebuild_tensor_v2", 2,
				    &why), QA_PKL_ALLOWED);
	CHECK_EQ(qa_pickle_classify("collections", "OrderedDict", 2, &why),
		 QA_PKL_ALLOWED);
	CHECK_EQ(qa_pickle_classify("torch", "BFloat16Storage", 2, &why),
		 QA_PKL_ALLOWED);
	CHECK_EQ(qa_pickle_classify("torch", "float8_e4m3fn", 4, &why),
		 QA_PKL_ALLOWED);
	/* Python 2 names map as torch maps them */
	CHECK_EQ(qa_pickle_classify("__builtin__", "set", 2, &why),
		 QA_PKL_ALLOWED);
	CHECK_EQ(qa_pickle_classify("numpy.core.multiarray", "_reconstruct",
				    2, &why), QA_PKL_SAFE);
	CHECK_EQ(qa_pickle_classify("os", "system", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("os.path", "join", 2, &why),
		 QA_PKL_DANGEROUS);	/* the whole os tree */
	CHECK_EQ(qa_pickle_classify("posix", "system", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("builtins", "eval", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("__builtin__", "getattr", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("torch", "load", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("numpy", "load", 2, &why),
		 QA_PKL_DANGEROUS);
	/* bypass spellings */
	CHECK_EQ(qa_pickle_classify("OS", "system", 2, &why),
		 QA_PKL_DANGEROUS);
	CHECK(why && strstr(why, "case"));
	CHECK_EQ(qa_pickle_classify("\xef\xbd\x8f\xef\xbd\x93", "system", 2,
				    &why), QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("pathlib", "os.system", 4, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("torch", "Tensor.__reduce_ex__", 4, &why),
		 QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("torch", "", 2, &why), QA_PKL_DANGEROUS);
	CHECK_EQ(qa_pickle_classify("os\n", "system", 2, &why),
		 QA_PKL_DANGEROUS);
	/* outside the allowlist, not known to be dangerous */
	CHECK_EQ(qa_pickle_classify("__main__", "Net", 2, &why),
		 QA_PKL_UNLISTED);
	CHECK_EQ(qa_pickle_classify("argparse", "Namespace", 2, &why),
		 QA_PKL_UNLISTED);
	CHECK_EQ(qa_pickle_classify("torch.nn.modules.linear", "Linear", 2,
				    &why), QA_PKL_UNLISTED);
	CHECK_EQ(qa_pickle_classify("builtins", "list", 2, &why),
		 QA_PKL_UNLISTED);
}

static void
test_machine(void)
{
	struct qa_pkl_walk w;
	struct qa_arena a;
	struct qa_inventory *inv;

	/* {'a': (1, 'b')} with the memo: GET returns the same value */
	inv = walk_bytes(B("\x80\x02}q\x00X\x01\x00\x00\x00" "aq\x01K\x01h\x01"
			   "\x86q\x02s."), true, &w, &a);
	CHECK(w.stopped && !w.malformed && w.proto == 2);
	CHECK(w.root && w.root->kind == QA_PV_DICT && w.root->n == 2);
	if (w.root && w.root->n == 2) {
		const struct qa_pv *k = w.root->u.seq.v[0];
		const struct qa_pv *t = w.root->u.seq.v[1];

		CHECK_STR(k->u.str.s, "a");
		CHECK(t->kind == QA_PV_TUPLE && t->n == 2 &&
		      t->u.seq.v[1] == k);
	}
	CHECK_EQ(inv->n_findings, 0);
	qa_arena_finish(&a);
	qa_inventory_destroy(inv);

	/* the weights_only opcode set is plain protocol 2: no finding */
	codes("allowlisted rebuild call",
	      B("\x80\x02\x63torch._utils\n_rebuild_tensor_v2\nq\x00)R."),
	      true, "-");
	/* POP with an empty stack pops the mark (pickle.py load_pop) */
	codes("POP pops a MARK", B("\x80\x02(0N."), false, "-");
	/* a memo miss and an unknown opcode are malformed */
	codes("GET of a memo entry never stored", B("\x80\x02h\x05."), false,
	      "QA1609");
	codes("unknown opcode", B("\x80\x02\xff."), false, "QA1609");
	codes("no STOP", B("\x80\x02N"), false, "QA1609");
	codes("BINUNICODE longer than the data",
	      B("\x80\x02X\xff\x00\x00\x00" "ab."), false, "QA1609");
	codes("STOP on an empty stack", B("\x80\x02."), false, "QA1609");
}

static void
test_bypasses(void)
{
	/* GLOBAL and the call */
	codes("GLOBAL os system + REDUCE",
	      B("\x80\x02\x63os\nsystem\nX\x02\x00\x00\x00id\x85R."), true,
	      "QA1601,QA1603");
	/* STACK_GLOBAL whose strings come back from the memo after
	 * unrelated work: a look-back scanner sees 'x', 'y' */
	codes("STACK_GLOBAL from the memo",
	      B("\x80\x04\x8c\x02os\x94\x8c\x06system\x94" "00"
		"\x8c\x01x\x8c\x01y" "00" "h\x00h\x01\x93)R."), true,
	      "QA1601,QA1603,QA1613");
	codes("STACK_GLOBAL of a call result",
	      B("\x80\x04\x63\x62uiltins\nstr\n)R\x8c\x06system\x93)R."),
	      true, "QA1602,QA1603,QA1604,QA1613");
	codes("dotted STACK_GLOBAL",
	      B("\x80\x04\x8c\x07pathlib\x8c\x09os.system\x93)R."), true,
	      "QA1601,QA1603,QA1613");
	/* the result of a call discarded: still a call */
	codes("OBJ then POP",
	      B("\x80\x02(\x63os\nsystem\nX\x02\x00\x00\x00ido0N."), false,
	      "QA1601,QA1603");
	codes("INST", B("(X\x02\x00\x00\x00idios\nsystem\n."), false,
	      "QA1601,QA1603");
	/* protocol 0 GLOBAL lines with odd whitespace */
	codes("GLOBAL with CRLF lines", B("cos\r\nsystem\r\n(S'id'\ntR."),
	      false, "QA1601,QA1603");
	codes("GLOBAL with a leading space", B("c os\nsystem\n(S'id'\ntR."),
	      false, "QA1601,QA1603");
	codes("GLOBAL with a trailing tab", B("cos\t\nsystem\n(S'id'\ntR."),
	      false, "QA1601,QA1603");
	/* BINPUT and MEMOIZE mixed: MEMOIZE stores at len(memo)
	 * (picklescan issue 14) */
	codes("PUT and MEMOIZE mixed",
	      B("\x80\x04\x8c\x02osq\xc8" "0" "\x8c\x06systemq\xc9" "0"
		"\x8c\x05torch\x94" "0" "\x8c\x04Size\x94" "0"
		"h\xc8h\xc9\x93)R."), true, "QA1601,QA1603,QA1613");
	codes("torch.storage._load_from_bytes",
	      B("\x80\x03\x63torch.storage\n_load_from_bytes\nC\x01x\x85R."),
	      false, "QA1601,QA1603");
	codes("callable fetched back from the memo",
	      B("\x80\x02\x63os\nsystem\nq\x00" "0" "h\x00)R."), false,
	      "QA1601,QA1603");
	/* calling something that is not a global */
	codes("call of a call result",
	      B("\x80\x02\x63torch\nSize\n)R)R."), false, "QA1603");
	/* BUILD runs __setstate__, sets attributes of globals, dunders */
	codes("BUILD on an unlisted class",
	      B("\x80\x02\x63__main__\nEvil\n)\x81}b."), false,
	      "QA1602,QA1603");
	codes("BUILD on a global",
	      B("\x80\x02\x63torch\nTensor\nN}X\x08\x00\x00\x00__code__Ns"
		"\x86" "b."), false, "QA1603");
	codes("BUILD setting __class__",
	      B("\x80\x02\x63\x63ollections\nOrderedDict\n)R}X\x09\x00\x00"
		"\x00__class__Nsb."), false, "QA1603");
	/* item opcodes call methods of what they target */
	codes("SETITEM on os.environ",
	      B("\x80\x02\x63os\nenviron\nX\x01\x00\x00\x00kX\x01\x00\x00\x00vs."),
	      false, "QA1601,QA1603");
	codes("APPEND to an object",
	      B("\x80\x02\x63\x63ollections\ndeque\n)RNa."), false,
	      "QA1602,QA1603");
	/* extension registry, frames, protocols */
	codes("EXT1", B("\x80\x02\x82\x07)R."), false, "QA1603,QA1605");
	codes("FRAME shorter than its opcode",
	      B("\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00"
		"\x8c\x05hello."), false, "QA1606");
	codes("FRAME longer than the data",
	      B("\x80\x04\x95\xff\x00\x00\x00\x00\x00\x00\x00N."), false,
	      "QA1606");
	codes("protocol 4 opcode in a protocol 2 pickle",
	      B("\x80\x02\x8c\x01x."), false, "QA1607");
	codes("second PROTO", B("\x80\x02N0\x80\x02N."), false, "QA1607");
	codes("PROTO 6", B("\x80\x06N."), false, "QA1607");
	/* persistent ids */
	codes("storage persistent id",
	      B("\x80\x02(X\x07\x00\x00\x00storage\x63torch\nFloatStorage\n"
		"X\x01\x00\x00\x00\x30X\x03\x00\x00\x00\x63puK\x04tQ."), true,
	      "-");
	codes("module persistent id",
	      B("\x80\x02(X\x06\x00\x00\x00module\x63__main__\nNet\ntQ."),
	      false, "QA1602,QA1608");
	codes("text PERSID", B("P0\n."), false, "QA1608");
	/* a pickle nested in a bytes constant */
	codes("nested pickle",
	      B("\x80\x03\x63pickle\nloads\nC\x11\x80\x02\x63os\nsystem\n"
		"N\x85R." "\x85R."), false,
	      "QA1601,QA1603,QA1611");
	/* weights_only refusals that are not code execution */
	codes("numpy reconstructor",
	      B("\x80\x02\x63numpy.core.multiarray\n_reconstruct\n)R."), true,
	      "QA1613");
}

static void
test_bounds(void)
{
	size_t n = 5000, i;
	char *p = malloc(n + 3);
	struct qa_pkl_walk w;
	struct qa_arena a;
	struct qa_inventory *inv;
	static const char good[] =
		"\x80\x02}q\x00(X\x01\x00\x00\x00" "aq\x01\x63os\nsystem\n"
		"X\x02\x00\x00\x00id\x85Rq\x02u.";

	/* more open MARKs than the walker keeps */
	p[0] = '\x80';
	p[1] = 2;
	memset(p + 2, '(', n);
	p[n + 2] = '.';
	codes("5000 MARKs", p, n + 3, false, "QA1610");
	free(p);
	/* a line longer than the bound */
	p = malloc(70000);
	memset(p, 'a', 70000);
	p[0] = 'I';
	codes("a 70 KB INT line", p, 70000, false, "QA1610");
	free(p);
	/* every prefix of a pickle with a payload: findings up to the cut,
	 * never a crash; the payload is found once its REDUCE is in */
	for (i = 0; i < sizeof(good) - 1; i++) {
		inv = walk_bytes(good, i, false, &w, &a);
		CHECK(!w.stopped);
		qa_arena_finish(&a);
		qa_inventory_destroy(inv);
	}
	/* a FRAME, huge lengths and counts are checked against the data,
	 * not allocated */
	codes("BINBYTES8 of 2^63 bytes",
	      B("\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x80."), false,
	      "QA1609");
	codes("LONG4 of 2 GB", B("\x80\x02\x8b\xff\xff\xff\x7f."), false,
	      "QA1609");
}

static void
test_probe(void)
{
	CHECK(qa_pickle_probe((const uint8_t *)"\x80\x02}q\x00.", 6));
	CHECK(qa_pickle_probe((const uint8_t *)"cos\nsystem\n(S'id'\ntR.",
			      21));
	CHECK(!qa_pickle_probe((const uint8_t *)"GGUF\x03\x00\x00\x00", 8));
	CHECK(!qa_pickle_probe((const uint8_t *)"{\"a\": 1}", 8));
	CHECK(!qa_pickle_probe((const uint8_t *)"config text\n", 12));
	/* GLOBAL lines with a CR, a tab, a leading space are pickles still
	 * (the walker reports the name) */
	CHECK(qa_pickle_probe((const uint8_t *)"cos\r\nsystem\r\n(S'id'\ntR.",
			      25));
	CHECK(qa_pickle_probe((const uint8_t *)"cos\t\nsystem\n(S'id'\ntR.",
			      23));
}

int
main(void)
{
	test_tables();
	test_machine();
	test_bypasses();
	test_bounds();
	test_probe();
	return th_done("pickle");
}
