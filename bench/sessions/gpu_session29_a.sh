#!/usr/bin/env bash
# Session 29, first device call. (1) GLA's fp32 decodes at L = 8 and 32 at batches 1, 8
# and 64 run a launch the runtime derives from their batch-256 entries (session 28's
# Launch.for_fewer_rows, untimed): time them against GLA's conventional step, so the
# batch-1 rule of issue 5 is checked for GLA at every L; then tune them. (2) The batch-64
# decodes of GDN and Mamba-2 (the suite's weakest cells) re-swept with phase 3's splits
# of 16 and 32 (the bulk sweeps predate them). (3) The same GLA cells timed again on the
# new tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 90 python3 -m replaygen bench --variants gla --L 8,32 --batches 1,8,64 --eager \
    --out "$OUT/gla_before" > "$OUT/gla_before.log" 2>&1
grep -A8 "^| variant | geometry | L | batch" "$OUT/gla_before/bench.md"; tail -2 "$OUT/gla_before.log"
timeout 200 python3 -m replaygen tune --variant gla --config gla-1.3b --L 8,32 \
    --kernels replay_decode --batches 1,8,64,512 --budget-s 170 >> "$OUT/tune.log" 2>&1
for v in gdn mamba2; do
    timeout 120 python3 -m replaygen tune --variant $v --L 16 --kernels replay_decode \
        --batches 64 --budget-s 95 >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "replay_decode +[0-9]+ |budget|wrote" "$OUT/tune.log" | tail -24
timeout 80 python3 -m replaygen bench --variants gla --L 8,32 --batches 1,8,64 --eager \
    --out "$OUT/gla_after" > "$OUT/gla_after.log" 2>&1
grep -A8 "^| variant | geometry | L | batch" "$OUT/gla_after/bench.md"; tail -2 "$OUT/gla_after.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log gla_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
