#!/usr/bin/env bash
# Session 16, first device call. (1) Session 15's unrun A/B (gpu_session15_f.sh): GDN's
# T = 8 verify with the delta rule's window as one product per tile (vk5) or folded into
# three per-head operands (vk6), against the shipped template, GDN 4B and 122B. Rebuild
# the folders first:
#   for v in vk5 vk6; do rm -rf bench/ab_templates/$v; cp -r templates bench/ab_templates/$v
#       (cd bench/ab_templates/$v && patch -p1 < ../../results/session15-2026-12-02/$v.patch); done
# (2) ncu of Mamba-2 Nano's T = 8 verify and commit fold (issue 3: the verify at ~69% and
# the fold at ~80% of their bytes over the copy rate, where GDN's verify is window-bound).
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 230 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" \
    --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 \
    --templates "templates,$AB/vk5,$AB/vk6,$AB/vk5@heads=1,$AB/vk6@heads=1" > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 14
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
prof() {   # prof NAME KERNEL-REGEX VARIANT CONFIG
    timeout 100 ncu --clock-control none -k "regex:$2" --launch-skip 1 --launch-count 1 $SECTIONS \
        -o "$OUT/$1" python3 bench/profile_workload.py "$3" --config "$4" --max-drafts 8 > "$OUT/ncu-$1.log" 2>&1
    ncu -i "$OUT/$1.ncu-rep" --page details > "$OUT/ncu-$1.txt" 2>&1
    echo "== $1"; tail -2 "$OUT/ncu-$1.log"
    grep -E "^  [a-z_]+kernel|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit|Waves Per SM|Eligible Warps|No Eligible|Issued Warp|L2 Hit|Mem Busy|Max Bandwidth|Dynamic Shared|Static Shared" "$OUT/ncu-$1.txt" | head -30
}
prof nano-verify verify mamba2 nemotron3-nano-4b
prof nano-fold fold_kernel mamba2 nemotron3-nano-4b
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab *.ncu-rep 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
