#!/usr/bin/env bash
# Session 58, any GPU (an H100 is fine: one A/B), <= 4 min: the NVFP4 fold's tile loop
# software-pipelined. ncu (call C1): the queued fold waits on memory (long scoreboard 39%)
# and barriers at 16 warps per SM, and its tile loop is a plain range, which Triton 3.6
# does not pipeline (no LDGSTS in its SASS). bench/proto/s58_fold_pipelined_s3.diff (and its 2-stage twin)
# make it tl.range(..., num_stages=2 or 3): the next tiles' checkpoint and records come in
# by cp.async while this tile folds. Offline (sm_90, Triton 3.6) that takes 153 registers
# (3 programs per SM, where the grid has 4) unless capped: at maxnreg 128 it is 128
# registers, no spills, 4 programs per SM, 24-34 KB of shared memory. So this call's
# copy of the tables gets fold entries (this card, batch 256) at the plan's tile with
# maxnreg 128 for GDN 4B's and Mamba-2 Nano's NVFP4 configurations and GDN 4B's FP8
# one; main's templates run under the same entries (main's fold is 128 registers with 16
# bytes of spills uncapped). bench/template_ab.py: flush_step is a flush of every row.
# (Ran as session 58's calls E1-E4. Superseded by Launch.fold_stages, 9806694: the diff no
# longer applies to main's fold; `templates@fold_stages=3` is the same A/B.)
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
[ -n "${NO_FOLD_ENTRIES:-}" ] || python3 - <<'PY'   # (NO_FOLD_ENTRIES=1: the tables as committed)
import json, subprocess
gpu = subprocess.check_output(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], text=True).strip()
configs = {"gdn": ["gdn__H16_HV32_K128_V128__L16__state_fp32__read_nvfp4__rec_bf16",
                   "gdn__H16_HV32_K128_V128__L16__state_fp32__read_fp8row__rec_bf16"],
           "mamba2": ["mamba2__ngroups8_nheads96_dstate128_headdim80__L16__state_fp32__read_nvfp4__rec_bf16"]}
for variant, names in configs.items():
    path = f"generated/{variant}/tuning.json"
    table = json.load(open(path))
    entries = table["gpus"][gpu]["entries"]
    for name in names:
        entries[:] = [e for e in entries if not (e["config"] == name and e["kernel"] == "fold" and e["batch"] == 256)]
        entries.append({"config": name, "kernel": "fold", "batch": 256, "BV": 16, "num_warps": 4,
                        "num_stages": 3, "maxnreg": 128})
    json.dump(table, open(path, "w"), indent=1)
print("fold entries added for", gpu)
PY
# STAGES: the depths to try (default 2 3; others are made from the 3-stage diff)
V=templates
for s in ${STAGES:-2 3}; do
    sed "s/num_stages=3/num_stages=$s/" bench/proto/s58_fold_pipelined_s3.diff > /tmp/fold_s$s.diff
    folder /tmp/tpl_fold_s$s /tmp/fold_s$s.diff
    V="$V,/tmp/tpl_fold_s$s"
done
ab fold_pipelined${STAGES:+_${STAGES// /_}} ${AB_S:-200} ${CASES:-gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,gdn:qwen3.5-4b:fp8} "$V"
