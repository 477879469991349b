"""Where a speculative step's time goes: the kernels of a staggered verify + commit cycle.

Usage (on the H200): python bench/spec_breakdown.py --out DIR
    [--variants mamba2,gdn,kda,gla] [--batch 256] [--drafts 8] [--cycles 20]

For each variant (bench/common.py GEOMS, fp32 checkpoint, bf16 records, L = 16) and each
protocol (PROTOCOLS: the commit folds; `verify_folds=True`: the verify folds), the rows are
staggered over the flush cycle as in spec_bench.py's timing (full acceptance), and
`--cycles` whole cycles run eagerly under torch.profiler: each kernel's device time, summed
per kernel name and divided by the number of steps, is that kernel's share of a step. Next to it the
CUDA-graph median of the same cycle (spec_bench.py's verify_commit) and one conventional
decode step: the difference between the graph time and the kernels' sum is what the
launches cost beyond their kernels (gaps, tails). With --in-phase every row sits at the
same point of the cycle, so each launch serves all rows or none, and the kernels are
kept apart per step of the cycle: what a launch of only empty programs costs (the other
launch's rows exit at once), what each launch costs with every row working, and a
verify_folds commit with and without record moves. Writes DIR/spec_breakdown.json and
DIR/spec_breakdown.md (DIR/spec_breakdown_in_phase.* with --in-phase).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, random_params  # noqa: E402
from spec_bench import StaggeredCycle, load_kernels, write_report  # noqa: E402
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from replaygen.perf import environment  # noqa: E402


# (name, verify_folds). bench/proto/s51_vf_inplace_queue.diff adds rows that turn its plan
# choices off, for its A/B (session 52).
PROTOCOLS = (("verify folds", True),
             ("commit folds", False))


def cycle_breakdown(kern, params, batch, T, cycles, device, in_phase=False):
    cyc = StaggeredCycle(kern, params, batch, T, device, stagger=not in_phase)
    for _ in range(2):   # into the steady state (and compiled)
        cyc.cycle()
    torch.cuda.synchronize()
    steps = cycles * cyc.period
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(cycles):
            cyc.cycle()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:   # the Chrome trace: stable across versions
        prof.export_chrome_trace(f"{tmp}/trace.json")
        trace = json.loads(Path(f"{tmp}/trace.json").read_text())
    launches = sorted((ev for ev in trace["traceEvents"] if ev.get("cat") == "kernel"),
                      key=lambda ev: ev["ts"])
    if len(launches) % steps:
        raise RuntimeError(f"{len(launches)} kernels in {steps} steps: not the same per step")
    per_step = len(launches) // steps
    # a step's launches in order (the plain and the FOLDING verify share a kernel name)
    per_kernel = defaultdict(float)
    for i, ev in enumerate(launches):
        at = f"step {i // per_step % cyc.period}, " if in_phase else ""
        per_kernel[f"{at}{i % per_step}: {ev['name']}"] += ev["dur"] / 1e3
    share = 1 / cyc.period if in_phase else 1.0   # launches of each key per step
    kernels = {name: dict(ms_per_step=t / steps, launches_per_step=share,
                          ms_per_launch=t / steps / share)
               for name, t in sorted(per_kernel.items())}
    graph = bench(cyc.cycle, steps=cyc.period)
    decode = cyc.conventional_decode_ms()
    kernel_sum = sum(k["ms_per_step"] for k in kernels.values())
    return dict(batch=batch, T=T, cycle_steps=cyc.period, kernels=kernels, kernel_sum=kernel_sum,
                graph_step=graph, conventional_decode=decode,
                ratio_to_decode=graph / decode)


def markdown(report) -> str:
    lines = [f"# Speculative step breakdown ({report['meta'].get('gpu', '?')}, "
             f"{report['meta'].get('date', '')}, commit {report['meta'].get('commit', '?')})",
             "", f"`{report['meta']['command']}`", "",
             "| variant | protocol | kernel | launches / step | ms / launch | ms / step |",
             "|---|---|---|---|---|---|"]
    for r in report["runs"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | {r['protocol']} | error: {r['error'][:200]} | | | |")
            continue
        for name, k in r["kernels"].items():
            lines.append(f"| {r['variant']} | {r['protocol']} | `{name[:70]}` | "
                         f"{k['launches_per_step']:.2f} | {k['ms_per_launch']:.4f} | "
                         f"{k['ms_per_step']:.4f} |")
        lines.append(f"| {r['variant']} | {r['protocol']} | **kernels' sum / graph step / "
                     f"decode** | | | {r['kernel_sum']:.4f} / {r['graph_step']:.4f} / "
                     f"{r['conventional_decode']:.4f} ({r['ratio_to_decode']:.3f}x) |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="bench/results/spec_breakdown")
    ap.add_argument("--variants", default=",".join(GEOMS))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--drafts", type=int, default=8)
    ap.add_argument("--cycles", type=int, default=20)
    ap.add_argument("--protocols", default="",
                    help="comma-separated names of PROTOCOLS (default: all)")
    ap.add_argument("--in-phase", action="store_true",
                    help="every row at the same point of the cycle (see the module docstring)")
    args = ap.parse_args(argv)
    unknown = set(filter(None, args.protocols.split(","))) - {p[0] for p in PROTOCOLS}
    if unknown:   # (a misspelt name would silently run nothing)
        ap.error(f"--protocols: unknown {sorted(unknown)}; PROTOCOLS are {[p[0] for p in PROTOCOLS]}")
    device = "cuda"
    meta = environment()
    meta["command"] = "python bench/spec_breakdown.py " + " ".join(sys.argv[1:] if argv is None else argv)
    report = dict(meta=meta, runs=[])
    for variant in [v for v in args.variants.split(",") if v]:
        for protocol, vf in PROTOCOLS:
            if args.protocols and protocol not in args.protocols.split(","):
                continue
            try:
                kern = load_kernels(variant, args.drafts, verify_folds=vf)
                params = random_params(kern, device, torch.Generator(device=device).manual_seed(1))
                r = cycle_breakdown(kern, params, args.batch, args.drafts, args.cycles, device,
                                    args.in_phase)
            except Exception as exc:   # record and go on
                r = dict(error=repr(exc)[:2000])
            r = dict(variant=variant, protocol=protocol, **r)
            print("RUN", json.dumps(r), flush=True)
            report["runs"].append(r)
    write_report(args.out, "spec_breakdown" + ("_in_phase" if args.in_phase else ""), report,
                 markdown(report))


if __name__ == "__main__":
    main()
