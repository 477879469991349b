#!/usr/bin/env bash
# Session 29, third device call. (1) The decode, fold, verify and read-copy tests on the
# H200 (the records' select past the cursor is gone from GDN's, KDA's and GLA's kernels:
# the interpreter checks the fp32 paths, this the compiled ones and the GPU-only cases).
# (2) The fold entries call b's audit flagged (batches 1 and 8: ten where the plan's
# launch is faster, twelve stale) re-swept. (3) GDN at batch 256, L = 16 against fla's
# kernel (issue 5), on this session's code and tables.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 200 python3 -m pytest -q -n 14 -p xdist tests/test_decode.py tests/test_speculative.py \
    tests/test_precision.py > "$OUT/tests.log" 2>&1; tail -3 "$OUT/tests.log"
for vb in mamba2:50 gdn:50 kda:35 gla:30; do
    timeout $(( ${vb#*:} + 25 )) python3 -m replaygen tune --variant ${vb%:*} --L 8,16,32 \
        --kernels fold --batches 1,8 --budget-s ${vb#*:} >> "$OUT/tune.log" 2>&1
done
mkdir -p "$OUT/tables" && for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
grep -E " fold +[0-9]+ |budget" "$OUT/tune.log" | cut -c1-200 | tail -40
timeout 70 python3 -m replaygen bench --variants gdn --L 16 --batches 256 --out "$OUT/gdn" \
    > "$OUT/gdn.log" 2>&1
grep -A4 "^| variant | geometry | L | batch |" "$OUT/gdn/bench.md" | cut -c1-330; tail -1 "$OUT/gdn.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log gdn tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
