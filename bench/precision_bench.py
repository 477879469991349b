"""Separate precisions on the GPU: correctness of every precision configuration at a real
geometry per variant, then the timings issue 4 asks for, then (optionally) the 32K-token
error study.

Usage (on the H200):
    python bench/precision_bench.py --out DIR [--variants gdn,...] [--quick]
                                    [--checks NAME,...] [--compare [--compare-configs NAME,...]]
                                    [--budget-s S]
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
against the conventional fp32 step; ratios and the byte caps of the traffic model, and
the share of the byte bound (the traffic model's bytes at --peak-tbs, by default the rate
of a 1 GiB device copy measured in the same run) each step reaches.
With --compare, each read copy decoded by key chunks (Mamba-2, GDN) is also timed in the
value-tile structure it used before (a twin module rendered from the same plan, bench
only) and with other key-chunk launches (forced, as `replaygen tune` does; some with the
flush in a separate fold launch, "+sf"), non-flush and amortised, after the launch is
checked against the fp32 sequential step. --budget-s skips the comparisons not
started once the time is spent, and says which (checks and main timings always run).
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, new_pool, random_inputs, random_params  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from harness import U_QUANT  # noqa: E402
from replaygen.perf import Timer, copy_bandwidth  # noqa: E402
from replaygen.perf import commit as perf_commit  # noqa: E402
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
    # NVFP4 read copies in the key-chunk decode (the plan's default is value tiles: with
    # the flush fused, key chunks lost, session 3); timed with the flush separate too
    "fp32+nvfp4-kc": dict(state_dtype="fp32", read_dtype="nvfp4", decode_structure="kchunks"),
    "fp16sr+nvfp4-kc": dict(state_dtype="fp16", stochastic=True, read_dtype="nvfp4",
                                 decode_structure="kchunks"),
}
CHECK_EVERY_VARIANT = ("fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4", "shared-nvfp4")
CHECK_FIRST_VARIANT = tuple(CONFIGS)          # all of them for the first variant
TIMED = ("fp32", "fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4")
# the key-chunk NVFP4 decode (--compare only): its launches with the flush separate (the
# decode kernel then has no fold, quantisation or Philox code), plus the plan's chunks
NVFP4_KCHUNKS = ("fp32+nvfp4-kc", "fp16sr+nvfp4-kc")
NVFP4_LAUNCHES = ((64, 32, 1, True), (128, 32, 2, True), (64, 64, 2, True), (32, 64, 1, True),
                  (128, 64, 4, True), (64, 32, 1))
# key-chunk read copies (issue 4): configurations checked by default with --quick
QUICK_CHECKS = ("fp32+fp8row", "fp32+fp8tile", "fp32+nvfp4", "fp16sr+nvfp4", "bf16sr+fp8row")
# other launches of a key-chunk read-copy decode, (DBV, BKT, warps[, separate flush]): the
# same elements per thread as the plan's [64, 32] x 1 warp, or the fp32 kernel's tuned
# [128, 32] x 2 warps, with larger key chunks (more bytes per load for a format of 1 or 0.5
# bytes per value); and the plan's chunks and [128, 32] with the flush in a separate fold
# launch (a decode kernel without fold code: ptxas 229 -> 128 registers at [128, 32] x 2)
ALT_LAUNCHES = ((128, 32, 2), (64, 64, 2), (128, 64, 4), (64, 128, 4), (64, 32, 1, True),
                (128, 32, 2, True))
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


def load(variant: str, name: str, launch=None):
    """The configuration's kernels; `launch` (DBV, BKT, warps[, separate flush]) forces the
    decode's launch."""
    kern = replaygen.load(variant, config=GEOMS[variant], L=L, record_dtype="bf16", **CONFIGS[name])
    if launch is not None:
        from replaygen.tuning import Launch
        bv, bkt, warps, *separate = launch
        kern.forced["replay_decode"] = Launch(BV=bv, BKT=bkt, num_warps=warps, num_stages=3,
                                              separate_flush=bool(separate and separate[0]))
    return kern


def launch_tag(launch) -> str:
    """'64x32x1' (DBV x BKT x warps), '+sf' when the flush is a separate launch."""
    return "x".join(map(str, launch[:3])) + ("+sf" if launch[3:] and launch[3] else "")


