#!/usr/bin/env bash
# Session 57 (for session 58), any GPU, <= 6 min: where issue 4's read-copy kernels wait.
# Session 57 found the NVFP4 non-flush decode not bound by instruction issue (the int8
# products took 28% of its loop's instructions and 3% of its time), and the NVFP4 fold
# bound by it offline. ncu (gpu_env.sh's ncu_kernel) of, at GDN Qwen3.5-4B, batch 256,
# the tables' launches. bench/profile_workload.py makes 15 filling decodes, a warm-up at
# cursors 8 and 15, then the profiled ones; a queued fold launch follows every decode (it
# finds its queue empty unless the decode flushed). Counted in the interpreter (session 57,
# batch 2): replay_decode_kernel launches 0-14, 15-16, 17 (cursor 8), 18 (cursor 15).
# 1. the NVFP4 decode's non-flush launch (replay_decode_kernel, skip 17);
# 2. the FP8 decode's, for contrast (54% of its bytes bound, NVFP4's 41%);
# 3. the NVFP4 fold of the profiled flush (fold_kernel, skip 18).
# Stall reasons (long scoreboard = waiting on memory, bytes in flight too few; math or
# issue = instruction-bound) decide between more loads in flight and fewer instructions.
# One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
G=(gdn --config qwen3.5-4b)
ncu_kernel gdn-nvfp4-decode replay_decode_kernel 17 "${G[@]}" --read-dtype nvfp4
ncu_kernel gdn-fp8-decode replay_decode_kernel 17 "${G[@]}" --read-dtype fp8
ncu_kernel gdn-nvfp4-fold fold_kernel 18 "${G[@]}" --read-dtype nvfp4
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
