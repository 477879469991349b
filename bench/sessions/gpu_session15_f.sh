#!/usr/bin/env bash
# Session 15's sixth device call: NOT RUN (the session's device time ran out); ready for the
# next session. Apply bench/results/session15-2026-12-02/vk5.patch and vk6.patch to copies
# of templates/ in bench/ab_templates/vk5 and vk6 first (each is a diff of templates/ at the
# commit that added it), e.g.
#   for v in vk5 vk6; do rm -rf bench/ab_templates/$v; cp -r templates bench/ab_templates/$v
#       (cd bench/ab_templates/$v && patch -p1 < ../../results/session15-2026-12-02/$v.patch); done
# Call 5's ablation of GDN 4B's T = 8 verify: without the window's four small products per
# value tile 0.1668 ms against 0.2192 (the DRAM stream 0.026 ms, the solve 0.008).
# vk5: the delta rule's window as ONE product per tile, [x_win | w_dT] = [X | V_dᵀ] · W_win,
#   W_win = [[-M_xᵀ S_dᵀ, -M_xᵀ], [M_vᵀ S_dᵀ, M_vᵀ]] built once per head, instead of three
#   dependent ones. Offline sm_90, GDN 4B [16, 128]/w1/s2/h2: 168 registers (187), 24.5 KiB
#   shared (22.5), 588 instructions per tile (530).
# vk6: the window folded into three per-head operands, [out - X_c diag(s) | w_dT] =
#   X_c H_c + R H_r + V_dᵀ H_v (X_c the stream's raw product): three independent products
#   per tile, none waiting on another. Offline: 255 registers, 20.5 KiB, 597 per tile.
# Both passed tests/test_speculative.py -k "gdn or mamba2" in the interpreter (fp32
# schedule included). Mamba-2's kernels are unchanged by either (no delta rule).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 200 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 \
    --templates "templates,$AB/vk5,$AB/vk6,$AB/vk5@heads=1,$AB/vk6@heads=1" > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 3
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
