#!/usr/bin/env bash
# Session 45, any GPU, one call of ~8 min. On an H200: gpu_session44_a.sh (issues 3 and 4).
# On an H100: 1. the last stand-in launch that loses to the plan there (Mamba-2 Nano's
# T = 4 commit, 0.95x in session 44's audit) swept on the H100 itself for 60 s, from the
# H200's launch and the plan's, then the audit of Mamba-2 Nano's commits and verifies;
# commit $OUT/mamba2_tuning.json as generated/mamba2/tuning.json if the entry wins. 2. A
# health check of the current main on this card: issue 5's rows (`replaygen bench`, GDN,
# Mamba-2, KDA, batch 256, L = 16; fla from bench/wheels when carried) and issue 3's T = 8
# table (ratios within the run; the H200 figures stay session 31's and 41's).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then exec bash bench/sessions/gpu_session44_a.sh; fi
timeout 100 python3 -m replaygen tune --variant mamba2 --config nemotron3-nano-4b --L 16 \
    --max-drafts 4 --kernels commit --batches 256 --budget-s 60 >> "$OUT/tune.log" 2>&1
grep -E "commit +256 " "$OUT/tune.log" | cut -c1-250
timeout 90 python3 bench/table_audit.py --out "$OUT/audit" --variants mamba2 --match headdim80 \
    --kernels commit,verify --batches 256 > "$OUT/audit.log" 2>&1
grep "^|" "$OUT/audit/audit.md" | cut -d'|' -f2-12 | sed 's/mamba2__ngroups8_nheads96_dstate128_headdim80__//'
cp generated/mamba2/tuning.json "$OUT/mamba2_tuning.json"
timeout 150 python3 -m replaygen bench --variants gdn,mamba2,kda --L 16 --batches 256 \
    --out "$OUT/suite" > "$OUT/suite.log" 2>&1
grep -E "^\| (gdn|mamba2|kda) " "$OUT/suite/bench.md" | head -8 | cut -c1-230
timeout 120 python3 bench/spec_bench.py --variants kda,gla,gdn,mamba2 --drafts 8 --batches 256 --skip-accuracy \
    --out "$OUT/spec" > "$OUT/spec.log" 2>&1
grep -A6 "^| variant | batch" "$OUT/spec/spec_bench.md" | cut -c1-200
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -not -name mamba2_tuning.json -delete && mv /tmp/data.tgz "$OUT/"
