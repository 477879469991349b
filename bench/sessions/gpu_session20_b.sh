#!/usr/bin/env bash
# Session 20, second device call: where the key-chunk verify's time goes (diagnostic
# template versions, outputs deliberately wrong in all but templates/): hv_nosolve (no
# forward substitution), hv_nowin (the per-tile window's four small products and the
# solve gone: checkpoint product and stores only), hv_nostream (the head phase only, its
# results kept alive by one store); and the checkpoint chunk prefetched by hand one
# iteration ahead, its load issued before the iteration's work (pf1; pf2: also the next
# head's first chunk, in flight through that head's phase), with Triton's pipelining off
# (num_stages 1: the small per-tile loads plain) or on.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
timeout 420 python3 bench/template_ab.py --kernel verify --rounds 3 \
    --templates templates,$A/hv_nosolve,$A/hv_nowin,$A/hv_nostream,$A/pf1@num_stages=1,$A/pf2@num_stages=1,$A/pf2@num_stages=2 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32 \
    --out "$OUT/ab_diag" > "$OUT/ab_diag.log" 2>&1
tail -8 "$OUT/ab_diag.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_diag 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
