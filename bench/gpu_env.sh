# Sourced by the bench/sessions/gpu_session*.sh device scripts: failing pipes fail, Python output
# unbuffered, the output folder $OUT (the device tool sets it), the GPU's name and clocks,
# and the optional external baselines (fla-core and einops wheels, when carried along).
set -o pipefail
export PYTHONUNBUFFERED=1 REPLAYGEN_EXAMPLES=${REPLAYGEN_EXAMPLES:-1}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
# The device's copy of .git can be older than the tree it runs (session 24), so results
# name the commit only through REPLAYGEN_COMMIT, passed literally in the device command.
if [ -z "${REPLAYGEN_COMMIT:-}" ]; then
    echo "warning: REPLAYGEN_COMMIT is not set: the results' commit fields will name this copy's" \
         "git HEAD, which can be older than the tree that ran (REPLAYGEN_COMMIT=abc1234 bash ...)" \
        | tee "$OUT/commit-warning.txt" >&2
fi
if ls bench/wheels/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-deps --no-index bench/wheels/*.whl 2>&1 | tail -3
fi

# pack_out: everything under $OUT packed into $OUT/data.tgz, the one file that comes back
# (the device tool returns at most 8 files from at most 2 folders down; a call's logs,
# tables and suite folders are more and deeper).
pack_out() {
    tar czf /tmp/data.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/data.tgz "$OUT/"
}

# folder NAME DIFF: a template folder for bench/template_ab.py, the templates with DIFF (a
# bench/proto/*.diff against templates/) applied.
folder() {
    rm -rf "$1" && mkdir -p "$1" && cp templates/*.j2 "$1"/ && patch -s -d "$1" -p2 < "$2"
}

# tune_decode VARIANT CONFIG READ BUDGET_S [sr|kchunks|vtiles]: one `replaygen tune`
# sweep of the L = 16 decode of a configuration at batch 256, or at the batches in
# TUNE_BATCHES (READ: none, fp8 or nvfp4; sr: an fp16 checkpoint with stochastic
# rounding; kchunks / vtiles: that decode structure forced; TUNE_REFINE=1: `--refine`,
# from the tabled launches rather than the grid; TUNE_PHASES=P,...: `--phases`, only
# those phases after phase 1). Its log is appended to
# $OUT/tune.log, and the variants' tables are copied to $OUT/tables afterwards, so a call
# cut short keeps them.
tune_decode() {
    local read=() extra=()
    [ "$3" != none ] && read=(--read-dtype "$3")
    case "${5:-}" in
        sr) extra=(--state-dtype fp16 --stochastic) ;;
        kchunks|vtiles) extra=(--decode-structure "$5") ;;
    esac
    timeout $(( $4 + 25 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        "${extra[@]}" "${read[@]}" ${TUNE_REFINE:+--refine} ${TUNE_PHASES:+--phases "$TUNE_PHASES"} \
        --kernels replay_decode \
        --batches "${TUNE_BATCHES:-256}" --budget-s "$4" \
        >> "$OUT/tune.log" 2>&1
    mkdir -p "$OUT/tables"
    for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
}

# mma_ab VARIANT GEOMETRY FOLD LAUNCH...: bench/config_ab.py's A/B of an FP8 read copy's
# decode (session 37, Launch.read_mma): the tabled launch first, then each LAUNCH
# (BV/warps/stages) in value tiles on tensor cores with the flush separate and the table's
# fold launch (FOLD: one k=v Launch field), then the fp32 read's tabled launch (issue 4's
# denominator). Log and JSON in $OUT/mma_VARIANT (config_ab writes them at its end only,
# so the timeout, MMA_AB_TIMEOUT seconds, must cover every version: ~20 s to compile
# each and ~4 s per version and round to time it).
mma_ab() {
    local v="$1" g="$2" fold="$3" V="read_dtype=fp8@tab"
    shift 3
    for l in "$@"; do V="$V;read_dtype=fp8+decode_structure=vtiles@$l/sep/mma/$fold"; done
    timeout ${MMA_AB_TIMEOUT:-280} python3 bench/config_ab.py --variant "$v" --geometry "$g" --versions "$V;@tab" \
        --rounds 3 --out "$OUT/mma_$v" > "$OUT/mma_$v.log" 2>&1
    grep " @ " "$OUT/mma_$v.log" | cut -c1-250
}

# ab NAME TIMEOUT CASES VERSIONS: bench/template_ab.py of the template versions VERSIONS
# (`folder@k=v+...` launch overrides, comma-separated) on CASES, AB_ROUNDS rounds (default
# 3), under TIMEOUT seconds, of the kernel AB_KERNEL (template_ab's --kernel; default the
# replay decode); log and JSON in $OUT/ab_NAME, its exit status and result lines printed.
ab() {
    timeout "$2" python3 bench/template_ab.py --kernel "${AB_KERNEL:-replay_decode}" --templates "$4" \
        --cases "$3" --rounds "${AB_ROUNDS:-3}" --out "$OUT/ab_$1" > "$OUT/ab_$1.log" 2>&1
    echo "ab_$1 rc=$?"; grep -E "^(mamba2|gdn|kda|gla):" "$OUT/ab_$1.log" | cut -c1-400
}

# grid_order_abs CONV_S REPLAY_S [LAUNCH]: the templates against the templates before
# session 62's grid orders (bench/ab_templates/before_s62: the conventional step and the
# replay decodes rows first, bench/proto/s63_rows_first.diff; since session 63 the templates
# take their order from launch_order.slot_major*, so the s61 diffs no longer reverse onto
# them). The conventional step of the five issue-5 geometries (fp32) under CONV_S seconds,
# at its tabled launch and, given LAUNCH (`k=v+...`), at that one too; then the fp32 replay
# decodes of the four the orders changed, under REPLAY_S seconds (ab_conv_order,
# ab_replay_order).
grid_order_abs() {
    local old=bench/ab_templates/before_s62 versions
    folder $old bench/proto/s63_rows_first.diff
    versions="$old,templates${3:+,$old@$3,templates@$3}"
    AB_KERNEL=conventional_decode ab conv_order "$1" \
        gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
        "$versions"
    ab replay_order "$2" \
        gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,mamba2:nemotron3-super-120b:fp32,kda:kimi-linear-48b:fp32 \
        "$old,templates"
}

# suite NAME VARIANTS: issue 5's rows (`replaygen bench`, batch 256, L = 16) of VARIANTS
# (comma-separated) into $OUT/NAME (its log $OUT/NAME.log), the rows printed.
suite() {
    timeout "${SUITE_TIMEOUT:-100}" python3 -m replaygen bench --variants "$2" --L 16 --batches 256 \
        --out "$OUT/$1" > "$OUT/$1.log" 2>&1
    grep -E "^\| (${2//,/|}) " "$OUT/$1/bench.md" | head -5 | cut -c1-230
}

# kda_gate_ab: KDA's batch-256 decode (Kimi-Linear 48B, L = 16) with per-step bf16 gate
# records at the cumulative decode's tabled launches (the H100's 8/1/3, the H200's 16/1/4
# with the flush separate and a 168-register cap) and their neighbours, and with per-step
# fp16 gates (the same bytes, ~24x smaller gate error: session 64) at both, against the tabled
# decode with fp32 cumulative gate records (bench/config_ab.py; $OUT/kda_gates, its log
# $OUT/kda_gates.log; session 64's question for issue 5).
kda_gate_ab() {
    timeout "${GATE_AB_TIMEOUT:-300}" python3 bench/config_ab.py --variant kda --geometry kimi-linear-48b \
        --versions "gate_records=cumulative@tab;gate_records=step@8/1/3;gate_records=step@8/1/2;gate_records=step@8/1/4;gate_records=step@16/1/3;gate_records=step@4/1/3;gate_records=step@16/1/4/sep/maxnreg=168;gate_records=step@16/1/4/sep;gate_records=step+g=fp16@8/1/3;gate_records=step+g=fp16@16/1/4/sep/maxnreg=168" \
        --out "$OUT/kda_gates" > "$OUT/kda_gates.log" 2>&1
    echo "kda_gate_ab rc=$?"
    grep -E "@" "$OUT/kda_gates.log" | cut -c1-250
}

# tune_verify VARIANT CONFIG T BUDGET_S: one `replaygen tune` sweep of the batch-256, L = 16
# verify of T drafts, its log in $OUT/tune.log (phases and the batch-256 entry printed),
# the variant's table copied to $OUT/VARIANT_tuning.json.
tune_verify() {
    timeout $(( $4 + 40 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 --max-drafts "$3" \
        --kernels verify --batches 256 --budget-s "$4" >> "$OUT/tune.log" 2>&1
    grep -E "^phase|timed in|budget|replaygen tune:|verify +256 " "$OUT/tune.log" | cut -c1-200
    cp "generated/$1/tuning.json" "$OUT/$1_tuning.json"
}

# spec_rows VARIANTS T [NAME [OPTION...]]: issue 3's rows (bench/spec_bench.py, batch 256,
# T drafts, no accuracy run, plus OPTIONs such as --gate-records step) into $OUT/NAME
# (default spec; its log $OUT/NAME.log), the table printed.
spec_rows() {
    local name=${3:-spec}
    timeout "${SPEC_TIMEOUT:-100}" python3 bench/spec_bench.py --variants "$1" --drafts "$2" --batches 256 \
        --skip-accuracy "${@:4}" --out "$OUT/$name" > "$OUT/$name.log" 2>&1
    echo "spec_rows $name rc=$?"
    grep -A4 "^| variant | batch" "$OUT/$name/spec_bench.md" | cut -c1-250
}

# issue4_table NAME: issue 4's table (bench/precision_bench.py --quick: its checks, then the
# batch-256 timings) of the variants TABLE_VARIANTS (comma-separated; default gdn,mamba2)
# into $OUT/NAME under PRECISION_S seconds (default 110), its log $OUT/NAME.log; the
# exit status and the timed rows printed.
issue4_table() {
    timeout "${PRECISION_S:-110}" python3 bench/precision_bench.py --out "$OUT/$1" \
        --variants "${TABLE_VARIANTS:-gdn,mamba2}" --quick > "$OUT/$1.log" 2>&1
    echo "$1 rc=$?"; grep -E "(kchunks|vtiles|conventional fp32) \|" "$OUT/$1/precision_bench.md" | cut -c1-200
}

# issue4_retune TUNE_S: issue 4's table (table_before), then the NVFP4 decodes of GDN 4B
# and Mamba-2 Nano and Nano's FP8 decode swept (tune_decode, TUNE_S s each), their
# batch-256 lines printed, and the table again (table_after) with whatever entries won
# (sessions 58 and 59's H200 scripts).
issue4_retune() {
    issue4_table table_before
    tune_decode gdn qwen3.5-4b nvfp4 "$1"
    tune_decode mamba2 nemotron3-nano-4b nvfp4 "$1"
    tune_decode mamba2 nemotron3-nano-4b fp8 "$1"
    grep -E "budget|read_(nvfp4|fp8row)__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-240
    issue4_table table_after
}

# The read-copy decodes issue 4's H100 entries were refined on in session 59 ("variant
# geometry read", tune_decode's first three arguments).
READ_COPY_DECODES=("gdn qwen3.5-4b nvfp4" "mamba2 nemotron3-nano-4b nvfp4" "gdn qwen3.5-4b fp8"
                   "mamba2 nemotron3-nano-4b fp8")

# refine_decodes BUDGET_S DECODE...: each DECODE ("variant geometry read [sr|kchunks|vtiles]",
# tune_decode's arguments without the budget) refined from its tabled launches
# (tune_decode with TUNE_REFINE=1, BUDGET_S s; TUNE_PHASES as the caller sets it), then
# the sweeps' phases and batch-256 read-copy lines printed.
refine_decodes() {
    local budget=$1 c
    shift
    for c in "$@"; do
        local a=($c)
        TUNE_REFINE=1 tune_decode "${a[0]}" "${a[1]}" "${a[2]}" "$budget" "${a[3]:-}"
    done
    grep -E "^phase|budget|replaygen tune:|read_(nvfp4|fp8row)__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | cut -c1-260
}

# refine_fp32_decodes BUDGET_S [GEOMETRY...]: the fp32 replay decodes of GEOMETRY
# ("VARIANT CONFIG none"; default the five issue-5 geometries) refined from their tabled
# launches (refine_decodes), their batch-256 lines printed.
refine_fp32_decodes() {
    local budget=$1
    shift
    [ $# -gt 0 ] || set -- "gdn qwen3.5-4b none" "gdn qwen3.5-122b-a10b none" \
        "mamba2 nemotron3-nano-4b none" "mamba2 nemotron3-super-120b none" "kda kimi-linear-48b none"
    refine_decodes "$budget" "$@"
    grep -E "__state_fp32__rec_bf16.* replay_decode +256 " "$OUT/tune.log" | cut -c1-240
}

# late_phases_then_rows VARIANT PHASE_S CONFIG...: VARIANT's fp32 replay decodes of each
# CONFIG refined from their tabled launches through phases 4e-7 alone (TUNE_PHASES to
# change them: on an H100 in session 66, 150 s refines through every phase stopped in 4e-5),
# PHASE_S s each, then VARIANT's issue-5 rows (suite), and $OUT packed into one tarball.
late_phases_then_rows() {
    local variant=$1 budget=$2 c geometries=()
    shift 2
    for c in "$@"; do geometries+=("$variant $c none"); done
    TUNE_PHASES=${TUNE_PHASES:-4e,4f,5,6,7} refine_fp32_decodes "$budget" "${geometries[@]}"
    SUITE_TIMEOUT=${SUITE_TIMEOUT:-120} suite suite "$variant"
    pack_out
}

# issue4_refine TUNE_S PHASE_S: issue 4's table (table_before); the NVFP4 decodes of GDN
# 4B and Mamba-2 Nano and Nano's FP8 decode each refined from their tabled launches (this
# GPU's, or its stand-in's) through every phase (`tune --refine`, TUNE_S s), then through
# phases 5-7 alone (PHASE_S s, default 40: on an H100 in session 59, 60-100 s refining
# sweeps ran out of budget before the separate fold's phases); their batch-256 lines
# printed; the table again (table_after). Session 59's successor to issue4_retune.
issue4_refine() {
    local decodes=("gdn qwen3.5-4b nvfp4" "mamba2 nemotron3-nano-4b nvfp4" "mamba2 nemotron3-nano-4b fp8")
    issue4_table table_before
    refine_decodes "$1" "${decodes[@]}"
    TUNE_PHASES=5,6,7 refine_decodes "${2:-40}" "${decodes[@]}"
    issue4_table table_after
}

# nano_fp8_issue4 TUNE_S PRECISION_S: issue 4's Mamba-2 Nano FP8 read-copy decode swept for
# TUNE_S seconds (tune_decode; its phases and batch-256 entry printed), then issue 4's
# Mamba-2 table (precision_bench --quick, under PRECISION_S seconds) with whatever entry
# won, and the table copied to $OUT/mamba2_tuning.json (sessions 48 and 55's H200 scripts).
nano_fp8_issue4() {
    tune_decode mamba2 nemotron3-nano-4b fp8 "$1"
    grep -E "^phase|budget|read_fp8row__rec_bf16 +replay_decode +256 " "$OUT/tune.log" | tail -12 | cut -c1-260
    TABLE_VARIANTS=mamba2 PRECISION_S="$2" issue4_table precision
    cp "$OUT/tables/mamba2.json" "$OUT/mamba2_tuning.json" 2>/dev/null
}

# issue3_rows_and_kda TUNE_S: issue 3's rows of every variant (T = 8, batch 256) into
# $OUT/spec_before, KDA's T = 8 verify swept for TUNE_S seconds, then KDA's row again into
# $OUT/spec (session 48's H200 scripts).
issue3_rows_and_kda() {
    SPEC_TIMEOUT=150 spec_rows mamba2,gdn,kda,gla 8
    mv "$OUT/spec" "$OUT/spec_before" && mv "$OUT/spec.log" "$OUT/spec_before.log"
    tune_verify kda kimi-linear-48b 8 "$1"
    spec_rows kda 8
}

# ncu_kernel NAME KERNEL SKIP PROFILE_ARGS...: ncu of one launch of the kernel whose name
# matches the regex KERNEL (the SKIP+1-th) in `bench/profile_workload.py PROFILE_ARGS` at
# the tables' launches: the details page ($OUT/ncu-NAME.txt), the SASS source page
# (gzipped CSV) and its split into head and stream by bench/ncu_phases.py
# ($OUT/ncu-NAME-phases.txt); the summary lines printed. Nothing where ncu is missing.
# NCU_CACHE=none keeps the caches as the workload left them (ncu's default, all, flushes
# them before the profiled launch, so data a real step finds in L2 counts as DRAM).
ncu_kernel() {
    local name=$1 kernel=$2 skip=$3; shift 3
    command -v ncu >/dev/null || return 0
    timeout 300 ncu --clock-control none --cache-control "${NCU_CACHE:-all}" -k regex:"$kernel" --launch-skip "$skip" --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy \
        --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        --section SchedulerStats --import-source yes -o "$OUT/$name" -f \
        python3 bench/profile_workload.py "$@" > "$OUT/ncu.log" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page details > "$OUT/ncu-$name.txt" 2>&1
    ncu -i "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu-$name-source.csv" 2>&1
    python3 bench/ncu_phases.py "$OUT/ncu-$name-source.csv" --top 25 > "$OUT/ncu-$name-phases.txt" 2>&1
    gzip -9 "$OUT/ncu-$name-source.csv"
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Issue Slots Busy|Warp Cycles Per Issued|Block Limit" "$OUT/ncu-$name.txt" | head -20
    head -40 "$OUT/ncu-$name-phases.txt"
    rm -f "$OUT/$name.ncu-rep"
}

# ncu_verify NAME SKIP PROFILE_ARGS...: ncu_kernel of verify_kernel (sessions 49-50's scripts).
ncu_verify() {
    ncu_kernel "$1" verify_kernel "${@:2}"
}

# proto_summary JSON KIND...: a prototype's rows (bench/proto/s55_nvfp4_mma.py,
# s56_nvfp4_dp4a.py: kind, DBV, BKT, warps, stages, ms, x_copy_rate, rel_err or error),
# per kind how many were timed and failed (the first error) and its five fastest.
proto_summary() {
    python3 - "$@" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
for kind in sys.argv[2:]:
    ok = sorted((r for r in rows if r["kind"] == kind and "ms" in r), key=lambda r: r["ms"])
    bad = [r for r in rows if r["kind"] == kind and "error" in r]
    print(kind, f"{len(ok)} timed, {len(bad)} failed", (bad[0]["error"][:150] if bad else ""))
    for r in ok[:5]:
        print(f"  {r['DBV']:>3} {r['BKT']:>3} w{r['warps']} s{r['stages']} {r['ms']:.4f} ms  "
              f"{r['x_copy_rate']:.2f} of copy rate  err {r['rel_err']:.1e}")
PY
}
