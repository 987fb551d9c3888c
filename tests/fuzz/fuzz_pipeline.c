/* SPDX-License-Identifier: MIT */
/*
 * Whole-pipeline fuzz target (src/engine/audit.c and everything under
 * it): the input encodes a small model folder, which is placed in the
 * in-memory file system and audited as `quantaudit check --engine
 * llama.cpp --gpus 2x16G` would (resolve, load, summarize, fit, every
 * check family), then rendered by every reporter in every view into a
 * memory stream (fuzz_common.c qa_fuzz_pipeline, with the report
 * invariants stated there).
 *
 * Framing, chosen so that a mutation inside one file leaves the others
 * intact (a length prefix would not):
 *
 *   input  := junk? ( MARK header "\n" content )*
 *   MARK   := "==> " at the start of the input, or "\n==> " anywhere
 *   header := flags? name
 *   flags  := ">"    this file is the path audited (default: the folder)
 *           | "@"    no file: this folder is the path audited (a Hugging
 *                    Face cache repo, a subfolder)
 *           | "!"    not a regular file: a FIFO (stat and listing say so)
 *           | "!!"   a FIFO that stat and listing still call a regular
 *                    file (swapped after the listing)
 *
 * A file's content runs to the next MARK (its "\n" belongs to the mark)
 * or to the end. A name is 1 to 100 bytes of '/'-separated components,
 * none empty, "." or ".."; entries with any other name, repeated names,
 * and entries past the 60th are skipped; an input that places no file
 * is not audited (an empty folder does not exist: a path that does not
 * exist is the user's error, exit 4). tests/fuzz/pipeline_seeds.py
 * writes the seed corpus in this form.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"

#define MARK "==> "
#define MARK_LEN 4
#define MAX_FILES 60
#define MAX_NAME 100

/* The start of the next "\n==> " at or after from, or size. */
static size_t
next_mark(const uint8_t *data, size_t size, size_t from)
{
	size_t i;

	for (i = from; i + 1 + MARK_LEN <= size; i++)
		if (data[i] == '\n' && memcmp(data + i + 1, MARK, MARK_LEN) == 0)
			return i;
	return size;
}

static bool
valid_name(const char *s, size_t n)
{
	size_t i, start = 0;

	if (n == 0 || n > MAX_NAME)
		return false;
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] == '\0')
			return false;
		if (i == n || s[i] == '/') {
			size_t len = i - start;

			if (len == 0 || (len == 1 && s[start] == '.') ||
			    (len == 2 && s[start] == '.' && s[start + 1] == '.'))
				return false;
			start = i + 1;
		}
	}
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char names[MAX_FILES][MAX_NAME + 1];
	char target[MAX_NAME + 1] = "";
	size_t pos, n_files = 0, i;
	bool target_dir = false;

	qa_fuzz_reset();
	if (size >= MARK_LEN && memcmp(data, MARK, MARK_LEN) == 0)
		pos = 0;
	else if ((pos = next_mark(data, size, 0)) < size)
		pos++;
	while (pos < size && n_files < MAX_FILES) {
		size_t hstart = pos + MARK_LEN, hend, end, flags = 0;
		const char *name;
		size_t name_len;
		bool dup = false, is_target = false;
		int special = 0;

		hend = hstart;
		while (hend < size && data[hend] != '\n')
			hend++;
		if (hend >= size)
			break;
		end = next_mark(data, size, hend);
		name = (const char *)data + hstart;
		name_len = hend - hstart;
		if (name_len > 0 && (name[0] == '>' || name[0] == '@')) {
			is_target = true;
			flags = 1;
		} else if (name_len > 1 && name[0] == '!' && name[1] == '!') {
			special = 2;
			flags = 2;
		} else if (name_len > 0 && name[0] == '!') {
			special = 1;
			flags = 1;
		}
		name += flags;
		name_len -= flags;
		pos = end < size ? end + 1 : size;
		if (!valid_name(name, name_len))
			continue;
		memcpy(names[n_files], name, name_len);
		names[n_files][name_len] = '\0';
		for (i = 0; i < n_files && !dup; i++)
			dup = strcmp(names[i], names[n_files]) == 0;
		if (dup)
			continue;
		if (data[hstart] == '@') {
			/* Not a file; remembered but not added, and it
			 * takes no slot of the folder. */
			memcpy(target, names[n_files], name_len + 1);
			target_dir = true;
			continue;
		}
		if (special)
			qa_fuzz_add_special(names[n_files], "a FIFO",
					    special == 2);
		else
			/* end == hend: an empty file, the next mark's
			 * "\n" is the header's own. */
			qa_fuzz_add(names[n_files], data + hend + 1,
				    end > hend ? end - (hend + 1) : 0);
		/* The path audited is a regular file: a FIFO given as the
		 * path is refused before any loader runs (test_special_files). */
		if (is_target && !special) {
			memcpy(target, names[n_files], name_len + 1);
			target_dir = false;
		}
		n_files++;
	}
	/* A folder that holds nothing does not exist: a path given that
	 * does not exist is the user's error (exit 4), not the model's. So
	 * an input that places no file is not audited at all. */
	if (n_files == 0)
		return 0;
	if (target_dir) {
		size_t len = strlen(target);
		bool holds = false;

		for (i = 0; i < n_files && !holds; i++)
			holds = strncmp(names[i], target, len) == 0 &&
				names[i][len] == '/';
		if (!holds)
			target[0] = '\0';
	}
	qa_fuzz_pipeline(target[0] ? target : NULL);
	return 0;
}