def value_tile_twin(kern):
    """The same configuration with the value-tile decode (the structure read copies used
    before key chunks): rendered from the plan with that template, for timing only."""
    import dataclasses
    import tempfile
    from replaygen.derive import derive
    from replaygen.plan import VALUE_TILES, _pick_num_warps
    from replaygen.render import render_module
    from replaygen.runtime import Kernels, _import_module
    plan = dataclasses.replace(kern.plan, decode_template=VALUE_TILES,
                               decode_warps=_pick_num_warps(kern.plan.BV, kern.plan.BK))
    path = Path(tempfile.mkdtemp()) / f"{plan.name}__vtiles.py"
    path.write_text(render_module(plan, derive(kern.spec)))
    return Kernels(kern.spec, plan, _import_module(path, plan.name + "__vtiles"), None)


def is_chunked_read(kern) -> bool:
    from replaygen.plan import decode_is_chunked
    return kern.plan.read is not None and decode_is_chunked(kern.plan)


def check(variant: str, name: str, device="cuda", slots=7, launch=None) -> dict:
    gen = torch.Generator(device=device).manual_seed(1234)
    kern = load(variant, name, launch)
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
    return dict(variant=variant, config=name + (f" @{launch}" if launch else ""), kernel=kern.name,
                decode=kern.plan.decode_template.split(".")[0], err_out=worst_out,
                err_state=worst_state, tol=tol, ok=bool(ok))


def prepare(variant: str, name: str, batch: int, device="cuda", kern=None):
    """A pool of `batch` slots whose rings hold L-1 valid records (decoded, not made up)."""
    gen = torch.Generator(device=device).manual_seed(7)
    kern = kern or load(variant, name)
    params, slots, state, inputs, out = new_pool(kern, batch, device, gen)
    for _ in range(L - 1):
        kern.decode(state, slots, out=out, **inputs)
    return kern, state, slots, inputs, out, params


