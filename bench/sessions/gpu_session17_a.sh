#!/usr/bin/env bash
# (Ran at 0bf5eb4, whose fold_probe.py / template_ab.py had --wide to lift the refusal that
# plan.launch_constants then made of [64, K] speculative folds; removed after this call.)
# Session 17, first device call: (1) the [64, K] folds of speculative configurations,
# refused since session 4 ("illegal instruction"), retested in fresh processes now that
# session 16 fixed the race between a program's warps on its cursor (bench/fold_probe.py
# --wide); (2) where they run and match, their commit / flush times against the tabled
# fold launches (template_ab --kernel fold --wide, same templates, launch overrides);
# (3) the GPU test suite on 8 pytest-xdist workers (carried wheels in bench/wheels).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
for v in gdn kda mamba2; do
    timeout 100 python3 bench/fold_probe.py --wide --variant $v --out "$OUT/probe_$v" \
        --cases "16,8,64,4,3;16,8,64,4,1;16,8,64,8,3;16,8,32,4,3" > "$OUT/probe_$v.log" 2>&1
    tail -4 "$OUT/probe_$v.log"
done
T=templates
timeout 200 python3 bench/template_ab.py --kernel fold --wide --rounds 3 --out "$OUT/fab" \
    --templates "$T,$T@BV=64+num_warps=4+num_stages=3,$T@BV=64+num_warps=8+num_stages=3,$T@BV=64+num_warps=4+num_stages=1" \
    --cases gdn:qwen3.5-4b:fp32,kda:kimi-linear-48b:fp32,mamba2:nemotron3-super-120b:fp32 \
    > "$OUT/fab.log" 2>&1
filt "$OUT/fab.log" 14
timeout 300 python3 -m pytest -q -n 8 -p xdist tests --durations=12 > "$OUT/tests.log" 2>&1
tail -22 "$OUT/tests.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log probe_* fab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
