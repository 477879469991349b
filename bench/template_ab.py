"""A/B timing of two (or more) versions of the templates on the same configurations and
launches, in one GPU run, with a check that they compute the same thing.

Usage (on the H200, from the repository root):
    python bench/template_ab.py --templates bench/ab_templates/v0,templates --out DIR \
        [--cases gdn:qwen3.5-4b:fp32,mamba2:nemotron3-super-120b:nvfp4,...] [--rounds 2]

A folder may carry decode-launch overrides after an @: `bench/ab_templates/v2@maxnreg=168`
(fields of replaygen.tuning.Launch, `,`-free: several with `+`, e.g. `@maxnreg=168+num_stages=4`):
that version's decode runs the tabled launch with those fields replaced (the check and the
times); versions without one run the tabled launch as it is.

Each template folder renders its own modules (replaygen.render is pointed at it and its
Jinja environment rebuilt; the modules' names carry their text's hash, so both versions
load side by side). A case is variant:geometry:read (read: fp32 for none, fp8 or nvfp4),
batch 256, L = 16, fp32 checkpoint, bf16 records and inputs, launched as the committed
tuning table says (both versions get the same launch).

1. Check: from the same random pool, one staggered flush cycle (L decode launches: every
   row flushes once) per version; every output and the states afterwards against the
   first version's, as normwise relative differences. Versions that only reorder fp32
   arithmetic differ by ~1e-6; a wrong one by O(1) or NaN.
2. Time: `replaygen.perf.Workload.time_replay` (CUDA-graph medians: non-flush at n = L/2,
   every row flushing, and amortised over a staggered cycle), the versions interleaved
   round by round (A B A B) so that drift in the GPU's clocks hits both alike.
Writes DIR/template_ab.json and prints a table of per-version medians and ratios.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402,F401  (puts the repository on sys.path)
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen import render  # noqa: E402
from harness import rel_err  # noqa: E402
from replaygen.perf import Timer, Workload, environment  # noqa: E402

CASES = ("gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,"
         "mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,"
         "gdn:qwen3.5-4b:fp8")
L = 16
BATCH = 256   # (--batch: a small one for a dry run of the check in the interpreter)


def load(folder: str, variant: str, geometry: str, read: str, device=None):
    """The kernels of one case rendered through the templates in `folder` (`folder@k=v+...`:
    with the decode's tabled launch overridden, see the docstring)."""
    folder, _, over = folder.partition("@")
    render.TEMPLATE_DIR = Path(folder).resolve()
    render._environment.cache_clear()
    kern = replaygen.load(variant, config=geometry, L=L, state_dtype="fp32", record_dtype="bf16",
                          read_dtype=None if read == "fp32" else read)
    if over:
        import dataclasses
        from replaygen.runtime import device_name
        # (the interpreter's dry run, with no table of its own, takes the H200's batch-256 one)
        rows = BATCH if device.type == "cuda" else 256
        base = None
        for gpu in (device_name(device), "NVIDIA H200"):
            base = base or (kern.tuning and kern.tuning.lookup(kern.plan.name, "replay_decode", gpu, rows))
        if base is None:
            raise SystemExit(f"{folder}@{over}: no tabled replay_decode launch to override on {device}")
        fields = {k: (None if v == "None" else v == "True" if v in ("True", "False") else int(v))
                  for k, v in (kv.split("=") for kv in over.split("+"))}
        kern.forced["replay_decode"] = dataclasses.replace(base, **fields)
    return kern


def check(kerns, device) -> dict:
    """One staggered cycle from the same pool per version, against the first version."""
    outs, states = [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)   # same seed: the same pool and inputs
        work.staggered()()
        steps = []
        for _ in range(L):
            work.out.fill_(float("nan"))
            work.decode(BATCH)
            steps.append(work.out[:BATCH].clone())
        outs.append(torch.stack(steps))
        kern.flush(work.state, work.all_slots)
        states.append(kern.materialize(work.state, work.all_slots))
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "state": [rel_err(s, states[0].double()) for s in states],
            "nan": [bool(torch.isnan(o).any()) for o in outs]}


def main() -> int:
    global BATCH
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", required=True, help="template folders, comma-separated")
    ap.add_argument("--cases", default=CASES, help="variant:geometry:read,... (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--no-time", action="store_true", help="the check only (runs on a CPU too)")
    args = ap.parse_args()
    BATCH = args.batch
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    folders = args.templates.split(",")
    timer = None if args.no_time else Timer(device)
    result = {"meta": environment(sys.argv), "templates": folders, "cases": []}
    args.out.mkdir(parents=True, exist_ok=True)
    for case in args.cases.split(","):
        variant, geometry, read = case.split(":")
        kerns = [load(f, variant, geometry, read, device) for f in folders]
        launch = kerns[0].launch_args("replay_decode", BATCH, device)[0]
        entry = {"case": case, "kernel": kerns[0].name,
                 "launch": {k: launch[k] for k in ("DBV", "BKT", "BV", "NSPLIT", "STREAM_STAGES",
                                                   "FUSED_FLUSH") if k in launch},
                 "options": [k.launch_args("replay_decode", BATCH, device)[1] for k in kerns],
                 "check": check(kerns, device), "times": [[] for _ in folders]}
        works = [] if args.no_time else [Workload(k, BATCH, device) for k in kerns]
        for _ in range(args.rounds if works else 0):
            for i, work in enumerate(works):
                entry["times"][i].append(work.time_replay(timer, BATCH))
        del works
        med = [{q: sorted(t[q] for t in ts)[len(ts) // 2] for q in ts[0]} if ts else {}
               for ts in entry["times"]]
        entry["median"] = med
        result["cases"].append(entry)
        ratios = " ".join(f"{q} {med[0][q] / m[q]:.3f}x" for m in med[1:] for q in m)
        print(f"{case:<40} out {max(entry['check']['out']):.1e} state "
              f"{max(entry['check']['state']):.1e} nan {any(entry['check']['nan'])} | "
              + " | ".join(" ".join(f"{q} {m[q]:.4f}" for q in m) for m in med) + f" | {ratios}",
              flush=True)
        (args.out / "template_ab.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
