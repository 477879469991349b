#!/usr/bin/env bash
# Session 37: an FP8 read copy's value tiles on tensor cores (Launch.read_mma, 8d5adae).
# The read copies are instruction-bound at 16 one-warp programs per SM (issue 4: GDN 4B
# FP8 non-flush 2.01x the fp32 read, cap 3.30x). With read_mma a four-warp program streams
# its e4m3 tiles by cp.async into shared memory and multiplies them there by wgmma against
# an e4m3 probe operand built once (three parts per probe): no per-element work in the
# threads. Offline (sm_90, Triton 3.6) its instructions per program are about the key-chunk
# decode's (GDN 4B [128, K] at four warps 1,344 x 4 warps against ~4,600 at one warp), in
# more warps per SM (28 against 16), so only the H200 can say which is faster.
# (1) the GPU tests of the path; (2) GDN 4B: the tabled key-chunk FP8 decode, four
# tensor-core launches in value tiles (decode_structure=vtiles), and the fp32 read (the
# denominator of issue 4's ratio). config_ab: a check of every version's outputs against
# the first, then CUDA-graph medians (non-flush at n = 8, flush, amortised), A B A B
# rounds. gpu_session37_b.sh does KDA and Mamba-2 Nano, _c.sh GLA, _d.sh the tuning.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout -s INT -k 20 150 python3 -m pytest -q -n 16 -p xdist -rf tests/test_precision.py \
    tests/test_tuning.py tests/test_formats.py -k "read_products or mma or e4m3" > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -8
MMA_AB_TIMEOUT=330 mma_ab gdn qwen3.5-4b fold_warps=4 64/4/2 128/4/1 128/4/2 128/8/1
