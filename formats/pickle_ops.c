/* SPDX-License-Identifier: MIT */
/*
 * The pickle opcodes (formats/pickle_int.h): the protocol that brought
 * each one and its name (CPython Lib/pickletools.py, read at CPython
 * 3.11-3.13), the set torch's weights_only unpickler accepts, and the
 * probe that says whether bytes start a pickle (formats/pickle.h). What
 * each opcode does is the machine's, formats/pickle.c.
 */
#define QA_PICKLE_INTERNAL
#include "formats/pickle_int.h"

/* The protocol that introduced an opcode (pickletools.opcodes), -1 for a
 * byte that is no opcode. */
int
qa_pkl_op_proto(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8b)
		return 2;
	if (op >= 0x8c && op <= 0x95)
		return 4;
	if (op >= 0x96 && op <= 0x98)
		return 5;
	switch (op) {
	case OP_BINBYTES: case OP_SHORT_BINBYTES:
		return 3;
	case OP_MARK: case OP_STOP: case OP_POP: case OP_DUP: case OP_FLOAT:
	case OP_INT: case OP_LONG: case OP_NONE: case OP_PERSID:
	case OP_REDUCE: case OP_STRING: case OP_UNICODE: case OP_APPEND:
	case OP_BUILD: case OP_GLOBAL: case OP_DICT: case OP_GET:
	case OP_INST: case OP_LIST: case OP_PUT: case OP_SETITEM:
	case OP_TUPLE:
		return 0;
	case OP_POP_MARK: case OP_BININT: case OP_BININT1: case OP_BININT2:
	case OP_BINPERSID: case OP_BINSTRING: case OP_SHORT_BINSTRING:
	case OP_BINUNICODE: case OP_EMPTY_DICT: case OP_APPENDS:
	case OP_BINGET: case OP_LONG_BINGET: case OP_EMPTY_LIST: case OP_OBJ:
	case OP_BINPUT: case OP_LONG_BINPUT: case OP_EMPTY_TUPLE:
	case OP_SETITEMS: case OP_BINFLOAT:
		return 1;
	default:
		return -1;
	}
}

const char *
qa_pkl_op_name(uint8_t op)
{
	switch (op) {
	case OP_MARK: return "MARK";
	case OP_STOP: return "STOP";
	case OP_POP: return "POP";
	case OP_POP_MARK: return "POP_MARK";
	case OP_DUP: return "DUP";
	case OP_FLOAT: return "FLOAT";
	case OP_INT: return "INT";
	case OP_BININT: return "BININT";
	case OP_BININT1: return "BININT1";
	case OP_LONG: return "LONG";
	case OP_BININT2: return "BININT2";
	case OP_NONE: return "NONE";
	case OP_PERSID: return "PERSID";
	case OP_BINPERSID: return "BINPERSID";
	case OP_REDUCE: return "REDUCE";
	case OP_STRING: return "STRING";
	case OP_BINSTRING: return "BINSTRING";
	case OP_SHORT_BINSTRING: return "SHORT_BINSTRING";
	case OP_UNICODE: return "UNICODE";
	case OP_BINUNICODE: return "BINUNICODE";
	case OP_APPEND: return "APPEND";
	case OP_BUILD: return "BUILD";
	case OP_GLOBAL: return "GLOBAL";
	case OP_DICT: return "DICT";
	case OP_EMPTY_DICT: return "EMPTY_DICT";
	case OP_APPENDS: return "APPENDS";
	case OP_GET: return "GET";
	case OP_BINGET: return "BINGET";
	case OP_INST: return "INST";
	case OP_LONG_BINGET: return "LONG_BINGET";
	case OP_LIST: return "LIST";
	case OP_EMPTY_LIST: return "EMPTY_LIST";
	case OP_OBJ: return "OBJ";
	case OP_PUT: return "PUT";
	case OP_BINPUT: return "BINPUT";
	case OP_LONG_BINPUT: return "LONG_BINPUT";
	case OP_SETITEM: return "SETITEM";
	case OP_TUPLE: return "TUPLE";
	case OP_EMPTY_TUPLE: return "EMPTY_TUPLE";
	case OP_SETITEMS: return "SETITEMS";
	case OP_BINFLOAT: return "BINFLOAT";
	case OP_PROTO: return "PROTO";
	case OP_NEWOBJ: return "NEWOBJ";
	case OP_EXT1: return "EXT1";
	case OP_EXT2: return "EXT2";
	case OP_EXT4: return "EXT4";
	case OP_TUPLE1: return "TUPLE1";
	case OP_TUPLE2: return "TUPLE2";
	case OP_TUPLE3: return "TUPLE3";
	case OP_NEWTRUE: return "NEWTRUE";
	case OP_NEWFALSE: return "NEWFALSE";
	case OP_LONG1: return "LONG1";
	case OP_LONG4: return "LONG4";
	case OP_BINBYTES: return "BINBYTES";
	case OP_SHORT_BINBYTES: return "SHORT_BINBYTES";
	case OP_SHORT_BINUNICODE: return "SHORT_BINUNICODE";
	case OP_BINUNICODE8: return "BINUNICODE8";
	case OP_BINBYTES8: return "BINBYTES8";
	case OP_EMPTY_SET: return "EMPTY_SET";
	case OP_ADDITEMS: return "ADDITEMS";
	case OP_FROZENSET: return "FROZENSET";
	case OP_NEWOBJ_EX: return "NEWOBJ_EX";
	case OP_STACK_GLOBAL: return "STACK_GLOBAL";
	case OP_MEMOIZE: return "MEMOIZE";
	case OP_FRAME: return "FRAME";
	case OP_BYTEARRAY8: return "BYTEARRAY8";
	case OP_NEXT_BUFFER: return "NEXT_BUFFER";
	case OP_READONLY_BUFFER: return "READONLY_BUFFER";
	default: return "?";
	}
}

