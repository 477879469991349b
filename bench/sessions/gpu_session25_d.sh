#!/usr/bin/env bash
# Session 25, fourth device call: the commit's launch of the fold kernel tuned on its own
# (kernel "commit": a commit of T = 8 drafts per row with the rows' cursors staggered, one
# row in three folding), for GLA at batch 256 and 512 and for KDA, GDN and Mamba-2 at 256;
# spec_bench at T = 8 after it; GPU tests of the new paths (warmup of a speculative
# configuration, the commit's tune dry run, split folds).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 70 python3 -m replaygen tune --variant gla --config gla-1.3b --L 16 --max-drafts 8 \
    --kernels commit --batches 256,512 --budget-s 50 >> "$OUT/tune.log" 2>&1
for V in kda:kimi-linear-48b gdn:qwen3.5-4b mamba2:nemotron3-nano-4b; do
    timeout 55 python3 -m replaygen tune --variant ${V%%:*} --config ${V##*:} --L 16 \
        --max-drafts 8 --kernels commit --batches 256 --budget-s 30 >> "$OUT/tune.log" 2>&1
done
grep " commit  *[0-9]" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn kda gla mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
timeout 110 python3 bench/spec_bench.py --variants gla,kda,gdn,mamba2 --drafts 8 \
    --batches 256,512 --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
timeout 90 python3 -m pytest -q -n 14 -p xdist tests/test_tuning.py tests/test_bench_cli.py \
    tests/test_speculative.py -k "warmup or speculative_config or commit or split" > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_t8 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
