#!/usr/bin/env bash
# Prepared in session 32 (no device was lent) for session 33: KDA's T = 8 verify after
# session 32's two template changes (a delta rule's value tile as Z = F·X + G_v·V_d, two
# independent products after X where there was a chain of three; the drafts' loop no
# longer reloading parameters). Offline (Triton 3.6, sm_90, bench/sass_count.py): 329 ->
# 256 instructions per value tile, 6192 -> 6096 static, 222 registers either way.
# (1) A/B against the session's starting templates (bench/ab_templates/s32_base: make it
# with `bash bench/ab_templates_at.sh 01c4611 s32_base` and carry it), at the tabled
# launch and two warps, plain rows and folding rows (the check compares outputs, records
# and drafted counts with the base's: ~1e-6 expected, the tf32 products reordered);
# (2) its GPU tests; (3) ncu of the verify at its tabled launch, warp states and stall
# reasons per SASS line: is the head phase (before the value-tile loop) or the stream
# waiting, and on what? (4) then gpu_session33_d.sh re-tunes and times issue 3's table.
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
timeout 120 python3 bench/template_ab.py --kernel verify --rounds 3 \
    --templates bench/ab_templates/s32_base,templates,templates@num_warps=2 \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify" > "$OUT/ab_verify.log" 2>&1
tail -4 "$OUT/ab_verify.log"
timeout 80 python3 bench/template_ab.py --kernel verify_fold --rounds 2 \
    --templates bench/ab_templates/s32_base,templates \
    --cases kda:kimi-linear-48b:fp32 --out "$OUT/ab_verify_fold" > "$OUT/ab_verify_fold.log" 2>&1
tail -3 "$OUT/ab_verify_fold.log"
timeout 90 python3 -m pytest -q -n 8 -p xdist tests/test_speculative.py -k "kda or gla" > "$OUT/tests.log" 2>&1
tail -2 "$OUT/tests.log"
if command -v ncu >/dev/null; then
    timeout 120 ncu --clock-control none -k regex:"verify_kernel" --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy \
        --section LaunchStats --import-source yes -o "$OUT/kda-verify" -f \
        python3 bench/profile_workload.py kda --config kimi-linear-48b --max-drafts 8 > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/kda-verify.ncu-rep" --page details > "$OUT/ncu-kda-verify.txt" 2>&1
    ncu -i "$OUT/kda-verify.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-kda-verify-source.csv" 2>&1
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit|Stall" "$OUT/ncu-kda-verify.txt" | head -30
fi
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log *.csv *.ncu-rep ab_verify ab_verify_fold 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
