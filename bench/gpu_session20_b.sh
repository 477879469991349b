#!/usr/bin/env bash
# Session 20, second device call: where the key-chunk verify's time goes (diagnostic
# template versions, outputs deliberately wrong in all but templates/): hv_nosolve (no
# forward substitution), hv_nowin (the per-tile window's four small products and the
# solve gone: checkpoint product and stores only), hv_nostream (the head phase only, its
# results kept alive by one store), and the tabled launch at 3 and 4 stages.
source "$(dirname "$0")/gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
timeout 330 python3 bench/template_ab.py --kernel verify --rounds 3 \
    --templates templates,$A/hv_nosolve,$A/hv_nowin,$A/hv_nostream,templates@num_stages=3,templates@num_stages=4 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_diag" > "$OUT/ab_diag.log" 2>&1
tail -8 "$OUT/ab_diag.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_diag 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
