#!/usr/bin/env bash
# Session 4, third device call: re-tune GDN and Mamba-2 at L = 16
# (the key-chunk decode now issues its value-tile loads before the chunk stream) and
# KDA's small batches with the value-tile split; probe the fold launches one process each;
# the verify bench (GDN with its tuned verify); the issue-5 suite at L = 16 with the tables
# as committed plus these (tuned in place: generated/ on the device).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 170 python3 -m replaygen tune --variant gdn --L 16 --budget-s 75 > "$OUT/tune-gdn.log" 2>&1
timeout 170 python3 -m replaygen tune --variant mamba2 --L 16 --budget-s 75 > "$OUT/tune-mamba2.log" 2>&1
timeout 70 python3 -m replaygen tune --variant kda --L 16 --batches 1,8 --budget-s 45 > "$OUT/tune-kda.log" 2>&1
tail -n 14 "$OUT/tune-gdn.log" | grep replay_decode; tail -n 14 "$OUT/tune-mamba2.log" | grep replay_decode
tail -n 8 "$OUT/tune-kda.log" | grep replay_decode
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 90 python3 bench/fold_probe.py --out "$OUT/probe" > "$OUT/fold_probe.log" 2>&1
cat "$OUT/fold_probe.log" | cut -c1-220
timeout 90 python3 bench/verify_bench.py --variants gdn --out "$OUT/verify" > "$OUT/verify.log" 2>&1
tail -12 "$OUT/verify.log"
timeout 100 python3 -m replaygen bench --L 16 --batches 1,8,256 --budget-s 80 --out "$OUT/bench" > "$OUT/bench.log" 2>&1
grep "L=16" "$OUT/bench.log"
tar czf "$OUT/data.tgz" -C "$OUT" tables probe verify bench 2>/dev/null
rm -rf "$OUT/tables" "$OUT/probe" "$OUT/verify" "$OUT/bench"
ls "$OUT"
