#!/usr/bin/env bash
# Session 31, after call a (the one-pass flush lost at batch 256, L = 16, at every cap:
# bench/results/session31-2026-12-04/README.md). (1) The same comparison at L = 8, where a
# flush comes every 8 (one-pass: 7) steps, so the flush step's own cost (one-pass 11% faster
# with every row flushing, call a) weighs twice as much: GDN 4B and Mamba-2 Nano / Super,
# batch 256. (2) The tuner's phase 2d as prepared in session 30 (bench/sessions/gpu_session31_b.sh),
# which also offers the one-pass flush on the second and third best launches, for GDN
# Qwen3.5-4B and Mamba-2 Super (the two nearest in call a), batch 256, L = 16.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for g in gdn:qwen3.5-4b mamba2:nemotron3-nano-4b mamba2:nemotron3-super-120b; do
    timeout 100 python3 bench/flush_tail.py --out "$OUT/tail8_${g#*:}" --variants ${g%%:*} --configs ${g#*:} \
        --L 8 --launches "tab;tab+onepass_flush=1" > "$OUT/tail8_${g#*:}.log" 2>&1
    grep "^| " "$OUT/tail8_${g#*:}/flush_tail.md" | tail -2 || tail -5 "$OUT/tail8_${g#*:}.log"
done
for g in gdn:qwen3.5-4b mamba2:nemotron3-super-120b; do
    timeout 200 python3 -m replaygen tune --variant ${g%%:*} --config ${g#*:} --L 16 --kernels replay_decode \
        --batches 256 --budget-s 170 >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "^phase|replay_decode +256 |budget|onepass" "$OUT/tune.log" | cut -c1-220 | tail -40
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tail8_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
