# Sourced by the bench/gpu_session*.sh device scripts: failing pipes fail, Python output
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
