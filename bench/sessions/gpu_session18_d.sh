#!/usr/bin/env bash
# Session 18, fourth device call: (1) the several-warp fold test, both protocols (call 3
# failed its default-protocol case only because it then varied the verify launch too:
# a delta rule's bf16 draft records rounded differently, 2.9e-5; the verify launch now
# varies only where it folds, with a bf16-derived tolerance); (2) the plain verify of the
# verify_folds configurations tuned (`replaygen tune --verify-folds --kernels verify`,
# batch 256; call 3 tuned their verify_fold launch), tables copied to $OUT/tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 110 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py \
    -k "several_warps" > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
mkdir -p "$OUT/tables"
for vc in mamba2:nemotron3-nano-4b gdn:qwen3.5-4b kda:kimi-linear-48b gla:gla-1.3b; do
    timeout 60 python3 -m replaygen tune --variant ${vc%%:*} --config ${vc#*:} --L 16 --max-drafts 8 \
        --verify-folds --kernels verify --batches 256 --budget-s 35 >> "$OUT/tune.log" 2>&1
    cp generated/${vc%%:*}/tuning.json "$OUT/tables/${vc%%:*}.json"
done
grep "T8vf.* verify  " "$OUT/tune.log" | tail -8
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
