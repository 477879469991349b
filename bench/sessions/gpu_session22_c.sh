#!/usr/bin/env bash
# Session 22, third device call: devmath through libdevice (fast_expf / fast_logf, not
# inline assembly); its GPU tests and the speculative tests of every variant; the T = 8
# verify launches of GDN (its key-chunk verify took 168 -> 202 registers offline with the
# ftz exp, call 2 measured it 6% slower) and KDA re-tuned; then spec_bench at batch 256,
# T = 8, every variant, both protocols.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 150 python3 -m pytest -q -n 12 -p xdist tests/test_devmath.py tests/test_speculative.py > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"; grep -E "^(FAILED|ERROR)|^E  " "$OUT/tests.log" | head -8
for vc in gdn:qwen3.5-4b kda:kimi-linear-48b; do
    timeout 115 python3 -m replaygen tune --variant ${vc%%:*} --config ${vc##*:} --L 16 --max-drafts 8 \
        --kernels verify --batches 256 --budget-s 85 >> "$OUT/tune.log" 2>&1
    mkdir -p "$OUT/tables" && cp generated/${vc%%:*}/tuning.json "$OUT/tables/${vc%%:*}.json"
done
grep "T8" "$OUT/tune.log" | tail -4
V=mamba2,gdn,kda,gla
timeout 100 python3 bench/spec_bench.py --variants $V --drafts 8 --batches 256 --skip-accuracy --out "$OUT/spec_default" > "$OUT/spec_default.log" 2>&1
grep "^BENCH\|^CHECK\|rror" "$OUT/spec_default.log" | cut -c1-300
timeout 100 python3 bench/spec_bench.py --verify-folds --variants $V --drafts 8 --batches 256 --skip-check --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
grep "^BENCH\|rror" "$OUT/spec_vf.log" | cut -c1-300
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log spec_default spec_vf tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
