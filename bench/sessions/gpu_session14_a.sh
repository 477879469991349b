#!/usr/bin/env bash
# Session 14, first device call: formats.exp_ftz on the GPU (its PTX), the KDA value-tile
# decode A/B (bench/ab_templates: kda-t1 = the records' value tile transposed so that its
# sums come out along the value axis without an 8x replicated [BL, BV] tile in the state
# layout and without two layout conversions per tile, offline sm_90 loop 800 -> 627
# instructions; kda-t2 = t1 + the decay weights through exp_ftz, head phase -280), and
# issue 3's speculative bench for every variant (where KDA and GLA stand).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 60 python3 -m pytest -q tests/test_formats.py > "$OUT/test_formats.log" 2>&1
tail -1 "$OUT/test_formats.log"
timeout 200 python3 bench/template_ab.py --templates templates,bench/ab_templates/kda-t1,bench/ab_templates/kda-t2 \
    --cases kda:kimi-linear-48b:fp32 --rounds 3 --out "$OUT/ab_kda" > "$OUT/ab_kda.log" 2>&1
grep -v Warning "$OUT/ab_kda.log" | grep -v "return replaygen\|kern = \|replaygen.load" | tail -3
timeout 200 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256 --skip-accuracy > "$OUT/spec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/spec/spec_bench.md" | head -18; grep -c '"ok": false' "$OUT/spec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d ab_kda spec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
