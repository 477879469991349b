#!/usr/bin/env bash
# Session 26, first device call. (1) The read copies' non-flush decodes under register
# caps: their tabled launches predate the tuner's phase 2b for replay_decode (session 23),
# and GDN's NVFP4 decode takes 163 registers at one warp offline (12 programs per SM; 128
# fits 16 without spilling), so a same-run A/B of the tabled launch uncapped, at 168 and at
# 128 registers. (2) The commit's own launch at T = 4 (kernel "commit", the tuner's
# staggered commit), every variant at batch 256: until now the T = 2 / 4 commits took the
# fold's launch.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 260 python3 bench/template_ab.py --templates templates,templates@maxnreg=168,templates@maxnreg=128 \
    --cases gdn:qwen3.5-4b:nvfp4,gdn:qwen3.5-4b:fp8,mamba2:nemotron3-nano-4b:nvfp4,mamba2:nemotron3-nano-4b:fp8 \
    --rounds 2 --out "$OUT/ab_caps" > "$OUT/ab_caps.log" 2>&1
tail -30 "$OUT/ab_caps.log"
for V in gla:gla-1.3b kda:kimi-linear-48b gdn:qwen3.5-4b mamba2:nemotron3-nano-4b; do
    timeout 55 python3 -m replaygen tune --variant ${V%%:*} --config ${V##*:} --L 16 \
        --max-drafts 4 --kernels commit --batches 256 --budget-s 28 >> "$OUT/tune.log" 2>&1
done
grep " commit  *[0-9]" "$OUT/tune.log"
mkdir -p "$OUT/tables" && for v in gdn kda gla mamba2; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab_caps tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
