#!/usr/bin/env bash
# Prepared in session 31 for session 32 (which was lent no device), for session 33: the
# tuner's phase 2e (Launch.flush_order, the flushing programs first) for the key-chunk
# decodes it has not seen, at L = 32 and 8, batch 256: GDN Qwen3.5-4B at L = 32 went
# 0.2258 -> 0.1742 ms with it (session 31 call h), where a flushing program folds 31
# records. One geometry per call (GEOM=gdn:qwen3.5-122b-a10b, mamba2:nemotron3-nano-4b or
# mamba2:nemotron3-super-120b; `--budget-s` bounds the whole run, ~4.5 min for the two L,
# phase 2e coming after 2d); copy $OUT/tables into generated/ afterwards.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
g=${GEOM:-gdn:qwen3.5-122b-a10b}
timeout 540 python3 -m replaygen tune --variant ${g%%:*} --config ${g#*:} --L 8,32 --kernels replay_decode \
    --batches 256 --budget-s 300 >> "$OUT/tune.log" 2>&1
mkdir -p "$OUT/tables" && for v in gdn mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E "^phase 2e|replay_decode +256 |budget" "$OUT/tune.log" | cut -c1-230
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
