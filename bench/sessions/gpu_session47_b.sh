#!/usr/bin/env bash
# Session 47, any GPU, one call of ~2 min, after gpu_session47_a.sh (the timing process
# compiles each FP8 candidate again, ~2 s of LLVM and ptxas): which parts of the on-disk
# cache key (perf.CompileKeys, Triton's compilation listener) set the timing process's
# compiles apart from the workers' for Mamba-2 Nano's FP8 decode, with fp32 beside it.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 300 python3 bench/proto/s47_timing_probe.py --out "$OUT/probe" > "$OUT/probe.log" 2>&1
cut -c1-1500 "$OUT/probe.log" | tail -40
