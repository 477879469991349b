#!/usr/bin/env bash
# Prepared in session 32 for session 33: the launch order's cheaper prologue
# (bench/proto/s31_order_prologue.diff: the epoch read by a volatile load before the
# arrival atomic, whose result is checked only at the program's end) against the committed
# one, on the H200, where Nano's non-flush step paid 9% for the order (session 31 call e).
# The diff changes replaygen/launch_order.py, which every rendered module imports, so the
# versions cannot load side by side: they alternate in this call (A B A B: patch, rebuild,
# time, unpatch), each time bench/flush_tail.py's columns for the tabled launch with the
# flushing programs first (order 1; order 0 runs no prologue, so it has nothing to
# compare). The decode tests of the order run on the patched tree first.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
DIFF=bench/proto/s31_order_prologue.diff
run_tail() {   # run_tail TAG
    for g in gdn:qwen3.5-4b mamba2:nemotron3-nano-4b; do
        timeout 100 python3 bench/flush_tail.py --out "$OUT/tail_$1_${g#*:}" --variants ${g%%:*} \
            --configs ${g#*:} --launches "tab+flush_order=1" > "$OUT/tail_$1_${g#*:}.log" 2>&1
        echo "$1 ${g#*:}"; grep "^| " "$OUT/tail_$1_${g#*:}/flush_tail.md" | tail -1 | cut -d'|' -f3,4,10,11
    done
}
patch -s -p1 < $DIFF && python3 -m replaygen build --all > /dev/null
timeout 90 python3 -m pytest -q -n 8 -p xdist tests/test_launch_order.py tests/test_decode.py \
    -k "flush_order or launch_order" > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"
run_tail B1
patch -s -R -p1 < $DIFF && python3 -m replaygen build --all > /dev/null && run_tail A1
patch -s -p1 < $DIFF && python3 -m replaygen build --all > /dev/null && run_tail B2
patch -s -R -p1 < $DIFF && python3 -m replaygen build --all > /dev/null && run_tail A2
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tail_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
