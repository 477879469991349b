#!/usr/bin/env bash
# Session 15, sixth device call. Call 5's ablation of GDN 4B's T = 8 verify: without the
# window's four small products per value tile 0.1668 ms against 0.2192 (the DRAM stream
# 0.026 ms, the solve 0.008). vk5: the delta rule's window as ONE product per tile,
# [x_win | w_dT] = [X | V_dᵀ] · W_win with W_win = [[-M_xᵀ S_dᵀ, -M_xᵀ], [M_vᵀ S_dᵀ, M_vᵀ]]
# built once per head (columns of absent drafts zero), instead of three dependent ones
# (w_v, w_x, then x_win on w_dT). Offline sm_90 GDN 4B [16, 128]/w1/s2/h2: 187 -> 168
# registers, 23 -> 24.5 KiB shared, 530 -> 588 instructions per tile (the join / split
# shuffles); interpreter: tests/test_speculative.py -k "gdn or mamba2" passed with it.
# Device time was short (one call left), so the adoption is decided here by a rule fixed
# in advance: if vk5 is >= 2% faster than the templates on GDN 4B at the tabled launch,
# its template replaces templates/verify_kchunks.py.j2 in this call's working copy and
# spec_bench runs for GDN with it at the tabled launches (no re-tune: no time for one).
source "$(dirname "$0")/gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 110 python3 bench/template_ab.py --kernel verify --rounds 2 --out "$OUT/vab" \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 \
    --templates "templates,$AB/vk5" > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 3
if python3 - "$OUT/vab/template_ab.json" <<'PY'
import json, statistics, sys
case = json.load(open(sys.argv[1]))["cases"][0]           # gdn:qwen3.5-4b:fp32
base, vk5 = (statistics.median(t) for t in case["times"][:2])
print(f"rule: templates {base:.4f} ms, vk5 {vk5:.4f} ms, ratio {base / vk5:.3f}")
sys.exit(0 if base / vk5 >= 1.02 else 1)
PY
then
    cp $AB/vk5/verify_kchunks.py.j2 templates/verify_kchunks.py.j2
    python3 -m replaygen build --variant gdn > "$OUT/build.log" 2>&1
    timeout 90 python3 bench/spec_bench.py --out "$OUT/spec" --variants gdn --batches 256 --skip-accuracy > "$OUT/spec.log" 2>&1
    sed -n '/## Timings/,$p' "$OUT/spec/spec_bench.md" | head -7; grep -c '"ok": false' "$OUT/spec.log"
fi
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab tables spec 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
