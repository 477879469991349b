# Sourced by the bench/sessions/gpu_session*.sh device scripts: failing pipes fail, Python output
# unbuffered, the output folder $OUT (the device tool sets it), the GPU's name and clocks,
# and the optional external baselines (fla-core and einops wheels, when carried along).
set -o pipefail
export PYTHONUNBUFFERED=1 REPLAYGEN_EXAMPLES=${REPLAYGEN_EXAMPLES:-1}
OUT=${OUT:-bench/results/latest}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
if ls bench/wheels/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-deps --no-index bench/wheels/*.whl 2>&1 | tail -3
fi

# tune_decode VARIANT CONFIG READ BUDGET_S [sr|kchunks|vtiles]: one `replaygen tune`
# sweep of the batch-256, L = 16 decode of a configuration (READ: none, fp8 or nvfp4; sr:
# an fp16 checkpoint with stochastic rounding; kchunks / vtiles: that decode structure
# forced), its log appended to $OUT/tune.log, and the variants' tables copied to
# $OUT/tables afterwards, so a call cut short keeps them.
tune_decode() {
    local read=() extra=()
    [ "$3" != none ] && read=(--read-dtype "$3")
    case "${5:-}" in
        sr) extra=(--state-dtype fp16 --stochastic) ;;
        kchunks|vtiles) extra=(--decode-structure "$5") ;;
    esac
    timeout $(( $4 + 25 )) python3 -m replaygen tune --variant "$1" --config "$2" --L 16 \
        "${extra[@]}" "${read[@]}" --kernels replay_decode --batches 256 --budget-s "$4" \
        >> "$OUT/tune.log" 2>&1
    mkdir -p "$OUT/tables"
    for v in gdn mamba2 kda gla; do cp generated/$v/tuning.json "$OUT/tables/$v.json"; done
}
