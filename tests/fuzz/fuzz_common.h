/* SPDX-License-Identifier: MIT */
/*
 * Shared harness for the fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * The parsers only read files, so every target writes the fuzzer's bytes
 * into a per-process scratch folder (created once, under /dev/shm when it
 * exists so no input ever touches a disk), runs qa_input_inspect() on it
 * and checks the invariants every inventory must satisfy, whatever the
 * input. A violated invariant calls abort(): libFuzzer reports it as a
 * crash and the replay test (replay.c) fails on it.
 */
#ifndef QA_TESTS_FUZZ_COMMON_H
#define QA_TESTS_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* libFuzzer entry point, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The scratch folder (under $QA_FUZZ_SCRATCH when set, else /dev/shm
 * when it exists, else /tmp), created on the first call and removed at
 * exit;
 * populate (may be NULL) is called once right after it is created, to
 * write the fixed files a target places beside its input. Aborts when the
 * folder cannot be created: a harness that cannot write its input tests
 * nothing.
 */
const char *qa_fuzz_scratch(void (*populate)(void));

/*
 * Writes size bytes to <scratch>/name (created or truncated) and stores
 * the full path in path[0..pathlen). Aborts on failure.
 */
void qa_fuzz_write(const char *name, const void *data, size_t size,
		   char *path, size_t pathlen);

/*
 * Writes a small valid safetensors file <scratch>/name with the given JSON
 * header followed by data_bytes zero bytes of tensor data.
 */
void qa_fuzz_write_safetensors(const char *name, const char *header,
			       size_t data_bytes);

/*
 * Runs qa_input_inspect(path), checks every invariant (aborting with a
 * message on stderr when one fails) and destroys the inventory.
 * unrecognized_ok says whether QA_E_UNRECOGNIZED is an acceptable answer
 * for this input (a file with the wrong magic).
 */
void qa_fuzz_inspect(const char *path, bool unrecognized_ok);

#endif /* QA_TESTS_FUZZ_COMMON_H */
