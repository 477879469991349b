#!/usr/bin/env bash
# Session 15, third device call. The flattened verify stream is now the template (call 2:
# Nano's T = 8 verify 0.3747 -> 0.3490 ms at 3 stages, while the old template at 3
# stages was slower, 0.4160; at GDN 4B's tabled NK = 1 launch the new kernel's SASS is
# identical to the old).
# (1) Mamba-2's T = 8 verify re-tuned (both geometries, batches 256 and 512).
# (2) The same flattening for the key-chunk decode (bench/ab_templates/dk1, fp32
#     checkpoints): the value tiles' chunks as one stream, the tile's outputs, records and
#     flush at its last chunk. Offline sm_90, GDN 4B [64, 32]/w1/s3: with the fold in the
#     decode 253 registers and 33.8 KiB shared (the nested flush loop's buffers: worse
#     than the tabled 210 / 18.5 KiB), with the flush separate 164 / 18.7 KiB (the old
#     template separate: 168 with a 20-byte spill), one stream of 8 chunks (wait num = 2).
# (3) The old verify template (bench/ab_templates/v0) against the new at the tabled
#     launches where the key axis is chunked (GDN 122B, Mamba-2 Super: NK > 1).
# (4) GDN's T = 8 verify re-tuned.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
mkdir -p "$OUT/tables"
tune_verify() {
    timeout $(( $2 + 30 )) python3 -m replaygen tune --variant $1 --L 16 --max-drafts 8 --kernels verify \
        --batches 256,512 --budget-s $2 >> "$OUT/tune.log" 2>&1
    cp generated/$1/tuning.json "$OUT/tables/$1.json"
}
tune_verify mamba2 120
grep " verify " "$OUT/tune.log" | tail -4
timeout 150 python3 bench/template_ab.py --cases gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32 --rounds 3 --out "$OUT/ab_dk1" \
    --templates "templates,templates@separate_flush=True,$AB/dk1@separate_flush=True,$AB/dk1@separate_flush=True+num_stages=4" > "$OUT/ab_dk1.log" 2>&1
filt "$OUT/ab_dk1.log" 3
timeout 100 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" \
    --cases gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-super-120b:fp32 \
    --templates "$AB/v0,templates,templates@num_stages=4" > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 3
tune_verify gdn 100
grep " verify " "$OUT/tune.log" | tail -4
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab ab_dk1 tables 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
