#!/usr/bin/env bash
# Session 20, fourth device call, after call 3 (GDN's key-chunk verify with the window as
# three per-head matrices: 0.2257 -> 0.2029 ms, verify + commit 1.291x -> 1.211x a decode
# step): (1) GDN's full spec_bench, both protocols (the check of verify/commit against the
# reference, T = 2, 4, 8 at batch 256 and 512, and the 16-window accuracy run with bf16
# and fp32 records); (2) the per-launch breakdown of GDN's staggered T = 8 step.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for p in default vf; do
    extra=(); [ $p = vf ] && extra=(--verify-folds)
    timeout 120 python3 bench/spec_bench.py "${extra[@]}" --variants gdn --out "$OUT/spec_$p" > "$OUT/spec_$p.log" 2>&1
    grep "^BENCH\|error\|Error" "$OUT/spec_$p.log" | cut -c1-260 | tail -8
    grep -i "accuracy\|drift" "$OUT/spec_$p/"*.md 2>/dev/null | head -4
done
timeout 80 python3 bench/spec_breakdown.py --variants gdn --out "$OUT/breakdown" --cycles 10 > "$OUT/breakdown.log" 2>&1
grep "sum / graph" "$OUT/breakdown/spec_breakdown.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf breakdown 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
