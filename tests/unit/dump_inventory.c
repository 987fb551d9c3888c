/* SPDX-License-Identifier: MIT */
/*
 * dump_inventory: loads one GGUF file or split set with the GGUF module
 * (no summaries, no reporter) and prints what was parsed as simple
 * tab-separated lines, so tests/corpus/check_gguf.py can compare it with
 * an independent reader's output. Usage: dump_inventory PATH
 *
 *   rc	<load result>
 *   file	<i>	<path>	<bytes>	<version>	<big_endian>	<header_bytes>	<data_offset>	<tensors>	<part>	<parts>
 *   kv	<file>	<key>	<type>	<value>   (arrays: <elem type>	<count>)
 *   tensor	<file>	<name>	<dtype>	<ne,ne..>	<bytes>	<offset>
 *   finding	QA<code>	<offset>	<tensor>	<message>
 *   hp	<field>	<value>
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/format.h"

/* Strings are printed with \t, \n, \r and \\ escaped, other bytes raw. */
static void
put_escaped(const char *s, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\')
			fputs("\\\\", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\r')
			fputs("\\r", stdout);
		else if (c == '\0')
			fputs("\\0", stdout);
		else
			putchar(c);
	}
}

static void
put_value(const struct qa_value *v)
{
	switch (v->type) {
	case QA_V_U8: case QA_V_U16: case QA_V_U32: case QA_V_U64:
		printf("%" PRIu64, v->v.u);
		break;
	case QA_V_BOOL:
		fputs(v->v.u ? "true" : "false", stdout);
		break;
	case QA_V_I8: case QA_V_I16: case QA_V_I32: case QA_V_I64:
		printf("%" PRId64, v->v.i);
		break;
	case QA_V_F32: case QA_V_F64:
		printf("%.17g", v->v.f);
		break;
	case QA_V_STRING:
		put_escaped(v->v.str.s, strlen(v->v.str.s));
		break;
	default:
		fputs("?", stdout);
	}
}

int
main(int argc, char **argv)
{
	struct qa_inventory *inv;
	const struct qa_hparams *hp;
	uint32_t i, d;
	int rc;

	if (argc != 2) {
		fputs("usage: dump_inventory PATH\n", stderr);
		return 2;
	}
	inv = qa_inventory_create(argv[1]);
	if (!inv)
		return 4;
	rc = qa_gguf_load_path(inv, argv[1]);
	printf("rc\t%d\n", rc);
	for (i = 0; i < inv->n_files; i++) {
		const struct qa_file *f = &inv->files[i];
		printf("file\t%" PRIu32 "\t%s\t%" PRIu64 "\t%" PRIu32 "\t%d\t%"
		       PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%"
		       PRIu32 "\n", i, f->path, f->bytes, f->gguf_version,
		       f->big_endian, f->header_bytes, f->data_offset,
		       f->tensor_count, f->part, f->parts);
	}
	for (i = 0; i < inv->n_kvs; i++) {
		const struct qa_kv *kv = &inv->kvs[i];
		printf("kv\t%" PRIu32 "\t", kv->file);
		put_escaped(kv->key, strlen(kv->key));
		printf("\t%s\t", qa_value_type_name(kv->value.type));
		if (kv->value.type == QA_V_ARRAY) {
			uint64_t k;

			printf("%s\t%" PRIu64, qa_value_type_name(
				       kv->value.v.arr.elem),
			       kv->value.v.arr.count);
			for (k = 0; k < 64; k++) {
				struct qa_value e;

				if (!qa_value_item(&kv->value, k, &e))
					break;
				putchar('\t');
				put_value(&e);
			}
		} else {
			put_value(&kv->value);
		}
		putchar('\n');
	}
	for (i = 0; i < inv->n_tensors; i++) {
		const struct qa_tensor *t = &inv->tensors[i];
		printf("tensor\t%" PRIu32 "\t", t->file);
		put_escaped(t->name, strlen(t->name));
		printf("\t%s\t", t->dtype ? t->dtype : "-");
		for (d = 0; d < t->n_dims; d++)
			printf("%s%" PRIu64, d ? "," : "", t->shape[d]);
		printf("\t%" PRIu64 "\t%" PRIu64 "\n", t->bytes, t->offset);
	}
	for (i = 0; i < inv->n_findings; i++) {
		const struct qa_finding *f = &inv->findings[i];
		printf("finding\tQA%04u\t%" PRId64 "\t%s\t", f->rule->code,
		       f->offset, f->tensor ? f->tensor : "-");
		put_escaped(f->message, strlen(f->message));
		putchar('\n');
	}
	hp = &inv->hp;
	printf("hp\tarch\t%s\n", hp->arch ? hp->arch : "-");
	printf("hp\tn_layer\t%" PRId64 "\n", hp->n_layer);
	printf("hp\tn_layer_all\t%" PRId64 "\n", hp->n_layer_all);
	printf("hp\tn_mtp\t%" PRId64 "\n", hp->n_mtp);
	printf("hp\tn_embd\t%" PRId64 "\n", hp->n_embd);
	printf("hp\tn_head\t%" PRId64 "\n", hp->n_head);
	printf("hp\tn_head_kv\t%" PRId64 "\n", hp->n_head_kv);
	printf("hp\thead_dim_k\t%" PRId64 "\n", hp->head_dim_k);
	printf("hp\thead_dim_v\t%" PRId64 "\n", hp->head_dim_v);
	printf("hp\tn_ff\t%" PRId64 "\n", hp->n_ff);
	printf("hp\tn_vocab\t%" PRId64 "\n", hp->n_vocab);
	printf("hp\tn_ctx_train\t%" PRId64 "\n", hp->n_ctx_train);
	printf("hp\tn_expert\t%" PRId64 "\n", hp->n_expert);
	printf("hp\tsliding_window\t%" PRId64 "\n", hp->sliding_window);
	printf("hp\tswa_pattern\t%" PRId64 "\n", hp->swa_pattern);
	printf("hp\tkv_lora_rank\t%" PRId64 "\n", hp->kv_lora_rank);
	printf("hp\tqk_rope_dim\t%" PRId64 "\n", hp->qk_rope_dim);
	printf("hp\tqk_nope_dim\t%" PRId64 "\n", hp->qk_nope_dim);
	printf("hp\tv_head_dim_mla\t%" PRId64 "\n", hp->v_head_dim_mla);
	printf("hp\tfile_type\t%" PRId64 "\n", hp->file_type);
	printf("hp\tlayer_kind\t");
	if (hp->layer_kind)
		for (i = 0; i < (uint32_t)hp->n_layer_all; i++)
			putchar('0' + hp->layer_kind[i]);
	else
		putchar('-');
	putchar('\n');
	qa_inventory_destroy(inv);
	return rc == QA_OK ? 0 : 1;
}
