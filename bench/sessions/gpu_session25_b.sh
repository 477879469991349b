#!/usr/bin/env bash
# Session 25, second device call: GPU tests after the commit's split rule
# (Kernels.commit_split); the split swept at more batch sizes (GLA 64-512, GDN and KDA at
# 64) to check the rule; the verify tuned at T = 4 for KDA (call 1's table did not come
# back) and at T = 2 for GDN, KDA and GLA, batch 256. Everything comes back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 230 python3 -m pytest -q -n 14 -p xdist tests/test_speculative.py tests/test_devmath.py \
    tests/test_decode.py > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
timeout 150 python3 bench/commit_split_bench.py --variants gla --batches 64,128,256,512 \
    --splits 1,2,4,8 --out "$OUT/split_gla" > "$OUT/split_gla.log" 2>&1
timeout 80 python3 bench/commit_split_bench.py --variants gdn,kda --batches 64 \
    --splits 1,2,4 --out "$OUT/split_64" > "$OUT/split_64.log" 2>&1
grep "^|" "$OUT/split_gla/commit_split.md" "$OUT/split_64/commit_split.md" | cut -d: -f2-
for VT in kda:kimi-linear-48b:4 gdn:qwen3.5-4b:2 kda:kimi-linear-48b:2 gla:gla-1.3b:2; do
    IFS=: read -r v c t <<< "$VT"
    timeout 70 python3 -m replaygen tune --variant $v --config $c --L 16 \
        --max-drafts $t --kernels verify --batches 256 --budget-s 30 >> "$OUT/tune.log" 2>&1
done
grep "verify  *256" "$OUT/tune.log" | tail -6
mkdir -p "$OUT/tables" && for v in gdn kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log split_gla split_64 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
