#!/usr/bin/env bash
# Session 39, call c. Calls b and its follow-ups (H100, the H200's tables): prototype D
# (the drafts' loads at once) gains 1.027x on KDA's T = 8 verify, 1.118x on its folding
# launch, 1.061x on GLA's. ncu of D (KDA): the head's memory waits fall (long_sb 12437 ->
# 7317 samples) but its ~300 one-element loads throttle the load queue (lg 2475). I =
# bench/proto/s39_verify_loads_first_records_vector.diff: D with the committed records'
# tiles in vector loads again (their layout meets the drafts' only in the S_c product,
# through shared memory anyway): KDA 307 -> 203 loads, 244 -> 233 registers, 6136
# instructions; GLA 3400 -> 3384, 123 registers. The A/B of the tabled verify, D and I
# (and the folding launches), on the H200's tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
D=bench/ab_templates/s39_loads_first && folder $D bench/proto/s39_verify_loads_first.diff
I=bench/ab_templates/s39_records_vector && folder $I bench/proto/s39_verify_loads_first_records_vector.diff
timeout 150 python3 bench/template_ab.py --kernel verify --templates templates,$D,$I,$I@maxnreg=None --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -2 "$OUT/ab_verify.log" | cut -c1-330
timeout 100 python3 bench/template_ab.py --kernel verify_fold --templates templates,$D,$I --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_fold" > "$OUT/ab_fold.log" 2>&1
tail -2 "$OUT/ab_fold.log" | cut -c1-330
