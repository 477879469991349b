#!/usr/bin/env bash
# Session 30, call d: the value-tile decode for scalar decays, never tuned at batch 256
# with today's template (its L2 prefetch under STREAM_FIRST, its record scores once per
# head, the flush folded from the tile in registers: no second pass). Key chunks won in
# session 3 (GDN 0.194 vs 0.251 ms); since then the value-tile decode brought KDA's
# non-flush step to 88% of its bytes. Tune GDN 4B / 122B and Mamba-2 Nano with the value
# tiles forced (--decode-structure vtiles), then both structures of each in one run
# (bench/config_ab.py: outputs checked against the key chunks', amortised medians).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
for c in qwen3.5-4b qwen3.5-122b-a10b; do
    timeout 200 python3 -m replaygen tune --variant gdn --config $c --L 16 --decode-structure vtiles \
        --kernels replay_decode --batches 256 --budget-s 150 >> "$OUT/tune.log" 2>&1
done
timeout 160 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 \
    --decode-structure vtiles --kernels replay_decode --batches 256 --budget-s 110 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "replay_decode +256 |budget" "$OUT/tune.log" | cut -c1-220
for g in gdn:qwen3.5-4b gdn:qwen3.5-122b-a10b mamba2:nemotron3-nano-4b; do
    timeout 90 python3 bench/config_ab.py --variant ${g%%:*} --geometry ${g#*:} --out "$OUT/ab_${g#*:}" \
        --configs "decode_structure=kchunks;decode_structure=vtiles" --launches tab --rounds 3 \
        > "$OUT/ab_${g#*:}.log" 2>&1
    tail -2 "$OUT/ab_${g#*:}.log"
done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_* tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
