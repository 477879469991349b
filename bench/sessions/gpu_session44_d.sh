#!/usr/bin/env bash
# Session 44, any GPU, ~5 min. On an H200: gpu_session44_c.sh. On an H100: the two
# stand-in launches that lose to the plan there (call 1's audit: Mamba-2 Nano's T = 2 and
# T = 4 commits, 0.89x / 0.95x) swept on the H100 itself, 60 s each. The sweep starts
# from the H200's launch and the plan's. Then the audit of Mamba-2 Nano's commits and
# verifies, which should take the H100's own commit entries and the H200's verifies
# (the lookup per configuration and kernel, 4afbe34). Commit $OUT/mamba2_tuning.json as
# generated/mamba2/tuning.json if the new H100 entries win. Short form (a budget's last
# minutes): TS=2 TUNE_S=45 AUDIT_MATCH=headdim80__L16__T2__ bash ...
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then exec bash bench/sessions/gpu_session44_c.sh; fi
for T in ${TS:-2 4}; do
    timeout 100 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 \
        --max-drafts $T --kernels commit --batches 256 --budget-s ${TUNE_S:-60} >> "$OUT/tune.log" 2>&1
done
grep -E "commit +256 " "$OUT/tune.log" | cut -c1-250
timeout 120 python3 bench/table_audit.py --out "$OUT/audit" --variants mamba2 --match ${AUDIT_MATCH:-headdim80} \
    --kernels commit,verify --batches 256 > "$OUT/audit.log" 2>&1
grep "^|" "$OUT/audit/audit.md" | cut -d'|' -f2-12 | sed 's/mamba2__ngroups8_nheads96_dstate128_headdim80__//'
cp generated/mamba2/tuning.json "$OUT/mamba2_tuning.json"
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name mamba2_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
