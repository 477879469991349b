#!/usr/bin/env bash
# Session 14, third device call: call 2's verify winner adopted (vv1: the value-tile
# verify's checkpoint tiles loaded inside a tl.range loop; KDA T8 0.4913 -> 0.3904 ms in the
# A/B). The CUDA speculative tests of the value-tile variants, the T8 verify re-tuned for
# KDA and GLA at batch 256 (GLA's stages: vv3@2 stages 1.57x against 1.35x at the tabled 3),
# then issue 3's spec bench for them.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 120 python3 -m pytest -q -x tests/test_speculative.py -k "kda or gla" > "$OUT/test_spec.log" 2>&1
tail -1 "$OUT/test_spec.log"
for v in kda gla; do
    timeout 110 python3 -m replaygen tune --variant $v --L 16 --max-drafts 8 --kernels verify \
        --batches 256 --budget-s 80 >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables"; for v in kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -A1 "^configuration" "$OUT/tune.log" | grep -v "^--" | tail -4
timeout 120 python3 bench/spec_bench.py --out "$OUT/spec" --variants kda,gla --batches 256 --skip-accuracy > "$OUT/spec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/spec/spec_bench.md" | head -10; grep -c '"ok": false' "$OUT/spec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables spec *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