def timings(variant: str, batch: int, peak_tbs: float) -> dict:
    res = {"variant": variant, "batch": batch, "L": L, "peak_tbs": peak_tbs, "skipped": []}
    fill = None
    for name in TIMED:
        kern, state, slots, inputs, out, params = prepare(variant, name, batch)
        res[f"decode/{name}"] = kern.plan.decode_template.split(".")[0]
        if fill is None:
            fill = res["fill"] = bench(lambda: state.cursor.fill_(L // 2))
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
        # share of the byte bound: the model's bytes (per row) of the batch at the peak
        # bandwidth, over the time taken
        for what, b in (("nonflush", "step_n8"), ("amortised", "amortised")):
            res[f"bound_{what}/{name}"] = bound_ms(res, name, b) / res[f"{what}/{name}"]
    return res


def bound_ms(res, name, what="step_n8") -> float:
    """ms the batch's bytes take at the peak bandwidth (traffic model, bytes per row)."""
    return res[f"bytes/{name}"][what] * res["batch"] / (res["peak_tbs"] * 1e9)


def comparisons(variants) -> list[tuple[str, str, tuple | None]]:
    """(variant, config, launch or None for the value-tile twin) of --compare, most
    wanted first: the twins of every key-chunk read copy, then the other launches of the
    fp32 + FP8 / NVFP4 read copies (not of a stochastic-rounding checkpoint: its Philox
    bits spill at 64 chunk elements per thread, which ALT_LAUNCHES have); before those,
    the NVFP4 read copies in key chunks (NVFP4_LAUNCHES: the flush separate, but one)."""
    reads = [n for n in TIMED if CONFIGS[n].get("read_dtype")]
    items = [(v, n, None) for v in variants for n in reads]
    main = [n for n in reads if not CONFIGS[n].get("stochastic")]
    nvfp4 = [(v, n, la) for la in NVFP4_LAUNCHES for v in variants for n in NVFP4_KCHUNKS]
    return items + nvfp4 + [(v, n, la) for la in ALT_LAUNCHES for v in variants for n in main]


def compare_one(res, variant, name, launch):
    """Time a key-chunk read copy as its value-tile twin (non-flush and amortised), or
    with another launch (non-flush; checked against the fp32 sequential step first)."""
    batch, fill = res["batch"], res["fill"]
    kern = load(variant, name, launch)
    if not is_chunked_read(kern):
        return
    if launch is None:
        kern = value_tile_twin(kern)
    else:
        tag = launch_tag(launch)
        c = check(variant, name, launch=launch)
        res[f"check_launch/{name}/{tag}"] = c
        print("CHECK", json.dumps(c), flush=True)
    kern, state, slots, inputs, out, _ = prepare(variant, name, batch, kern=kern)
    t = bench(lambda: (state.cursor.fill_(L // 2), kern.decode(state, slots, out=out, **inputs))) - fill
    stagger = (torch.arange(batch, device="cuda", dtype=torch.int32) % L)
    state.cursor.copy_(stagger[:, None].expand_as(state.cursor))

    def cycle():
        for _ in range(L):
            kern.decode(state, slots, out=out, **inputs)
    amortised = bench(cycle, steps=L)
    if launch is None:
        res[f"vtiles_nonflush/{name}"] = t
        res[f"vtiles_amortised/{name}"] = amortised
        res[f"ratio_vtiles_nonflush/{name}"] = res["nonflush/fp32"] / t
    else:
        key = f"launch_nonflush/{name}/{tag}"
        res[key] = t if c["ok"] else float("nan")
        res["ratio_" + key] = res["nonflush/fp32"] / res[key]
        res[f"launch_amortised/{name}/{tag}"] = amortised if c["ok"] else float("nan")
    del state
    torch.cuda.empty_cache()


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
    peak = (f"% bytes bound: the traffic model's bytes at {report['peak_tbs']:.2f} TB/s "
            f"({report['peak_source']}), over the time taken."
            if "peak_tbs" in report else "% bytes bound: at 4.3 TB/s (before session 59).")
    lines += ["", "## Timings (ms per step, CUDA-graph medians, batch 256, L = 16)", "", peak, "",
              "| variant | config | decode | non-flush | vs fp32 read (cap) | % bytes bound | amortised "
              "| vs conventional fp32 (cap) | % bytes bound |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in report["timings"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | error: {r['error'][:100]} | | | | |")
            continue
        lines.append(f"| {r['variant']} | conventional fp32 | | | | | {r['conventional_fp32']:.4f} | 1.00 | |")
        for name in TIMED:
            lines.append(
                f"| {r['variant']} | {name} | {r[f'decode/{name}'].replace('replay_decode_', '')} "
                f"| {r[f'nonflush/{name}']:.4f} | "
                f"{r[f'ratio_nonflush/{name}']:.2f}x ({r[f'cap_nonflush/{name}']:.2f}x) | "
                f"{100 * r[f'bound_nonflush/{name}']:.0f}% | "
                f"{r[f'amortised/{name}']:.4f} | {r[f'ratio_amortised/{name}']:.2f}x "
                f"({r[f'cap_amortised/{name}']:.2f}x) | {100 * r[f'bound_amortised/{name}']:.0f}% |")
            if f"vtiles_nonflush/{name}" in r:
                lines.append(
                    f"| {r['variant']} | {name} | vtiles (before) | {r[f'vtiles_nonflush/{name}']:.4f} | "
                    f"{r[f'ratio_vtiles_nonflush/{name}']:.2f}x | | "
                    f"{r[f'vtiles_amortised/{name}']:.4f} | "
                    f"{r['conventional_fp32'] / r[f'vtiles_amortised/{name}']:.2f}x | |")
        for name in TIMED + NVFP4_KCHUNKS:
            # the same bytes as the configuration in its default structure
            bytes_name = name.removesuffix("-kc")
            for key in sorted(k for k in r if k.startswith(f"launch_nonflush/{name}/")):
                am = r.get(key.replace("launch_nonflush/", "launch_amortised/"))
                amortised = (f"{am:.4f} | {r['conventional_fp32'] / am:.2f}x |" if am else " | |")
                lines.append(f"| {r['variant']} | {name} | kchunks {key.split('/')[-1]} (DBVxBKTxwarps"
                             f"[+sf: separate flush]) | {r[key]:.4f} | {r['ratio_' + key]:.2f}x | "
                             f"{100 * bound_ms(r, bytes_name) / r[key]:.0f}% | {amortised} |")
        if r.get("skipped"):
            lines.append(f"| {r['variant']} | skipped (budget): {', '.join(r['skipped'])} | | | | | | | |")
    return "\n".join(lines) + "\n"


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default=",".join(GEOMS))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--quick", action="store_true", help="check only the main configurations")
    ap.add_argument("--checks", help="configurations to check (comma-separated; default: all for "
                    "the first variant and the main ones for the rest, with --quick the key-chunk "
                    f"read copies {','.join(QUICK_CHECKS)})")
    ap.add_argument("--compare", action="store_true",
                    help="also time key-chunk read copies as value tiles and with other launches")
    ap.add_argument("--compare-configs", metavar="NAME,...",
                    help="with --compare, only these configurations' comparisons")
    ap.add_argument("--budget-s", type=float, default=float("inf"),
                    help="skip the optional timings once S seconds have passed")
    ap.add_argument("--peak-tbs", type=float, default=None,
                    help="bandwidth (TB/s) of the byte bound (default: a 1 GiB device copy "
                         "measured in this run, read + written; a fixed 4.3, the H200's copy, "
                         "read ~25%% low on an H100 until session 59)")
    ap.add_argument("--accuracy", metavar="VARIANT", help="also run the error study")
    ap.add_argument("--accuracy-tokens", type=int, default=32768)
    ap.add_argument("--accuracy-rows", type=int, default=32)
    ap.add_argument("--accuracy-budget-s", type=float,
                    help="stop the study after S seconds (it writes the tokens done)")
    args = ap.parse_args(argv)
    unknown = [v for v in args.variants.split(",") if v not in GEOMS]
    if unknown:
        ap.error(f"unknown variant(s) {unknown}; known: {list(GEOMS)}")
    bad = [c for c in (args.checks or "").split(",") + (args.compare_configs or "").split(",")
           if c and c not in CONFIGS]
    if bad:
        ap.error(f"unknown configuration(s) {bad}; known: {list(CONFIGS)}")
    return args


def main(argv=None):
    args = parse(argv)
    if not torch.cuda.is_available():
        sys.exit("precision_bench.py needs a CUDA GPU")
    start = time.perf_counter()
    variants = args.variants.split(",")
    commit = perf_commit()   # REPLAYGEN_COMMIT where the copied tree's .git is stale
    report = dict(gpu=torch.cuda.get_device_name(), date=datetime.datetime.now(
        datetime.timezone.utc).isoformat(timespec="seconds"), commit=commit,
        command="python " + " ".join(sys.argv), torch=torch.__version__,
        triton=__import__("triton").__version__, checks=[], timings=[])
    for i, v in enumerate(variants):
        names = CHECK_EVERY_VARIANT if i else CHECK_FIRST_VARIANT
        if args.quick:
            names = QUICK_CHECKS
        if args.checks:
            names = [c for c in args.checks.split(",") if c]
        for name in names:
            try:
                r = check(v, name)
            except Exception as exc:  # report and carry on: one run, every answer
                r = dict(variant=v, config=name, error=repr(exc)[:500], ok=False)
            report["checks"].append(r)
            print("CHECK", json.dumps(r), f"({time.perf_counter() - start:.0f} s)", flush=True)
    if args.peak_tbs is None:
        copy = copy_bandwidth(torch.device("cuda"), Timer(torch.device("cuda")))["best"]
        report["peak_tbs"], report["peak_source"] = copy / 1e12, "a 1 GiB device copy measured in this run"
    else:
        report["peak_tbs"], report["peak_source"] = args.peak_tbs, "given (--peak-tbs)"
    for v in variants:
        try:
            r = timings(v, args.batch, report["peak_tbs"])
        except Exception as exc:
            r = dict(variant=v, error=repr(exc)[:500])
        report["timings"].append(r)
        print("BENCH", json.dumps(r), f"({time.perf_counter() - start:.0f} s)", flush=True)
    rows = {r["variant"]: r for r in report["timings"] if "error" not in r}
    wanted = [c for c in (args.compare_configs or "").split(",") if c]
    for v, name, launch in (comparisons(list(rows)) if args.compare else []):
        if wanted and name not in wanted:
            continue
        what = f"{name}/" + ("vtiles" if launch is None else launch_tag(launch))
        if time.perf_counter() - start >= args.budget_s:
            rows[v]["skipped"].append(what)
            continue
        try:
            compare_one(rows[v], v, name, launch)
        except Exception as exc:
            rows[v][f"error/{what}"] = repr(exc)[:500]
            report["checks"].append(dict(variant=v, config=what, error=repr(exc)[:500], ok=False))
        print("COMPARE", v, what, {k: x for k, x in rows[v].items() if what.split("/")[-1] in k
                                   and not k.startswith("check")}, f"({time.perf_counter() - start:.0f} s)",
              flush=True)
    for r in rows.values():
        report["checks"] += [c for k, c in r.items() if k.startswith("check_launch/")]
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
