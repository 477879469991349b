#!/usr/bin/env bash
# Session 47, any GPU, one call of ~2 min: where the tuner's timing of Mamba-2 Nano's FP8
# decode spends 2-3 s per candidate on the H100 with every kernel compiled ahead (session
# 47 call 2's tune.log: "kernels compiled here that no worker compiled: 0"), against ~0.15 s
# for the fp32 decode: the host time of each part of one Timer call, and a cProfile of one.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 400 python3 bench/results/session47-2026-12-06/call3/s47_timing_segments.py --out "$OUT/probe" > "$OUT/probe.log" 2>&1
tail -60 "$OUT/probe.log" | cut -c1-220
