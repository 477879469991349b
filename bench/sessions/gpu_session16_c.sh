#!/usr/bin/env bash
# Session 16, third device call: bench/fold_nan_probe.py (does a commit's fold read ring
# rows past the committed records, at the tabled and other fold launches?).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 400 python3 bench/fold_nan_probe.py --out "$OUT/nan_probe.json" > "$OUT/nan_probe.log" 2>&1
grep -v Warning "$OUT/nan_probe.log" | cut -c1-330
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log *.json 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
