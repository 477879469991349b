#!/usr/bin/env bash
# Session 21, first device call: the value-tile verify with its drafts as tiles and the
# window as one split product (templates/) against the session's starting templates
# (bench/ab_templates/base) and the split product without its exact fallback
# (bench/ab_templates/fastonly: timing only), KDA and GLA at T = 8, batch 256, at the
# tabled launch and at 2 and 4 warps; then KDA's and GLA's speculative GPU tests.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 240 python3 bench/template_ab.py --kernel verify --rounds 2 \
    --templates bench/ab_templates/base,templates,bench/ab_templates/fastonly,bench/ab_templates/base@num_warps=2,templates@num_warps=2,templates@num_warps=4 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -22 "$OUT/ab_verify.log"
timeout 200 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -4 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_verify 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
