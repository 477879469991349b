#!/usr/bin/env bash
# Session 12, third device call. Call 2: streaming first (v1, f3f728b) made the pure
# non-flush step 3-8% faster but the staggered amortised step ~2% slower in 5 of 7 cases;
# its record rows load unmasked by the cursor (16 rows per program instead of n: ~3% more
# bytes for fp32, more for NVFP4). Two middle versions (bench/ab_templates/, not
# committed): v2 = v1 with the record rows masked by n again (the stream waits for the
# cursor only), v3 = v0 with only the records' gates loaded without waiting for n.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 420 python3 bench/template_ab.py \
    --templates bench/ab_templates/v0,bench/ab_templates/v3,bench/ab_templates/v2,templates \
    --out "$OUT/ab" > "$OUT/ab.log" 2>&1
grep -v Warning "$OUT/ab.log" | grep -v "return replaygen" | tail -9
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d ab *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
