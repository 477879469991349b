#!/usr/bin/env bash
# Session 23, second device call (issue 5): where the fused flush's time goes. The flush
# step (every row folds) runs at ~59% of the copy bandwidth on the traffic model's bytes;
# its second pass re-reads each value tile's checkpoint rows right after the output pass
# read them. (1) ncu DRAM bytes and L2 hit rate of the GDN 4B / Mamba-2 Nano decode launch
# at the flush step, non-flush step and the staggered step; (2) template A/B of the flush
# pass: chunks re-read in reverse order (rev), its stores evict-first (ef), both (revef).
source "$(dirname "$0")/../gpu_env.sh"
export PYTHONPATH=.
MET=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum
prof() {   # prof NAME VARIANT MODE [TEMPLATES]
    timeout 90 ncu --clock-control none -k "regex:replay_decode" --launch-skip 17 --launch-count 1 \
        --metrics $MET python3 bench/profile_staggered.py "$2" none 3 "$3" ${4:-} > "$OUT/ncu-$1.log" 2>&1
    echo "== $1"; grep -E "gpu__time|dram__bytes|lts__t_sector|lts__t_sectors" "$OUT/ncu-$1.log"
}
prof gdn-flush gdn flush
prof gdn-flush-rev gdn flush bench/ab_templates/rev
prof gdn-nonflush gdn nonflush
prof gdn-stag gdn staggered
prof nano-flush mamba2 flush
prof nano-nonflush mamba2 nonflush
timeout 200 python3 bench/template_ab.py \
    --templates templates,bench/ab_templates/rev,bench/ab_templates/ef,bench/ab_templates/revef \
    --cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-122b-a10b:fp32 \
    --rounds 3 --out "$OUT/ab" > "$OUT/ab.log" 2>&1
tail -22 "$OUT/ab.log" | cut -c1-220
tar czf "$OUT/data.tgz" -C "$OUT" $(cd "$OUT" && ls -d *.txt *.log ab 2>/dev/null)
ls "$OUT" | grep -v data.tgz | xargs -I{} rm -rf "$OUT/{}"
