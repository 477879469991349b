#!/usr/bin/env bash
# Session 7, second device call: the verify bench with call 1's tables (grouped heads) at
# batch 256 (T = 2, 4, 8, alternatives at 8) and 512; the NVFP4 read copies in the
# key-chunk decode (decode_structure="kchunks"): checked at their plan launch and timed at
# launches with the flush in a separate fold launch (precision_bench --compare).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, the baselines' wheels
timeout 150 python3 bench/verify_bench.py --out "$OUT/verify-256" > "$OUT/verify-256.log" 2>&1
grep -v "^BENCH" "$OUT/verify-256.log" | tail -14
timeout 70 python3 bench/verify_bench.py --no-alternatives --batch 512 --out "$OUT/verify-512" > "$OUT/verify-512.log" 2>&1
grep -v "^BENCH" "$OUT/verify-512.log" | tail -8
timeout 230 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4-kc,fp16sr+nvfp4-kc --compare --compare-configs fp32+nvfp4-kc,fp16sr+nvfp4-kc \
    --budget-s 200 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"; grep -c "ok\": false" "$OUT/prec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d verify-* prec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
