#!/usr/bin/env bash
# Session 4, last device call: the whole CUDA test suite; the fold probe (each launch in
# its own process); GDN and Mamba-2 re-tuned at L = 8 and 32 (their key-chunk streams'
# num_stages now sets the pipeline depth; in place); the issue-5 suite at L = 8, 16, 32.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 160 python3 -m pytest -q tests -p no:cacheprovider -n 8 -k "not compile_for_sm90" \
    > "$OUT/pytest-cuda.log" 2>&1; echo "pytest exit $?" >> "$OUT/pytest-cuda.log"
tail -4 "$OUT/pytest-cuda.log"
timeout 70 python3 bench/fold_probe.py --out "$OUT/probe" > "$OUT/fold_probe.log" 2>&1
cut -c1-200 "$OUT/fold_probe.log"
timeout 150 python3 -m replaygen tune --variant gdn --L 8,32 --batches 1,8,64,256 --budget-s 55 \
    > "$OUT/tune-gdn-L8-32.log" 2>&1
timeout 150 python3 -m replaygen tune --variant mamba2 --L 8,32 --batches 1,8,64,256 --budget-s 55 \
    > "$OUT/tune-mamba2-L8-32.log" 2>&1
grep replay_decode "$OUT/tune-gdn-L8-32.log" "$OUT/tune-mamba2-L8-32.log" | cut -d: -f2 | cut -c1-150
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 170 python3 -m replaygen bench --L 8,16,32 --budget-s 140 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "batch=256\|batch=1 " "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables probe bench 2>/dev/null
rm -rf "$OUT/tables" "$OUT/probe" "$OUT/bench"
ls "$OUT"
