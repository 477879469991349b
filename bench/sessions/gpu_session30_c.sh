#!/usr/bin/env bash
# Session 30, call c: call b (bench/flush_tail.py) found GDN 4B's staggered launch 7 us
# slower with its flushing programs spread through the launch than with them first (0.1823
# against 0.1749 ms), the other geometries not. A flushing program folds every value tile
# it owns after its stream; split over more programs (Launch.split), each folds fewer. Each
# geometry's table launch against its splits and retilings, with the amortised staggered
# cycle and each launch's outputs checked against the table's.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 250 python3 bench/flush_tail.py --out "$OUT/tail_gdn4b" --variants gdn --configs qwen3.5-4b \
    --launches "tab;tab+split=2;tab+BV=32;tab+BV=32,split=2;tab+BV=32,split=4;tab+BV=128,num_warps=2;tab+split=2,stream_first=0" \
    > "$OUT/tail_gdn4b.log" 2>&1
cat "$OUT/tail_gdn4b/flush_tail.md" 2>/dev/null || tail -20 "$OUT/tail_gdn4b.log"
timeout 120 python3 bench/flush_tail.py --out "$OUT/tail_gdn122b" --variants gdn \
    --configs qwen3.5-122b-a10b --launches "tab;tab+split=2" > "$OUT/tail_gdn122b.log" 2>&1
cat "$OUT/tail_gdn122b/flush_tail.md" 2>/dev/null || tail -20 "$OUT/tail_gdn122b.log"
timeout 120 python3 bench/flush_tail.py --out "$OUT/tail_super" --variants mamba2 \
    --configs nemotron3-super-120b --launches "tab;tab+BV=32,split=2" > "$OUT/tail_super.log" 2>&1
cat "$OUT/tail_super/flush_tail.md" 2>/dev/null || tail -20 "$OUT/tail_super.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tail_* 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
