#!/usr/bin/env bash
# Session 49, any GPU, one call of ~7 min (issue 3): KDA with per-step gate records in bf16
# (gate_records="step") instead of fp32 cumulative sums: 256 of a record's 1024 bytes per
# value head fewer, so the byte model's cap on verify + commit falls from 1.088x to 1.042x
# a decode step at T = 8 (replaygen.traffic.speculative). Its T = 8 verify, commit and
# fold swept on this card (it has no entries), then issue 3's KDA row with both gate
# layouts in one run, each with spec_bench's check against the conventional path and its
# accuracy run (16 windows, materialised state against the float64 reference).
# Commit $OUT/kda_tuning.json (the step layout's entries are new).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 230 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --gate-records step --kernels verify,commit,fold --batches 256 --budget-s 180 >> "$OUT/tune.log" 2>&1
grep -E "^phase|budget|replaygen tune:| 256 " "$OUT/tune.log" | cut -c1-200
cp generated/kda/tuning.json "$OUT/kda_tuning.json"
for g in step cumulative; do
    timeout 150 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --gate-records $g \
        --out "$OUT/spec_$g" > "$OUT/spec_$g.log" 2>&1
    grep -A3 "^| variant | err out" "$OUT/spec_$g/spec_bench.md"
    grep -A2 "^| variant | batch" "$OUT/spec_$g/spec_bench.md" | tail -1
    grep -A3 "^| variant | records" "$OUT/spec_$g/spec_bench.md" | tail -1
done
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
