#!/usr/bin/env bash
# Session 7, first device call: the key-chunked verify whose programs may serve several
# value heads of one key group (Launch.heads: the key-level work once per program). The
# CUDA tests of the speculative protocol (grouped programs included) and the tuning
# tables; the verify bench at batch 256 with session 6's tables and alternatives that
# group heads (its checks against the value-tile verify and the snapshot path included);
# the verify re-tuned with phase 2c (heads) at batches 256 and 512; the verify bench at
# 256 and 512 with those tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 90 python3 -m pytest -q tests/test_speculative.py tests/test_tuning.py -p no:cacheprovider \
    -x -n 8 > "$OUT/pytest-cuda.log" 2>&1
echo "pytest exit $?" >> "$OUT/pytest-cuda.log"; tail -3 "$OUT/pytest-cuda.log"
timeout 140 python3 bench/verify_bench.py --drafts 8 --out "$OUT/verify-before" > "$OUT/verify-before.log" 2>&1
grep -v "^BENCH" "$OUT/verify-before.log" | tail -14
for vc in "gdn qwen3.5-4b" "mamba2 nemotron3-nano-4b"; do
    set -- $vc
    timeout 110 python3 -m replaygen tune --variant "$1" --config "$2" --L 16 --max-drafts 8 \
        --kernels verify --batches 256,512 --budget-s 95 >> "$OUT/tune.log" 2>&1
done
grep "verify \|phase\|budget" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 80 python3 bench/verify_bench.py --no-alternatives --out "$OUT/verify-256" > "$OUT/verify-256.log" 2>&1
grep -v "^BENCH" "$OUT/verify-256.log" | tail -8
timeout 80 python3 bench/verify_bench.py --no-alternatives --batch 512 --out "$OUT/verify-512" > "$OUT/verify-512.log" 2>&1
grep -v "^BENCH" "$OUT/verify-512.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables verify-* *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