/* The opcodes torch's weights_only unpickler accepts (its Unpickler.load
 * @ 00f730b6). */
bool
qa_pkl_weights_only_op(uint8_t op)
{
	switch (op) {
	case OP_PROTO: case OP_STOP: case OP_MARK: case OP_GLOBAL:
	case OP_NEWOBJ: case OP_REDUCE: case OP_BUILD: case OP_APPEND:
	case OP_APPENDS: case OP_SETITEM: case OP_SETITEMS: case OP_TUPLE:
	case OP_TUPLE1: case OP_TUPLE2: case OP_TUPLE3: case OP_NONE:
	case OP_NEWTRUE: case OP_NEWFALSE: case OP_EMPTY_TUPLE:
	case OP_EMPTY_LIST: case OP_EMPTY_DICT: case OP_EMPTY_SET:
	case OP_BININT: case OP_BININT1: case OP_BININT2: case OP_BINFLOAT:
	case OP_BINUNICODE: case OP_SHORT_BINSTRING: case OP_LONG1:
	case OP_BINPERSID: case OP_BINGET: case OP_LONG_BINGET:
	case OP_BINPUT: case OP_LONG_BINPUT:
		return true;
	default:
		return false;
	}
}

/* ---- probing ---------------------------------------------------------------- */

bool
qa_pickle_probe(const uint8_t *buf, size_t len)
{
	size_t i = 0, ops = 0;

	if (len >= 2 && buf[0] == OP_PROTO && buf[1] <= 5)
		return true;
	/* protocol 0/1: step over opcodes without semantics */
	while (i < len) {
		uint8_t op = buf[i++];
		int p = qa_pkl_op_proto(op);

		if (p < 0 || p > 1)
			return false;
		ops++;
		switch (op) {
		case OP_STOP:
			return ops >= 2;
		case OP_GLOBAL: case OP_INST: {
			/* any bytes up to two newlines: a name with a CR,
			 * tab or non-ASCII byte is still a pickle to probe
			 * (and a finding to the walker); only overlong
			 * lines say "not a pickle" */
			int lines = 0;
			size_t line_len = 0;

			while (i < len && lines < 2) {
				if (buf[i] == '\n') {
					lines++;
					line_len = 0;
				} else if (++line_len > 256) {
					return false;
				}
				i++;
			}
			break;
		}
		case OP_FLOAT: case OP_INT: case OP_LONG: case OP_STRING:
		case OP_UNICODE: case OP_GET: case OP_PUT: case OP_PERSID:
			while (i < len && buf[i] != '\n')
				i++;
			i++;
			break;
		case OP_BININT: i += 4; break;
		case OP_BININT1: case OP_BINGET: case OP_BINPUT: i += 1; break;
		case OP_BININT2: i += 2; break;
		case OP_LONG_BINGET: case OP_LONG_BINPUT: i += 4; break;
		case OP_BINFLOAT: i += 8; break;
		case OP_SHORT_BINSTRING:
			if (i < len)
				i += 1 + (size_t)buf[i];
			break;
		case OP_BINSTRING: case OP_BINUNICODE:
			if (i + 4 <= len)
				i += 4 + ((size_t)buf[i] | (size_t)buf[i + 1] << 8 |
					  (size_t)buf[i + 2] << 16 |
					  (size_t)buf[i + 3] << 24);
			else
				i = len;
			break;
		default:
			break;
		}
	}
	/* decoded to the end of the head: a pickle longer than the head */
	return ops >= 4;
}
