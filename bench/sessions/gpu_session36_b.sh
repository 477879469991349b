#!/usr/bin/env bash
# Session 36, after gpu_session36_a.sh: the tree patched with session 35's stream_first and
# the shared-memory prototype that call a found faster (PROTO, default
# bench/proto/s36_verify_sc_late_loads.diff; s36_verify_sc_first.diff is the other):
# (1) the GPU tests they touch; (2) KDA's T = 8 verify re-tuned (phase 1c tries
# stream_first, phases 2 and 2b the stages and the register caps that now add programs per
# SM); (3) issue 3's T = 8 table. Copy $OUT/tables/kda.json into generated/kda/tuning.json
# only if call a's A/B says the prototypes win.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
PROTO=${PROTO:-bench/proto/s36_verify_sc_late_loads.diff}
patch -s -p1 < bench/proto/s35_verify_stream_first.diff && patch -s -p1 < "$PROTO" \
    && python3 -m replaygen build --all > /dev/null
timeout -s INT -k 20 120 python3 -m pytest -q -n 16 -p xdist -rf tests/test_speculative.py \
    tests/test_tuning.py tests/test_launch_options.py -k "kda or gla or stream or staggered or strong or launch" \
    > "$OUT/tests.log" 2>&1
grep -E "^FAILED|passed|failed" "$OUT/tests.log" | tail -8
timeout 150 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
    --kernels verify --batches 256,512 --budget-s 120 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && cp generated/kda/tuning.json "$OUT/tables/kda.json"
grep -E "^phase|verify +(256|512) " "$OUT/tune.log" | tail -12 | cut -c1-230
timeout 80 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256,512 \
    --skip-accuracy --out "$OUT/spec_t8" > "$OUT/spec_t8.log" 2>&1
grep "^| [a-z]" "$OUT/spec_t8/spec_bench.md"
