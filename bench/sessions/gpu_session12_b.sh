#!/usr/bin/env bash
# Session 12, second device call. Call 1 showed that one more dependent memory round
# trip before a key-chunk program's state stream costs up to 17% (the records' scores
# taken in a loop before the stream: Mamba-2 Super 0.3107 -> 0.3632 ms amortised). So the
# key-chunk decode now streams first (plan.stream_first): nothing before or inside the
# stream waits for the cursor. Time it against the previous templates (copied to
# bench/ab_templates/v0, not committed) on the committed launches, then re-tune GDN 4B
# and Mamba-2 Nano fp32 with it.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
timeout 330 python3 bench/template_ab.py --templates bench/ab_templates/v0,templates \
    --out "$OUT/ab" > "$OUT/ab.log" 2>&1
grep -v Warning "$OUT/ab.log" | grep -v "return replaygen" | tail -9
tune_decode gdn qwen3.5-4b none 65
tune_decode mamba2 nemotron3-nano-4b none 65
grep -A1 "^configuration\|budget" "$OUT/tune.log" | grep -v "^--"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d tables ab *.log *.txt 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
