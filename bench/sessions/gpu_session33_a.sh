#!/usr/bin/env bash
# Prepared in session 32 (no device was lent) for session 33: KDA's T = 8 verify after
# session 32's two template changes (a delta rule's value tile as Z = F·X + G_v·V_d, two
# independent products after X where there was a chain of three; the drafts' loop no
# longer reloading parameters). Offline (Triton 3.6, sm_90, bench/sass_count.py): 329 ->
# 256 instructions per value tile, 6192 -> 6096 static, 222 registers either way.
# (1) A/B against the session's starting templates (bench/ab_templates/s32_base: make it
# with `bash bench/ab_templates_at.sh 01c4611 s32_base` and carry it), at the tabled
# launch and two warps, plain rows and folding rows; (2) its GPU tests; (3) its verify
# launches re-tuned (batch 256 and 512, both protocols); (4) issue 3's table at T = 8
# (KDA 1.367x a decode step in session 25; GDN as the control).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 bench/template_ab.py --kernel verify --rounds 3 \
    --templates bench/ab_templates/s32_base,templates,templates@num_warps=2 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -4 "$OUT/ab_verify.log"
timeout 80 python3 bench/template_ab.py --kernel verify_fold --rounds 2 \
    --templates bench/ab_templates/s32_base,templates \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -3 "$OUT/ab_verify_fold.log"
timeout 90 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"
timeout 100 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 75 >> "$OUT/tune.log" 2>&1
timeout 60 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --verify-folds --kernels verify_fold --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep "T8" "$OUT/tune.log" | tail -6
timeout 100 python3 bench/spec_bench.py --variants kda,gdn --drafts 8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify ab_verify_fold spec_t8 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
