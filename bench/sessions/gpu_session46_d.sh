#!/usr/bin/env bash
# Session 46, any GPU, one call of ~4 min (issue 3, KDA verify + commit 1.30x a decode step
# on the H200 against 1.1x): is the verify's head phase latency-bound by its occupancy?
# bench/proto/kda_head_chunks.py is a standalone kernel doing the head launch's work for
# KDA's T = 8 verify (norms, gates, cumulative decays, probes, the window's and records'
# scores, the solve; its workspace and the drafts' records written), chunked over the key
# axis in HBK-wide tiles: HBK 128 is the shipped tile shape (offline sm_90: 168 registers,
# 24.5 KB shared, 9 programs per SM), HBK 16 122 registers and 9.5 KB (16 per SM) for ~1.6x
# the instructions. Each version is checked against float64 first, then timed (CUDA-graph
# medians, batch 256, 32 heads). For scale, the shipped head launch alone (session 38's H
# prototype: the two-launch verify with a stream launch that streams nothing; H200 0.183 ms).
# A chunked head 3-4x faster than HBK 128 would make a K-chunked head launch worth
# building (verify + commit ~1.07x at 4x: NOTES, session 46).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 240 python3 bench/proto/kda_head_chunks.py --out "$OUT/chunks" > "$OUT/chunks.log" 2>&1
cat "$OUT/chunks.log" | tail -10 | cut -c1-200
HP=bench/ab_templates/s38_head && folder $HP bench/proto/s38_verify_head_only.diff
timeout 200 python3 bench/template_ab.py --kernel verify --templates "templates@head_launch=1,$HP@head_launch=1" \
    --rounds 3 --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_head" > "$OUT/ab_head.log" 2>&1
grep -E "^kda:" "$OUT/ab_head.log" | cut -c1-300
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
