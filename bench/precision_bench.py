"""Separate precisions on the GPU: correctness of every precision configuration at a real
geometry per variant, then the timings issue 4 asks for, then (optionally) the 32K-token
error study.

Usage (on the H200):
    python bench/precision_bench.py --out DIR [--variants gdn,...] [--quick]
                                    [--accuracy VARIANT [--accuracy-tokens N]]
Writes DIR/precision_bench.json (GPU, date, commit, command, every check and timing) and
DIR/precision_bench.md (tables), and with --accuracy DIR/accuracy-VARIANT/ (result.json,
per_token.csv, accuracy.png when matplotlib is installed).

Correctness: each configuration decodes 2L + 3 steps of 7 slots in shuffled rows with a
padding row (slots leave out in turn, so rows sit at different ring positions and flush in
mixed launches) against the conventional kernel on an fp32 pool (the fp32 sequential
reference, itself checked against float64 by the test suite); outputs every step and the
materialised states at the end; limits from the formats (tests/harness.py U_QUANT).
Timing (CUDA-graph medians, batch 256, L = 16, bf16 records and inputs): the non-flush
step with n = L/2 records reading an fp32 checkpoint, an FP8 read copy and an NVFP4 one;
the amortised per-token step (rows staggered over the flush cycle) of each configuration
against the conventional fp32 step; ratios and the byte caps of the traffic model.
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

from common import GEOMS, ROOT, bench, new_pool, random_inputs, random_params  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from harness import U_QUANT  # noqa: E402
from replaygen.traffic import traffic  # noqa: E402

# name -> replaygen.load precision options
CONFIGS = {
    "fp32": dict(state_dtype="fp32"),
    "fp32+fp8row": dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="row"),
    "fp32+fp8col": dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="col"),
    "fp32+fp8tile": dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="tile"),
    "fp32+nvfp4": dict(state_dtype="fp32", read_dtype="nvfp4"),
    "fp16sr+nvfp4": dict(state_dtype="fp16", stochastic=True, read_dtype="nvfp4"),
    "bf16sr+fp8row": dict(state_dtype="bf16", stochastic=True, read_dtype="fp8"),
    "fp16sr": dict(state_dtype="fp16", stochastic=True),
    "shared-fp8row": dict(state_dtype="fp8"),
    "shared-nvfp4": dict(state_dtype="nvfp4"),
}
CHECK_EVERY_VARIANT = ("fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4", "shared-nvfp4")
CHECK_FIRST_VARIANT = tuple(CONFIGS)          # all of them for the first variant
TIMED = ("fp32", "fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4")
# output tolerance (normwise, vs the fp32 sequential step): bf16 records 2^-9 per
# rounding, a few roundings deep, plus the format's quantisation bound where it applies
BASE_TOL = 2e-2
L = 16


def limit(name: str) -> float:
    opts = CONFIGS[name]
    q = opts.get("read_dtype") or (opts["state_dtype"] if opts["state_dtype"] in U_QUANT else None)
    sr = {"fp16": 2.0 ** -10, "bf16": 2.0 ** -7}.get(opts["state_dtype"], 0.0) if opts.get(
        "stochastic") else 0.0
    # a shared quantised checkpoint is re-quantised at each of the ~3 flushes of the run
    rounds = 3 if opts["state_dtype"] in U_QUANT else 1
    return BASE_TOL + 3 * sr + (U_QUANT[q] * rounds if q else 0.0)


def check(variant: str, name: str, device="cuda", slots=7) -> dict:
    gen = torch.Generator(device=device).manual_seed(1234)
    kern = replaygen.load(variant, config=GEOMS[variant], L=L, record_dtype="bf16", **CONFIGS[name])
    base = replaygen.load(variant, config=GEOMS[variant], L=L, record_dtype="bf16")
    params = random_params(kern, device, gen)
    state = kern.new_state(slots, device, **params)
    S0 = torch.randn((slots,) + kern.state_shape, device=device, generator=gen) * 0.5
    kern.load_state(state, torch.arange(slots, device=device), S0)
    # the reference pool starts from what the checkpoint holds (load-time rounding is no error)
    pool = kern.materialize(state, torch.arange(slots, device=device, dtype=torch.int32)).clone()
    worst_out = 0.0
    perm = torch.randperm(slots, generator=torch.Generator().manual_seed(5)).tolist()
    for t in range(2 * L + 3):
        active = [s for s in perm if s != perm[t % slots]]
        rows = torch.tensor(active + [-1], device=device, dtype=torch.int32)
        x = {n: v.float() for n, v in random_inputs(kern, len(active) + 1, device,
                                                    torch.bfloat16, gen).items()}
        out = torch.full((len(active) + 1, kern.plan.HV, kern.plan.V), float("nan"), device=device)
        kern.decode(state, rows, out=out, **x)
        ref = base.conventional_decode(pool, rows, **x, **params)
        assert bool((out[-1] == 0).all()), "padding row not zero"
        err = ((out[:-1] - ref[:-1]).flatten(1).norm(dim=1) / ref[:-1].flatten(1).norm(dim=1)).max()
        worst_out = max(worst_out, err.item())
    M = kern.materialize(state, torch.arange(slots, device=device, dtype=torch.int32))
    worst_state = ((M - pool).flatten(1).norm(dim=1) / pool.flatten(1).norm(dim=1)).max().item()
    tol = limit(name)
    ok = worst_out == worst_out and worst_state == worst_state and max(worst_out, worst_state) < tol
    return dict(variant=variant, config=name, kernel=kern.name, err_out=worst_out,
                err_state=worst_state, tol=tol, ok=bool(ok))


def prepare(variant: str, name: str, batch: int, device="cuda"):
    """A pool of `batch` slots whose rings hold L-1 valid records (decoded, not made up)."""
    gen = torch.Generator(device=device).manual_seed(7)
    kern = replaygen.load(variant, config=GEOMS[variant], L=L, record_dtype="bf16", **CONFIGS[name])
    params, slots, state, inputs, out = new_pool(kern, batch, device, gen)
    for _ in range(L - 1):
        kern.decode(state, slots, out=out, **inputs)
    return kern, state, slots, inputs, out, params


def timings(variant: str, batch: int) -> dict:
    res = {"variant": variant, "batch": batch, "L": L}
    fill = None
    for name in TIMED:
        kern, state, slots, inputs, out, params = prepare(variant, name, batch)
        if fill is None:
            fill = bench(lambda: state.cursor.fill_(L // 2))
            pool = torch.randn((batch,) + kern.state_shape, device="cuda") * 0.5
            res["conventional_fp32"] = bench(
                lambda: kern.conventional_decode(pool, slots, out=out, **inputs, **params))
            del pool
        res[f"nonflush/{name}"] = bench(lambda: (state.cursor.fill_(L // 2),
                                                 kern.decode(state, slots, out=out, **inputs))) - fill
        stagger = (torch.arange(batch, device="cuda", dtype=torch.int32) % L)
        state.cursor.copy_(stagger[:, None].expand_as(state.cursor))

        def cycle():
            for _ in range(L):
                kern.decode(state, slots, out=out, **inputs)
        res[f"amortised/{name}"] = bench(cycle, steps=L)
        t = traffic(kern.plan)
        res[f"bytes/{name}"] = {"step_n8": t.evaluate(t.step, L // 2),
                                "amortised": t.evaluate(t.amortised),
                                "conventional": t.evaluate(t.conventional)}
        del state
        torch.cuda.empty_cache()
    conv_fp32 = res["bytes/fp32"]["conventional"]
    for name in TIMED:
        res[f"ratio_nonflush/{name}"] = res["nonflush/fp32"] / res[f"nonflush/{name}"]
        res[f"cap_nonflush/{name}"] = res["bytes/fp32"]["step_n8"] / res[f"bytes/{name}"]["step_n8"]
        res[f"ratio_amortised/{name}"] = res["conventional_fp32"] / res[f"amortised/{name}"]
        res[f"cap_amortised/{name}"] = conv_fp32 / res[f"bytes/{name}"]["amortised"]
    return res


def markdown(report: dict) -> str:
    lines = [f"# Precision bench: {report['gpu']}, {report['date']}, commit {report['commit']}",
             "", f"`{report['command']}`", "", "## Correctness (vs the fp32 sequential step)", "",
             "| variant | config | output err | state err | limit | ok |", "|---|---|---|---|---|---|"]
    for c in report["checks"]:
        if "error" in c:
            lines.append(f"| {c['variant']} | {c['config']} | error: {c['error'][:80]} | | | no |")
            continue
        lines.append(f"| {c['variant']} | {c['config']} | {c['err_out']:.2e} | {c['err_state']:.2e} "
                     f"| {c['tol']:.2e} | {'yes' if c['ok'] else 'NO'} |")
    lines += ["", "## Timings (ms per step, CUDA-graph medians, batch 256, L = 16)", "",
              "| variant | config | non-flush | vs fp32 read (cap) | amortised | vs conventional fp32 (cap) |",
              "|---|---|---|---|---|---|"]
    for r in report["timings"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | error: {r['error'][:100]} | | | | |")
            continue
        lines.append(f"| {r['variant']} | conventional fp32 | | | {r['conventional_fp32']:.4f} | 1.00 |")
        for name in TIMED:
            lines.append(
                f"| {r['variant']} | {name} | {r[f'nonflush/{name}']:.4f} | "
                f"{r[f'ratio_nonflush/{name}']:.2f}x ({r[f'cap_nonflush/{name}']:.2f}x) | "
                f"{r[f'amortised/{name}']:.4f} | {r[f'ratio_amortised/{name}']:.2f}x "
                f"({r[f'cap_amortised/{name}']:.2f}x) |")
    return "\n".join(lines) + "\n"


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default=",".join(GEOMS))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--quick", action="store_true", help="check only the main configurations")
    ap.add_argument("--accuracy", metavar="VARIANT", help="also run the error study")
    ap.add_argument("--accuracy-tokens", type=int, default=32768)
    ap.add_argument("--accuracy-rows", type=int, default=32)
    ap.add_argument("--accuracy-budget-s", type=float,
                    help="stop the study after S seconds (it writes the tokens done)")
    args = ap.parse_args(argv)
    unknown = [v for v in args.variants.split(",") if v not in GEOMS]
    if unknown:
        ap.error(f"unknown variant(s) {unknown}; known: {list(GEOMS)}")
    return args


def main(argv=None):
    args = parse(argv)
    if not torch.cuda.is_available():
        sys.exit("precision_bench.py needs a CUDA GPU")
    start = time.perf_counter()
    variants = args.variants.split(",")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    report = dict(gpu=torch.cuda.get_device_name(), date=datetime.datetime.now(
        datetime.timezone.utc).isoformat(timespec="seconds"), commit=commit,
        command="python " + " ".join(sys.argv), torch=torch.__version__,
        triton=__import__("triton").__version__, checks=[], timings=[])
    for i, v in enumerate(variants):
        names = CHECK_EVERY_VARIANT if (args.quick or i) else CHECK_FIRST_VARIANT
        for name in names:
            try:
                r = check(v, name)
            except Exception as exc:  # report and carry on: one run, every answer
                r = dict(variant=v, config=name, error=repr(exc)[:500], ok=False)
            report["checks"].append(r)
            print("CHECK", json.dumps(r), f"({time.perf_counter() - start:.0f} s)", flush=True)
    for v in variants:
        try:
            r = timings(v, args.batch)
        except Exception as exc:
            r = dict(variant=v, error=repr(exc)[:500])
        report["timings"].append(r)
        print("BENCH", json.dumps(r), f"({time.perf_counter() - start:.0f} s)", flush=True)
    report["seconds"] = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "precision_bench.json").write_text(json.dumps(report, indent=1))
    (args.out / "precision_bench.md").write_text(markdown(report))
    print(markdown(report))
    if args.accuracy:
        from replaygen.cli import main as cli
        cli(["accuracy", "--variant", args.accuracy, "--tokens", str(args.accuracy_tokens),
             "--rows", str(args.accuracy_rows), "--device", "cuda",
             "--out", str(args.out / f"accuracy-{args.accuracy}")]
            + (["--budget-s", str(args.accuracy_budget_s)] if args.accuracy_budget_s else []))
    print(f"done in {time.perf_counter() - start:.0f} s; "
          f"{sum(not c['ok'] for c in report['checks'])} check(s) failed")


if __name__ == "__main__":
    main()
