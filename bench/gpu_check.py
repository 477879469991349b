"""One GPU run: correctness of every variant on its real geometry, then timings.

Usage (on the H200): python bench/gpu_check.py --out DIR [--quick]
Writes DIR/gpu_check.json (machine, versions, commit, command, every check and timing)
and prints a table. Correctness: outputs after every step and the materialised states
against the independent float64 reference (tests/reference.py), rows at different ring
positions with a padding row, across several flushes. Timings: medians by
triton.testing.do_bench of the conventional step, the ReplaySSM step amortised over a
whole flush cycle (rows staggered so every launch mixes flush and non-flush rows), the
standalone flush, and a device-to-device copy for the bandwidth ceiling.
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, random_inputs, random_params  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402

import reference as R  # noqa: E402
import replaygen  # noqa: E402
from replaygen.perf import commit as perf_commit  # noqa: E402
from sweep import run_one  # noqa: E402

REFERENCE = {"mamba2": R.mamba2_step, "gdn": R.gdn_step, "kda": R.kda_step, "gla": R.gla_step}
TOL = {"fp32": 8e-3, "bf16": 3e-2, "fp16": 1.5e-2}  # normwise; outputs are bf16 (2^-9 each)


def check_variant(variant, config, state_dtype, record_dtype, device, steps_extra=3, rows=4,
                  num_slots=6, L=16):
    gen = torch.Generator(device=device).manual_seed(1234)
    kern = replaygen.load(variant, config=config, L=L, state_dtype=state_dtype,
                          record_dtype=record_dtype)
    params = random_params(kern, device, gen)
    state = kern.new_state(num_slots, device, **params)
    S0 = torch.randn((num_slots,) + kern.state_shape, device=device, generator=gen) * 0.5
    kern.load_state(state, torch.arange(num_slots, device=device), S0)
    ref = S0.to(kern.state_dtype).double()
    pool = S0.to(kern.state_dtype).clone()
    ref_fn = REFERENCE[variant]
    p64 = {k: v.double() for k, v in params.items()}
    worst_out = worst_conv = worst_state = 0.0
    steps = 2 * L + steps_extra
    perm = torch.randperm(num_slots, generator=torch.Generator().manual_seed(5)).tolist()
    for t in range(steps):
        # rows change over time so that slots sit at different ring positions
        active = perm[: rows - 1] if t % 3 else perm[1:rows]
        slots = torch.tensor(active + [-1], device=device, dtype=torch.int32)
        inputs = random_inputs(kern, len(active) + 1, device, torch.bfloat16, gen)
        out = torch.full((len(active) + 1, kern.plan.HV, kern.plan.V), float("nan"),
                         device=device, dtype=torch.bfloat16)
        kern.decode(state, slots, out=out, **inputs)
        conv = kern.conventional_decode(pool, slots, **inputs, **params)
        assert torch.all(out[-1] == 0) and torch.all(conv[-1] == 0), "padding row not zero"
        for r, s in enumerate(active):
            S_new, o = ref_fn(ref[s], **{k: v[r].double() for k, v in inputs.items()}, **p64)
            ref[s] = S_new
            worst_out = max(worst_out, ((out[r].double() - o).norm() / o.norm()).item())
            worst_conv = max(worst_conv, ((conv[r].double() - o).norm() / o.norm()).item())
    torch.cuda.synchronize()
    M = kern.materialize(state, torch.arange(num_slots, device=device, dtype=torch.int32))
    for s in range(num_slots):
        worst_state = max(worst_state, ((M[s].double() - ref[s]).norm() / ref[s].norm()).item())
    tol = TOL[state_dtype]
    ok = max(worst_out, worst_state, worst_conv) < tol and not any(
        x != x for x in (worst_out, worst_state, worst_conv))
    return dict(variant=variant, config=config, state_dtype=state_dtype,
                record_dtype=record_dtype, L=L, steps=steps, err_out=worst_out,
                err_state=worst_state, err_conventional=worst_conv, tol=tol, ok=ok)


def copy_bandwidth(device, nbytes=4 << 30):
    a = torch.empty(nbytes // 4, device=device, dtype=torch.float32).normal_()
    b = torch.empty_like(a)
    t = bench(lambda: b.copy_(a))
    return 2 * nbytes / (t * 1e-3)   # bytes read + written per second


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    args = ap.parse_args()
    device = "cuda"
    commit = perf_commit()   # REPLAYGEN_COMMIT where the copied tree's .git is stale
    meta = dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__,
                triton=triton.__version__, commit=commit,
                date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                command="python bench/gpu_check.py " + " ".join(sys.argv[1:]))
    try:
        meta["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                                         "--format=csv,noheader"], capture_output=True,
                                        text=True).stdout.strip()
    except OSError:
        pass
    print(meta, flush=True)
    report = dict(meta=meta, checks=[], bench=[])
    geoms = GEOMS
    if not args.skip_check:
        for variant, config in geoms.items():
            combos = [("fp32", "fp32"), ("fp32", "bf16"), ("bf16", "bf16"), ("fp16", "bf16")]
            for sdt, rdt in combos[:2] if args.quick else combos:
                t0 = time.time()
                try:
                    r = check_variant(variant, config, sdt, rdt, device)
                except Exception as exc:
                    r = dict(variant=variant, state_dtype=sdt, record_dtype=rdt, ok=False,
                             error=repr(exc)[:2000])
                r["seconds"] = time.time() - t0
                report["checks"].append(r)
                print("CHECK", json.dumps(r), flush=True)
    if not args.skip_bench:
        report["copy_bytes_per_s"] = copy_bandwidth(device)
        print("copy bandwidth %.2f TB/s" % (report["copy_bytes_per_s"] / 1e12), flush=True)
        for variant, config in geoms.items():
            for batch in ((256,) if args.quick else (256, 512)):
                try:
                    r = run_one(variant, batch, 16)
                    r["config"] = config
                    r["copy_fraction"] = {k: v / report["copy_bytes_per_s"]
                                          for k, v in r["bytes_per_s"].items()}
                except Exception as exc:
                    r = dict(variant=variant, batch=batch, error=repr(exc)[:2000])
                report["bench"].append(r)
                print("BENCH", json.dumps(r), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "gpu_check.json").write_text(json.dumps(report, indent=1))
    print("\n%-8s %-6s %-6s %10s %10s %10s %s" % ("variant", "state", "rec", "err_out",
                                                 "err_state", "err_conv", "ok"))
    for c in report["checks"]:
        print("%-8s %-6s %-6s %10.2e %10.2e %10.2e %s" % (
            c["variant"], c["state_dtype"], c["record_dtype"], c.get("err_out", -1),
            c.get("err_state", -1), c.get("err_conventional", -1), c["ok"]))
    print("\n%-8s %6s %9s %9s %9s %9s %9s %7s %6s %7s %7s" % (
        "variant", "batch", "conv", "nonflush", "flush", "amort", "copy|S|", "speedup", "cap",
        "conv%bw", "amort%bw"))
    for b in report["bench"]:
        if "error" in b:
            print(b["variant"], b["batch"], "ERROR", b["error"][:300])
        else:
            print("%-8s %6d %9.4f %9.4f %9.4f %9.4f %9.4f %7.3f %6.3f %7.2f %7.2f" % (
                b["variant"], b["batch"], b["conventional"], b["nonflush_half"], b["flush_step"],
                b["amortised"], b["copy_state"], b["speedup"], b["speedup_cap"],
                b["copy_fraction"].get("conventional", 0), b["copy_fraction"].get("amortised", 0)))


if __name__ == "__main__":
    main()
