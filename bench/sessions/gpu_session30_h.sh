#!/usr/bin/env bash
# Session 30, call h: a one-pass flush for the key-chunk decode (prototype, A/B only:
# bench/ab_templates/s30_onepass, carried; its diff is bench/proto/s30_onepass_flush.diff).
# A flushing program folds its n committed records into each checkpoint chunk as it streams
# it (decays to the last record, not to the token) and the token becomes ring row 0 of the
# fresh window (cursor 1; a key-head record by the last of its group to arrive): no second
# pass over the checkpoint, whose tail made GDN 4B's staggered launch ~7 us longer (calls
# b, c). Checked against the committed templates (bf16 records: the flushing token's record
# is now rounded like every other token's, ~1e-3 of the state), then timed.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
P=bench/ab_templates/s30_onepass
timeout 280 python3 bench/template_ab.py --templates templates,$P,$P@num_stages=2 \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-super-120b:fp32 \
    --rounds 3 --out "$OUT/ab" > "$OUT/ab.log" 2>&1
tail -12 "$OUT/ab.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
