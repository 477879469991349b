#!/usr/bin/env bash
# Session 19, first device call: (1) where a staggered T = 8 speculative step's time goes,
# kernel by kernel, for both protocols (bench/spec_breakdown.py; session 18 measured the
# verify_folds step 0.07 ms above the sum of its launches' separate timings for GDN);
# (2) the folding verify launch A/B: templates vs sf0 (a folding row skips the committed
# records' product, S_c = 0: Mamba-2 254 -> 180 registers offline) vs sf1 (session 18's
# patch: the fold as a side computation). bench/ab_templates/{sf0,sf1} carried.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 230 python3 bench/spec_breakdown.py --out "$OUT/breakdown" --cycles 10 > "$OUT/breakdown.log" 2>&1
tail -40 "$OUT/breakdown.log" | grep -v "^RUN"
timeout 280 python3 bench/template_ab.py --kernel verify_fold --rounds 3 \
    --templates templates,bench/ab_templates/sf0,bench/ab_templates/sf1 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 \
    --out "$OUT/ab_vf" > "$OUT/ab_vf.log" 2>&1
tail -12 "$OUT/ab_vf.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log breakdown ab_vf 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
