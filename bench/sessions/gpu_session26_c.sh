#!/usr/bin/env bash
# Session 26, third device call, with calls 1-2's tables: issue 3 at T = 4 and 2 (the
# commits' own launches), issue 4's timings (GDN's NVFP4 decode at 128 registers), and
# the read-copy GPU tests under the new table.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for T in 4 2; do
    timeout 110 python3 bench/spec_bench.py --variants mamba2,gdn,kda,gla --drafts $T \
        --batches 256,512 --skip-accuracy --out "$OUT/spec_t$T" > "$OUT/spec_t$T.log" 2>&1
    grep "^| [a-z]" "$OUT/spec_t$T/spec_bench.md"
done
timeout 150 python3 bench/precision_bench.py --out "$OUT/prec" --variants gdn,mamba2 \
    --checks fp32+nvfp4,fp32+fp8row,fp16sr+nvfp4 > "$OUT/prec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/prec/precision_bench.md"
timeout 120 python3 -m pytest -q -n 14 -p xdist tests/test_precision.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_t* prec 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
