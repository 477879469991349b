#!/usr/bin/env bash
# Session 49, any GPU, one call of ~3 min (issue 3): where KDA's T = 8 verify waits now,
# after session 48's probe-row head and solve by products. ncu of the verify (every row at
# n = 8 committed records, T = 8 drafts: profile_workload.py --verify-at 8) at the table's
# launch: duration, DRAM throughput, occupancy, issue rate, and stall samples per SASS line
# (split at the first cp.async into head and stream by bench/ncu_phases.py).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
ncu_verify kda-verify 1 kda --config kimi-linear-48b --max-drafts 8 --verify-at 8
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
