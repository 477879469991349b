#!/usr/bin/env bash
# Session 31: the launch order (Launch.flush_order, replaygen/launch_order.py) on the H200.
# (1) Its tests on the GPU, where a launch's programs run concurrently and race the epoch
# word for real (the interpreter runs them one after another). (2) bench/flush_tail.py
# per geometry, batch 256, L = 16: the table's launch against it with the flushing
# programs first (order 1) and every 2nd / 4th. Only the amortised column (a staggered
# cycle) shows it: the single-launch placements restore their cursors before each run, so
# the flags the launch before wrote never flag a row. Outputs are checked against the
# table's launch (same arithmetic: 0 expected).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 -m pytest -q -n 8 -p xdist tests/test_launch_order.py tests/test_decode.py \
    -k "flush_order or onepass or launch_order" > "$OUT/tests.log" 2>&1
tail -3 "$OUT/tests.log"
for g in gdn:qwen3.5-4b gdn:qwen3.5-122b-a10b mamba2:nemotron3-nano-4b mamba2:nemotron3-super-120b; do
    timeout 120 python3 bench/flush_tail.py --out "$OUT/tail_${g#*:}" --variants ${g%%:*} --configs ${g#*:} \
        --launches "tab;tab+flush_order=1;tab+flush_order=2;tab+flush_order=4" > "$OUT/tail_${g#*:}.log" 2>&1
    grep "^| " "$OUT/tail_${g#*:}/flush_tail.md" | tail -4 | cut -d'|' -f3,4,10,11 || tail -5 "$OUT/tail_${g#*:}.log"
done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tail_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
