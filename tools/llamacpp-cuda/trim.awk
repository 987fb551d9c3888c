# SPDX-License-Identifier: MIT
# The memory and speed lines of a llama.cpp -v log on the CUDA backend
# (first model load only), for tests/data/llamacpp-cuda-runs. Lines that
# start with "#" are run.sh's own and are kept. Same selection as
# tools/llamacpp-runs/run.sh's trim, plus the CUDA device lines, the
# per-token speed of common_perf_print and the compute-buffer check
# llama_context's destructor makes after decoding.
/^#/ { print; next }
/llama_model_loader: loaded meta data/ { if (++loads > 1) exit }
{
	lvl = $2
	line = $0
	sub(/^[0-9.]+ [A-Z] /, "", line)
}
line ~ /^(ggml_cuda_init|  Device [0-9]+:|llama_prepare_model_devices): / { print; next }
line ~ /^  Device [0-9]+:/ { print; next }
line ~ /^llama_model_loader: loaded meta data/ { print; next }
line ~ /^print_info: (file type|file size|arch|n_ctx_train|n_embd|n_layer|n_head|n_head_kv|n_swa|n_embd_head_k|n_embd_head_v|n_ff|n_expert|n_expert_used|n_vocab|model type|model params) +=/ { print; next }
line ~ /^load_tensors: .*(model buffer size|offloaded|offloading)/ { print; next }
line ~ /^llama_context: / && line !~ /enumerating backends|backend_ptrs|set_abort_callback/ { print; next }
line ~ /^llama_kv_cache(_iswa)?: / && line !~ /layer +[0-9]+: / { print; next }
line ~ /^llama_memory_(recurrent|hybrid)[a-z_]*: / && line !~ /layer +[0-9]+: / { print; next }
line ~ /^sched_reserve: / && line !~ /max_nodes|reserving full memory/ { print; next }
line ~ /^resolve_fused_ops: .*([Ff]lash|FA)/ { print; next }
line ~ /^common_perf_print: +(prompt eval|eval) time/ { print; next }
line ~ /memory_breakdown_print: / { print; next }
line ~ /^~llama_context: .*compute buffer size is/ { print; next }
line ~ /^terminate called|^  what\(\): / { print; next }
lvl == "W" || lvl == "E" { print; next }
