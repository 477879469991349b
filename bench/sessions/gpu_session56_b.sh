#!/usr/bin/env bash
# Session 56, any GPU, <= 9.5 min. First, issue 4's NVFP4 lever measured alone:
# bench/proto/s56_nvfp4_dp4a.py times the read copy's two-probe product over Qwen3.5-4B's
# NVFP4 copy at batch 256 in int8 dot products (dp4a: the nibbles looked up as bytes by
# byte permutes, the probes rounded to int8; dp4a2: two int8 parts per probe) against the
# production fp16x2 word path, each checked against float64 first, with a copy of the same
# bytes as the rate reference (offline sm_90: 43 instructions per 8-byte word where the
# word path takes 64). Then, on an H200 only, gpu_session55_b.sh's item: Mamba-2 Nano's
# FP8 decode swept and issue 4's Mamba-2 table (commit $OUT/mamba2_tuning.json if it
# wins). One tarball comes back.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout ${DP4A_S:-240} python3 bench/proto/s56_nvfp4_dp4a.py --out "$OUT/nvfp4_dp4a.json" > "$OUT/nvfp4_dp4a.log" 2>&1
echo "nvfp4_dp4a rc=$?"
grep -E "^copy|FAILED|Error" "$OUT/nvfp4_dp4a.log" | cut -c1-300
proto_summary "$OUT/nvfp4_dp4a.json" words dp4a_lane dp4a_const dp4a2
if grep -q "H200" "$OUT/gpu.txt"; then
    nano_fp8_issue4 ${TUNE_S:-130} 120
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
