/* SPDX-License-Identifier: MIT */
/*
 * Shared harness for the fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * Every target places the fuzzer's bytes (and any fixed files beside
 * them) in an in-memory folder, runs the audit pipeline on it through that
 * file system and checks the invariants every inventory must satisfy,
 * whatever the input. A violated invariant calls abort(): libFuzzer reports it as a
 * crash and the replay test (replay.c) fails on it.
 */
#ifndef QA_TESTS_FUZZ_COMMON_H
#define QA_TESTS_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libFuzzer entry point, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The folder every input is placed in (in memory). */
#define QA_FUZZ_DIR "fuzz"

/* Empties the in-memory folder; every target calls it first. */
void qa_fuzz_reset(void);

/* Places size bytes (borrowed: they must live until qa_fuzz_inspect
 * returns) as QA_FUZZ_DIR/name. Aborts when the folder is full. */
void qa_fuzz_add(const char *name, const void *data, size_t size);

/* Places a path that is not a regular file (what: "a FIFO") as
 * QA_FUZZ_DIR/name; with swapped, stat and listing still call it a regular
 * file (replaced after the listing). Aborts when the folder is full. */
void qa_fuzz_add_special(const char *name, const char *what, bool swapped);

/* A small valid safetensors file with the given JSON header followed by
 * data_bytes zero bytes (malloc'd, kept by the caller). */
const void *qa_fuzz_safetensors(const char *header, size_t data_bytes,
				size_t *size);

/*
 * Runs the whole pipeline (load, summarize, llama.cpp fit on 2x16G at the
 * largest context, every check) on QA_FUZZ_DIR/name, or on the folder
 * itself when name is NULL, then the vLLM fit; checks every invariant
 * (aborting with a message on stderr when one fails). unrecognized_ok
 * says whether QA_E_UNRECOGNIZED is an acceptable answer for this input
 * (a file with the wrong magic).
 */
void qa_fuzz_inspect(const char *name, bool unrecognized_ok);

/*
 * The whole pipeline as the CLI runs it: qa_fuzz_inspect's audit (with
 * --engine llama.cpp --gpus 2x16G checks too, so the knowledge rules and
 * setup advisories run), any input may be unrecognized, then every
 * reporter in every view it draws, into a memory stream. Each report
 * must be written without error and hold no model text unescaped: no C0
 * control but tab and newline, no DEL, only valid UTF-8, no C1 or bidi
 * control, no line starting with "::" and no "##[" (src/core/escape.h);
 * the JSON and SARIF documents must parse.
 */
void qa_fuzz_pipeline(const char *name);

/* The status of QA_FUZZ_DIR/name's load and its JSON inspect report
 * (with the layer map), malloc'd, its length in *len. */
char *qa_fuzz_json_report(const char *name, size_t *len);

struct qa_inventory;
/* The invariants every inventory must satisfy (fuzz_common.c); in names
 * the input in the message of a violation. */
void qa_fuzz_check_inventory(const char *in, const struct qa_inventory *inv);

#endif /* QA_TESTS_FUZZ_COMMON_H */
