#!/usr/bin/env bash
# Session 30, call f: GDN 4B's batch-256, L = 16 decode swept with the budget its last
# sweep lacked (session 29, call d: phases 3 on, the splits and the separate flush, were
# cut by the 100 s budget), then GDN alone in the suite's timing against fla.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 360 python3 -m replaygen tune --variant gdn --config qwen3.5-4b --L 16 \
    --kernels replay_decode --batches 256 --budget-s 330 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "^phase|replay_decode +256 |budget" "$OUT/tune.log" | cut -c1-220
timeout 150 python3 -m replaygen bench --variants gdn --L 16 --batches 256 --out "$OUT/suite" \
    > "$OUT/suite.log" 2>&1
grep -E "^\| gdn" "$OUT/suite/bench.md" | head -6
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log suite tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
