#!/usr/bin/env bash
# Session 15, fifth device call. (1) Where GDN 4B's T = 8 verify spends its time, by
# ablation at the tabled launch (outputs are wrong on purpose; only times count): no
# window products per tile (abl-nowin: 136 registers, 17 KiB shared, so occupancy moves
# too), every program streaming the same checkpoint rows (abl-hotckpt: the stream's DRAM
# cost), no forward substitution (abl-nosolve). Call 4: double-buffered streams at the
# same occupancy were no faster, so the loads' serialisation is not what bounds it.
# (2) The speculative tests of the changed verify on the GPU (tf32 / bf16 products the
# interpreter cannot run); (3) spec_bench at batch 256 with the re-tuned verify tables.
source "$(dirname "$0")/../gpu_env.sh"   # pipefail, OUT, gpu.txt, wheels, tune_decode
export PYTHONPATH=.
filt() { grep -v Warning "$1" | grep -v "return replaygen\|kern = \|replaygen.load\|^ *$" | tail -"$2"; }
AB=bench/ab_templates
timeout 120 python3 bench/template_ab.py --kernel verify --rounds 3 --out "$OUT/vab" --cases gdn:qwen3.5-4b:fp32 \
    --templates "templates,$AB/abl-nowin,$AB/abl-hotckpt,$AB/abl-nosolve" > "$OUT/vab.log" 2>&1
filt "$OUT/vab.log" 2
timeout 120 python3 -m pytest -q -x tests/test_speculative.py -k "gdn or mamba2" > "$OUT/test_spec.log" 2>&1
tail -2 "$OUT/test_spec.log"
timeout 220 python3 bench/spec_bench.py --out "$OUT/spec" --batches 256 --skip-accuracy > "$OUT/spec.log" 2>&1
sed -n '/## Timings/,$p' "$OUT/spec/spec_bench.md" | head -18; grep -c '"ok": false' "$OUT/spec.log"
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log vab spec 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
