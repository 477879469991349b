#!/usr/bin/env bash
# Session 44, any GPU, one call of ~8 min. On an H200: gpu_session44_a.sh (issues 3 and
# 4). On an H100 (what came for sessions 39-44): the evidence for the tuning tables'
# stand-in (TuningTable.stand_in: a GPU without entries takes those of a tuned GPU of its
# compute capability; an H100 the H200's). bench/table_audit.py asserts that the runtime
# on this H100 takes each H200 entry, and times it against the plan's own launch (what an
# H100 ran before) in the same run: the decode at batches 1 and 256, verify and commit at
# 256. Before them, bench/read_pattern_probe.py (issue 5: TMA against pointer loads for a
# decode's checkpoint reads). Everything comes back in data.tgz.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
if grep -q H200 "$OUT/gpu.txt"; then exec bash bench/sessions/gpu_session44_a.sh; fi
timeout 60 python3 -m pytest -q tests/test_tuning.py -k "stand_in or committed_tables" > "$OUT/tests.log" 2>&1; tail -1 "$OUT/tests.log"
# issue 5 (fp32 decodes at 82-90% of the copy): can TMA read a checkpoint block faster than
# the templates' pointer loads? (bench/read_pattern_probe.py, a pure read, ~1 min)
timeout 90 python3 bench/read_pattern_probe.py --out "$OUT/read_pattern" > "$OUT/read_pattern.log" 2>&1
grep "^|" "$OUT/read_pattern/read_pattern.md" || tail -3 "$OUT/read_pattern.log"
timeout 240 python3 bench/table_audit.py --out "$OUT/audit_decode" --variants gdn,mamba2,kda,gla \
    --kernels replay_decode --batches 1,256 > "$OUT/audit_decode.log" 2>&1
timeout 120 python3 bench/table_audit.py --out "$OUT/audit_spec" --variants kda,gdn,mamba2,gla \
    --kernels verify,commit --batches 256 > "$OUT/audit_spec.log" 2>&1
for f in "$OUT"/audit_*.log; do echo "== $f: $(grep -c ' table ' "$f") entries"; awk '/ table /{print $1, $2, $3, "runtime", $7, "plan", $9, $12}' "$f" | cut -c1-160 | tail -40; tail -2 "$f"; done
tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
