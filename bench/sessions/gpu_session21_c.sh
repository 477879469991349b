#!/usr/bin/env bash
# Session 21, third device call: the value-tile verify with the drafts' token math one draft
# at a time (as before) and the window after the loop as one split product (exact pairs
# past plan.window_span): A/B against the session's starting templates at the tabled
# launches (and two warps), plain rows and folding rows, KDA and GLA at T = 8, batch 256;
# their speculative GPU tests; then their T = 8 verify launches re-tuned (both protocols).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 bench/template_ab.py --kernel verify --rounds 2 \
    --templates bench/ab_templates/base,templates,templates@num_warps=2 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -2 "$OUT/ab_verify.log"
timeout 100 python3 bench/template_ab.py --kernel verify_fold --rounds 2 \
    --templates bench/ab_templates/base,templates \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -2 "$OUT/ab_verify_fold.log"
timeout 120 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"
for v in "kda kimi-linear-48b" "gla gla-1.3b"; do
    set -- $v
    timeout 60 python3 -m replaygen tune --variant $1 --config $2 --L 16 --max-drafts 8 \
        --kernels verify --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
    timeout 60 python3 -m replaygen tune --variant $1 --config $2 --L 16 --max-drafts 8 \
        --verify-folds --kernels verify_fold --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
    mkdir -p "$OUT/tables" && cp generated/$1/tuning.json "$OUT/tables/$1.json"
done
grep "T8" "$OUT/tune.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify ab_verify_fold tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
