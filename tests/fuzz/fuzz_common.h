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

#endif /* QA_TESTS_FUZZ_COMMON_H */
