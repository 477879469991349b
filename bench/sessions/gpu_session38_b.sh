#!/usr/bin/env bash
# Session 38, after gpu_session38_a.sh: the folding rows' verify in two launches
# (verify_folds=True; Launch.head_launch for the verify_fold launch, whose workspace also
# holds the fold's weights and whose stream launch folds each tile as it streams it).
# KDA's verify_folds protocol ran at 2.1x a decode step (session 21), its folding launch
# ~0.6 ms when every row folds: the head phase before each program's stream is the
# suspect there too. template_ab --kernel verify_fold: every row at L - 1 committed
# records folds first; check (outputs, materialised states, cursors 0) against the
# tabled one-launch verify_fold, then times.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
V=templates,templates@head_launch=1,templates@head_launch=1+head_warps=4
V=$V,templates@head_launch=1+head_warps=4+num_stages=2
timeout 330 python3 bench/template_ab.py --kernel verify_fold --templates $V --rounds 3 \
    --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --out "$OUT/ab_vf" > "$OUT/ab_vf.log" 2>&1
tail -4 "$OUT/ab_vf.log" | cut -c1-400
