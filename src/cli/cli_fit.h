/* SPDX-License-Identifier: MIT */
/*
 * The `fit` command and the fit step of `check --gpus`: option parsing,
 * running the engine model (src/fit.h), storing the result in the
 * inventory (inv->fit) for the reporters and the fit check, and the
 * calibration against a llama.cpp log (--calibrate LOG).
 */
#ifndef QA_SRC_CLI_FIT_H
#define QA_SRC_CLI_FIT_H

#include <stdbool.h>

#include "engine/check.h"
#include "core/inventory.h"

/* `quantaudit fit ...`: argv[0] is "fit". Returns the exit code. */
int qa_cli_fit(int argc, char **argv);

/*
 * For check/inspect with --gpus: computes the fit of inv for copt->gpus
 * with the engine copt->engine (default: llama.cpp for GGUF, vLLM for
 * safetensors and folders) at the largest context that fits, stores it
 * in inv->fit and points copt->fit at the options used, so the fit check
 * that qa_checks_run() runs next can add its findings. Does nothing
 * without --gpus; when the model cannot be sized it says why on stderr
 * (unless quiet) and leaves inv->fit NULL.
 */
void qa_cli_fit_for_check(struct qa_inventory *inv,
			  struct qa_check_options *copt, bool quiet);

#endif /* QA_SRC_CLI_FIT_H */
