#!/usr/bin/env bash
# Session 21, second device call: the value-tile verify with [TD, BK] per-draft tiles
# (queries' rows stacked over the keys' by tl.join), per-row reciprocals of the norms, and
# the exact window path as a loop: A/B against the session's starting templates at the
# tabled launches and at other warps / stages / tiles, plain rows (verify) and folding rows
# (verify_fold), KDA and GLA at T = 8, batch 256; then their speculative GPU tests.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 bench/template_ab.py --kernel verify --rounds 2 \
    --templates bench/ab_templates/base,templates,templates@num_warps=2,templates@num_warps=2+num_stages=3,templates@num_warps=4,templates@num_warps=2+BV=32 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -3 "$OUT/ab_verify.log"
timeout 150 python3 bench/template_ab.py --kernel verify_fold --rounds 2 \
    --templates bench/ab_templates/base,templates,templates@num_warps=2,templates@num_warps=4 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -3 "$OUT/ab_verify_fold.log"
timeout 150 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -4 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify ab_verify_fold 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
