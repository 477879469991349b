"""Re-time the tuning tables' entries through the runtime's own lookup, on this GPU.

Usage (on the H200): python bench/table_audit.py --out DIR [--variants gdn,kda,...]
    [--kernels replay_decode] [--batches 256] [--match SUBSTRING] [--slack 0.10]
The entries it would time, without a GPU: add `--list --gpu "NVIDIA H200"`.

A table entry is a claim: "at this batch, on this GPU, the runtime takes this launch and
it costs `ms`". Serving never re-checks it, and a template change after the sweep can
make the claim stale without any test noticing (the launch still compiles and computes
the right answer). For every entry of the default configurations (emit.table_configs) at
the batch and kernels asked for, this script:

1. loads the configuration with its table and asserts the runtime's launch is the entry's;
2. times it as `replaygen tune` does (perf.Workload.time_kernel: the same quantity,
   e.g. replay_decode amortised over a staggered flush cycle), with nothing forced;
3. times the plan's own launch the same way, in the same run;
4. for replay_decode, also times the amortised cycle as bench/precision_bench.py and
   bench/bench_suite.py do (bench/common.bench: triton's do_bench of a captured cycle,
   fresh N(0, 1) inputs), so a disagreement between the tuner's workload and the
   benchmarks' shows up as such.

The entries are those the runtime takes on this GPU: per configuration, kernel and batch
its own, or where it has none at that batch its nearest stand-in's (TuningTable.stand_ins
and serving_order: the H200's on an H100); --gpu names one GPU's instead. An entry is
flagged when the runtime's time is more than --slack above the table's `ms` (this GPU's
entries only), or when the plan's launch beats it by more than the tuner's margin.
Writes DIR/audit.json (GPU, versions, date, commit, command, every number) and
DIR/audit.md, which ends with the `replaygen tune` command that re-sweeps each flagged
configuration at its flagged batches and kernels; `--retune S` runs them (S seconds of
budget each), writing the committed tables (`generated/`) as `replaygen tune` does.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench  # noqa: E402
import torch  # noqa: E402

from replaygen import load  # noqa: E402
from replaygen.emit import GENERATED_DIR, table_configs  # noqa: E402
from replaygen.perf import Timer, Workload, environment, pool_size, require_cuda  # noqa: E402
from replaygen.runtime import device_name, table_device_names  # noqa: E402
from replaygen.spec import load_variant  # noqa: E402
from replaygen.tune import MARGIN, plan_launch  # noqa: E402
from replaygen.tuning import STALE, TUNING_FILE, Launch, TuningTable  # noqa: E402

VARIANTS = ("mamba2", "gdn", "kda", "gla")


def audit_entry(kern, kernel: str, batch: int, launch: Launch, table_ms: float,
                timer: Timer, device) -> dict:
    taken = kern._launch(kernel, batch, device)[2]
    assert taken == launch, f"{kern.name} {kernel} @ {batch}: runtime takes {taken}, table holds {launch}"
    work = Workload(kern, pool_size([batch]), device)   # the tuner's pool: the same specialisation
    row = {"config": kern.name, "kernel": kernel, "batch": batch, "launch": launch.as_dict(),
           "table_ms": table_ms}
    row["runtime_ms"] = work.time_kernel(timer, kernel, batch)
    kern.forced[kernel] = plan_launch(kern.plan, kernel)
    row["plan_ms"] = work.time_kernel(timer, kernel, batch)
    del kern.forced[kernel]
    if kernel == "replay_decode":
        # the benchmarks' way: a captured whole cycle under do_bench, fresh inputs
        work.staggered()()
        gen = torch.Generator(device=device).manual_seed(11)
        for t in work.inputs.values():
            t.copy_(torch.randn(t.shape, generator=gen, device=device).to(t.dtype))
        row["bench_ms"] = bench(lambda: work.cycle(batch), steps=kern.plan.L)
    del work
    torch.cuda.empty_cache()
    return row


def tune_command(cfg, kernels, batches, budget_s: float) -> list[str]:
    """The `replaygen tune` arguments that re-sweep configuration `cfg` (a KernelConfig
    of emit.table_configs: defaults but for these options) at `batches`."""
    spec = load_variant(cfg.variant)
    geometry = next(c.name for c in spec.configs if dict(c.dims) == cfg.dim_map)
    argv = ["tune", "--variant", cfg.variant, "--config", geometry, "--L", str(cfg.buffer_length),
            "--state-dtype", cfg.state_dtype, "--kernels", ",".join(sorted(kernels)),
            "--batches", ",".join(map(str, sorted(batches))), "--budget-s", f"{budget_s:g}"]
    if cfg.stochastic:
        argv.append("--stochastic")
    if cfg.read_dtype:
        argv += ["--read-dtype", cfg.read_dtype]
        if cfg.read_dtype == "fp8":
            argv += ["--fp8-scale", cfg.fp8_scale]
    if cfg.max_drafts > 1:
        argv += ["--max-drafts", str(cfg.max_drafts)]
    if cfg.verify_folds:
        argv.append("--verify-folds")
    if cfg.decode_structure:
        argv += ["--decode-structure", cfg.decode_structure]
    return argv


def retune_commands(rows, known, budget_s: float) -> list[list[str]]:
    """One `replaygen tune` command per flagged configuration, at its flagged batches and
    kernels."""
    flagged: dict[str, tuple[set, set]] = {}
    for r in rows:
        if r["flag"]:
            kernels, batches = flagged.setdefault(r["config"], (set(), set()))
            kernels.add(r["kernel"])
            batches.add(r["batch"])
    return [tune_command(known[name], k, b, budget_s) for name, (k, b) in flagged.items()]


def markdown(report: dict, slack: float) -> str:
    lines = [f"# Tuning-table audit ({report['gpu']}, {report['date']}, commit {report['commit']})",
             "", f"`{report['command']}`", "",
             "ms per step (replay_decode: amortised over a staggered flush cycle). runtime: the "
             "table's launch taken by the runtime, timed as the tuner times; plan: the plan's "
             "launch, same run; bench: the runtime's launch timed as the benchmarks time it.", "",
             "| config | kernel | batch | launch | table GPU | table ms | runtime ms | plan ms | plan / runtime | bench ms | flag |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        launch = " ".join(f"{k}={v}" for k, v in r["launch"].items())
        bench_ms = f"{r['bench_ms']:.4f}" if "bench_ms" in r else ""
        lines.append(f"| {r['config']} | {r['kernel']} | {r['batch']} | {launch} | "
                     f"{r.get('table_gpu', report['gpu'])} | {r['table_ms']:.4f} | "
                     f"{r['runtime_ms']:.4f} | {r['plan_ms']:.4f} | "
                     f"{r['plan_ms'] / r['runtime_ms']:.2f}x | {bench_ms} | {r['flag']} |")
    lines += ["", f"flag: `stale` when runtime ms > (1 + {slack}) x table ms (entries of this "
              f"GPU only: a stand-in's ms was timed on another); `plan` when the "
              f"plan's launch is more than {MARGIN:.0%} faster than the table's."]
    if report.get("retune"):
        lines += ["", "Re-sweep the flagged configurations:", ""]
        lines += [f"    python -m replaygen {' '.join(argv)}" for argv in report["retune"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--kernels", default="replay_decode")
    ap.add_argument("--batches", default="256", help="batch buckets, comma-separated")
    ap.add_argument("--match", default="", help="only configurations whose name contains this")
    ap.add_argument("--slack", type=float, default=round(STALE - 1, 6))
    ap.add_argument("--gpu", default=None,
                    help="audit this GPU name's entries (default: those the runtime takes here)")
    ap.add_argument("--list", action="store_true", help="list the entries, time nothing (no GPU)")
    ap.add_argument("--retune", type=float, default=0.0, metavar="S",
                    help="re-sweep each flagged configuration with `replaygen tune` (S s each)")
    args = ap.parse_args(argv)
    device = None if args.list else require_cuda("table_audit")
    if args.list and not args.gpu:
        ap.error("--list times nothing on no GPU: name the table's GPU with --gpu")
    here = None if args.list else device_name(device)
    timer = None if args.list else Timer(device)
    kernels = args.kernels.split(",")
    batches = {int(b) for b in args.batches.split(",")}
    report = dict(environment(argv), rows=[])
    configs = {}
    report["command"] = "python bench/table_audit.py " + " ".join(sys.argv[1:] if argv is None else argv)
    t0 = time.perf_counter()
    for variant in args.variants.split(","):
        path = GENERATED_DIR / variant / TUNING_FILE
        known = table_configs(load_variant(variant))
        configs.update(known)
        table = TuningTable.read(path, variant)
        # the entries the runtime takes here: per configuration, kernel and batch, this
        # GPU's, or where it has none at that batch its nearest stand-in's (the H200's on an
        # H100; TuningTable.serving_order); timed on another GPU, their `ms` is no claim
        # about this one, so only the plan's launch beating them is flagged there
        rank = {g: i for i, g in enumerate([args.gpu] if args.gpu else table_device_names(device, table))}
        owner: dict[tuple[str, str, int], str] = {}
        for g, name, kernel, batch, *_ in table.entries():
            if g in rank and rank[g] < rank.get(owner.get((name, kernel, batch)), len(rank)):
                owner[name, kernel, batch] = g
        for gpu, name, kernel, batch, launch, info in table.entries():
            if (owner.get((name, kernel, batch)) != gpu or batch not in batches or kernel not in kernels
                    or name not in known or args.match not in name):
                continue
            own = gpu == here
            ms = info["ms"]
            if args.list:
                print(f"{name} {kernel} {batch}: {launch.as_dict()} {ms:.4f} ms")
                continue
            kern = load(variant, tuning=path, **known[name].load_options())
            row = audit_entry(kern, kernel, batch, launch, ms, timer, device)
            row["table_gpu"] = gpu
            row["flag"] = ("stale" if own and row["runtime_ms"] > (1 + args.slack) * ms else
                           "plan" if row["plan_ms"] * (1 + MARGIN) < row["runtime_ms"] else "")
            report["rows"].append(row)
            print(f"{name} {kernel} {batch}: table {ms:.4f} runtime {row['runtime_ms']:.4f} "
                  f"plan {row['plan_ms']:.4f} bench {row.get('bench_ms', float('nan')):.4f} "
                  f"{row['flag']}", flush=True)
    if args.list:
        return 0
    report["seconds"] = round(time.perf_counter() - t0, 1)
    report["retune"] = retune_commands(report["rows"], configs, args.retune or 120)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "audit.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "audit.md").write_text(markdown(report, args.slack))
    if args.retune:
        for command in report["retune"]:
            print("python -m replaygen " + " ".join(command), flush=True)
            subprocess.run([sys.executable, "-m", "replaygen", *command], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
