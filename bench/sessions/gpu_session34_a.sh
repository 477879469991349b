#!/usr/bin/env bash
# Prepared in session 34 for session 35's first device call. (1) The whole test suite on
# the H200: session 34 found a verify failure the interpreter cannot show (session 32's
# delta-rule window, reverted; bench/results/session34-2026-12-05/ section 1) and the
# suite had not run whole on the GPU since session 31. SIGINT at the limit, so pytest still
# prints what failed. (2) KDA's T = 8 verify re-tuned for the reverted template (session
# 34's re-tune, num_stages 3, was for the template taken out; copy $OUT/tables/kda.json into
# generated/kda/tuning.json if it is faster), then issue 3's T = 8 table.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout -s INT -k 30 300 python3 -m pytest -q -n 16 -p xdist -rf tests > "$OUT/tests_gpu.log" 2>&1
grep -E "^FAILED|passed|failed|error" "$OUT/tests_gpu.log" | tail -20
timeout 100 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 75 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep -E "verify +(256|512) " "$OUT/tune.log" | tail -4 | cut -c1-230
timeout 100 python3 bench/spec_bench.py --variants kda,gdn --drafts 8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_t8 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
