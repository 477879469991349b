#!/usr/bin/env bash
# Session 50, any GPU, one call of ~8 min (issue 3): KDA's folding verify launch
# (verify_folds=True; 0.633 ms for every row on the H100, ~1.8 TB/s, session 49 call G)
# with no product waiting for the fold. Main computes S_n = exp(G_n) C + Σ_j exp(G_n - G_j)
# k_j w_jᵀ by a product, stores it, and the probes read S_n (x_ck = P_ck·S_nᵀ, after the
# fold's product and a re-layout through shared memory). The prototypes read C and the
# records as the plain rows do, and only store S_n:
#   plain (s50_vfold_plain.diff): the plain rows' probes; the drafts' gate records rebased
#     to n. Offline its tile is loaded into registers, not pipelined (two users in two layouts).
#   c (s50_vfold_c.diff): probes decayed to n read the tile decayed to n (C exp(G_n)),
#     which the fold's product starts from. Also not pipelined offline.
#   d (s50_vfold_d.diff): plain + a second load of the tile for the fold (one user per
#     load: both pipelined; the second from L2).
# 1. Template A/B of the verify_fold launch (KDA), main against each at the table's launch,
#    and d capped (3 programs per SM). 2. The fastest, if >= 3% faster than main: applied,
#    KDA's verify_fold swept on this card, issue 3's KDA verify_folds row (call G: 1.32x).
# Where none wins: gpu_session50_b.sh (ncu of main's folding launch) into $OUT/ncu.
# Commit $OUT/kda_tuning.json with the winning diff where the row wins.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
A=bench/ab_templates
# VF_DIFFS: the prototypes (bench/proto/s50_vfold_NAME.diff), each at the table's launch;
# VF_LAUNCHES: more entries NAME@overrides (gpu_session50_d.sh sets both)
VF_DIFFS=${VF_DIFFS:-"plain c d"}
VF_LAUNCHES=${VF_LAUNCHES:-"d@maxnreg=168+num_stages=2 plain@maxnreg=168"}
list=templates
for v in $VF_DIFFS; do folder $A/s50_vf_$v bench/proto/s50_vfold_$v.diff; list+=",$A/s50_vf_$v"; done
for e in $VF_LAUNCHES; do list+=",$A/s50_vf_$e"; done
timeout 260 python3 bench/template_ab.py --kernel verify_fold --cases kda:kimi-linear-48b:fp32 --rounds 3 \
    --templates "$list" --out "$OUT/ab_vfold" > "$OUT/ab_vfold.log" 2>&1
grep -E "^kda" "$OUT/ab_vfold.log" | cut -c1-700
tail -2 "$OUT/ab_vfold.log" | cut -c1-300
best=$(python3 - "$OUT/ab_vfold/template_ab.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names, case = d["templates"], d["cases"][0]
ms = [m.get("verify_fold") for m in case["median"]]
ok = [c <= 1e-3 for c in case["check"]["state"]]
print(*(f"{n}: {t} ms, state ok {o}" for n, t, o in zip(names, ms, ok)), sep="\n", file=sys.stderr)
base = ms[0]
cands = [(t, n) for n, t, o in zip(names[1:], ms[1:], ok[1:]) if t and o]
if base and cands and min(cands)[0] <= 0.97 * base:   # (its diff; the sweep picks the launch)
    print(min(cands)[1].rsplit("s50_vf_", 1)[1].split("@")[0])
PY
)
echo "best: ${best:-none}"
if [ -n "$best" ]; then
    git apply bench/proto/s50_vfold_$best.diff && python3 -m replaygen build --all > /dev/null
    timeout 130 python3 -m replaygen tune --variant kda --config kimi-linear-48b --L 16 --max-drafts 8 \
        --verify-folds --kernels verify_fold --batches 256 --budget-s 90 >> "$OUT/tune.log" 2>&1
    grep -E "^phase|budget|replaygen tune:| 256 " "$OUT/tune.log" | cut -c1-200
    cp generated/kda/tuning.json "$OUT/kda_tuning.json"
    timeout 100 python3 bench/spec_bench.py --variants kda --drafts 8 --batches 256 --verify-folds \
        --skip-accuracy --out "$OUT/spec_vf" > "$OUT/spec_vf.log" 2>&1
    grep -E "^\| kda" "$OUT/spec_vf/spec_bench.md"
    grep -A8 "^## Bandwidth" "$OUT/spec_vf/spec_bench.md"
elif [ "${VF_NCU:-1}" = 1 ]; then   # no prototype wins: where main's folding launch waits (ncu, ~3 min)
    OUT=$OUT/ncu timeout 250 bash "$(dirname "$0")/gpu_session50_b.sh"
fi
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name "*_tuning.json" -delete && mv /tmp/data.tgz "$OUT/"
