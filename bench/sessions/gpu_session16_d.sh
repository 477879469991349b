#!/usr/bin/env bash
# Session 16, fourth device call: the control-word barrier (templates: tl.debug_barrier()
# after a program's loads of its cursor / drafted words, before any store to them).
# bench/ab_templates/v0s16 is templates/ at 4fafbbb (without the barrier):
#   git archive 4fafbbb templates | tar x -C /tmp && cp -r /tmp/templates bench/ab_templates/v0s16
# (1) the GPU-only race test and the real-geometry protocol test; (2) the stray-write
# probe (calls 3-4 found stray rows at multi-warp fold launches) with the barrier;
# (3) the barrier's cost: decode and fold A/B against v0s16; (4) issue 3's spec_bench.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 150 python3 -m pytest -q tests/test_speculative.py -k "several_warps or real_geometry" > "$OUT/test_spec.log" 2>&1
tail -3 "$OUT/test_spec.log"
timeout 60 python3 bench/fold_stray_probe.py > "$OUT/stray.log" 2>&1
grep -v Warning "$OUT/stray.log" | cut -c1-200
timeout 110 python3 bench/template_ab.py --rounds 3 --out "$OUT/dab" --templates "$AB/v0s16,templates" \
    --cases gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32,mamba2:nemotron3-nano-4b:fp32 > "$OUT/dab.log" 2>&1
filt "$OUT/dab.log" 3
timeout 60 python3 bench/template_ab.py --kernel fold --rounds 3 --out "$OUT/fab" --templates "$AB/v0s16,templates" \
    --cases kda:kimi-linear-48b:fp32,gdn:qwen3.5-4b:fp32 > "$OUT/fab.log" 2>&1
filt "$OUT/fab.log" 2
timeout 200 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256 --skip-accuracy > "$OUT/spec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/spec/spec_bench.md" | head -18; grep -c '"ok": false' "$OUT/spec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log dab fab spec 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
