#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The check step of the GitHub action (action.yml): `quantaudit check` on
# the inputs, a SARIF log for code scanning, the Markdown report in the job
# summary, and the verdict and exit code as step outputs. It always exits
# 0 when the audit ran, so that the SARIF upload runs; the action's last
# step is the gate. tests/cli/test_action.py runs it on fixtures.
#
# Environment: QA_BIN (the quantaudit binary), QA_PATHS (inputs, one per
# line, or separated by spaces on a single line), QA_POLICY (a policy
# file, optional), QA_GPUS (--gpus, optional), QA_FAIL_ON (default
# error), QA_SARIF (default quantaudit.sarif), GITHUB_STEP_SUMMARY and
# GITHUB_OUTPUT (set by the runner; without them nothing is written
# there).
set -u

bin=${QA_BIN:-quantaudit}
sarif=${QA_SARIF:-quantaudit.sarif}
paths=()
if [[ ${QA_PATHS:-} == *$'\n'* ]]; then
	while IFS= read -r line; do
		line=${line%$'\r'}
		[[ -n ${line// /} ]] && paths+=("$line")
	done <<<"$QA_PATHS"
else
	read -r -a paths <<<"${QA_PATHS:-}"
fi
if ((${#paths[@]} == 0)); then
	echo "quantaudit action: no paths given (input 'paths')" >&2
	exit 2
fi

args=(--fail-on "${QA_FAIL_ON:-error}")
[[ -n ${QA_POLICY:-} ]] && args+=(--rules "$QA_POLICY")
[[ -n ${QA_GPUS:-} ]] && args+=(--gpus "$QA_GPUS")

# The SARIF log; the findings at or above --fail-on also go to the job
# log (stderr), one per line.
"$bin" check "${args[@]}" --format sarif -o "$sarif" -- "${paths[@]}"
code=$?
if ((code == 2)); then
	echo "quantaudit action: usage error (see above)" >&2
	exit 2
fi

if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
	"$bin" check "${args[@]}" -q --format markdown -- "${paths[@]}" \
		>>"$GITHUB_STEP_SUMMARY"
fi

# The verdict as the SARIF run states it (pass, warn, fail).
verdict=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["runs"][0]["properties"]["verdict"])' \
	"$sarif" 2>/dev/null) || verdict=$([[ $code == 0 ]] && echo pass || echo fail)

if [[ -n ${GITHUB_OUTPUT:-} ]]; then
	{
		echo "exit-code=$code"
		echo "verdict=$verdict"
		echo "sarif=$sarif"
	} >>"$GITHUB_OUTPUT"
fi
echo "quantaudit: $verdict (exit $code)"
exit 0
