#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the libFuzzer dictionary (a file in tests/fuzz/) of fuzz target
# $1, for run-fuzzers.sh and campaign.sh; exits 2 for an unknown target.
case ${1:-} in
gguf) echo gguf.dict ;;
safetensors|index) echo safetensors.dict ;;
config) echo config.dict ;;
archive) echo archive.dict ;;
pytorch) echo pytorch.dict ;;
template) echo template.dict ;;
pipeline) echo pipeline.dict ;;
manifest) echo manifest.dict ;;
remote) echo remote.dict ;;
pycode) echo pycode.dict ;;
secrets) echo secrets.dict ;;
*) echo "$0: unknown fuzz target '${1:-}'" >&2; exit 2 ;;
esac
