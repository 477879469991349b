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

With `--kernel verify` the versions' speculative verification is compared instead: each
case is loaded with max_drafts = T_MAX (--max-drafts, default 8; the tabled launch is the
`__T8__` configuration's verify entry, and `@` overrides replace its fields). Check: from
the same random pool (seed 7), one verify launch per version with staggered cursors
(slot % L) and a seeded per-row draft count in 0..T_MAX; its outputs, the ring records
(drafts written at rows n + i) and the drafted counts against the first version's, and the
checkpoint bit-identical before and after. Time: `Workload.time_kernel(timer, "verify",
BATCH)` (T_MAX drafts past L/2 committed records, CUDA-graph median), versions
interleaved round by round. Example (H200):
    python bench/template_ab.py --kernel verify --templates templates,bench/ab_templates/vv1 \
        --cases kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32 --rounds 3 --out DIR
With `--kernel fold` (the same speculative configurations) the fold kernel is compared:
check, from the same pool, a verify, a commit of seeded accepted counts and a flush of
every row (the materialised states after each); time, a flush of L - 1 records per row
(`time_kernel(.., "fold", ..)`, what the tuner times) and a commit of T_MAX drafts per
row at staggered cursors, one row in CAP // T_MAX + 1 folding (`"commit"`, what the tuner
times for the commit's launch; until session 25 it set every row to L committed records,
which have not folded since CAP = L). `@` overrides replace the `fold` entry's fields, and
the commit takes the same launch.
With `--kernel verify_fold` the cases load with verify_folds=True and the verify's launch
of the folding rows is compared: check, one verify of T_MAX drafts with every row at
L - 1 committed records (all fold first; outputs, materialised states, cursors 0); time,
`time_kernel(.., "verify_fold", ..)`. `@` overrides replace the `verify_fold` entry's
fields.
With `--kernel conventional_decode` the conventional step is compared: check, one step
per version from the same state pool and inputs (outputs and updated states); time,
`time_kernel(.., "conventional_decode", ..)`. `@` overrides replace its tabled entry's
fields.
With `--kernel conventional_spec` (the speculative configurations) issue 3's snapshot
baseline is compared (`conventional_verify` and `conventional_select`, which have no tuned
launch: `@` overrides do not apply): check, from the same pool and drafts, seeded draft
counts and accepted counts (the drafts' outputs, the snapshots written, the pool after the
install); time, `time_kernel(.., "conventional_spec", ..)` (T_MAX drafts, all accepted).
Dry run of the check in the interpreter (CPU): add `--no-time --batch 2`.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402  (puts the repository on sys.path)
import torch  # noqa: E402

import replaygen  # noqa: E402
from harness import rel_err  # noqa: E402
from replaygen.perf import Timer, Workload, environment  # noqa: E402
from replaygen.tuning import compile_options  # noqa: E402

CASES = ("gdn:qwen3.5-4b:fp32,gdn:qwen3.5-122b-a10b:fp32,mamba2:nemotron3-nano-4b:fp32,"
         "mamba2:nemotron3-super-120b:fp32,gdn:qwen3.5-4b:nvfp4,mamba2:nemotron3-nano-4b:nvfp4,"
         "gdn:qwen3.5-4b:fp8")
VERIFY_CASES = "kda:kimi-linear-48b:fp32,gla:gla-1.3b:fp32"
L = 16
BATCH = 256   # (--batch: a small one for a dry run of the check in the interpreter)
KERNEL = "replay_decode"   # (--kernel verify: the speculative verification instead)
T_MAX = 8                  # (--max-drafts: the drafts of a verify case)


def load(folder: str, variant: str, geometry: str, read: str, device=None):
    """The kernels of one case rendered through the templates in `folder` (`folder@k=v+...`:
    with the timed kernel's tabled launch overridden, see the docstring)."""
    folder, _, over = folder.partition("@")
    common.use_templates(folder)
    kern = replaygen.load(variant, config=geometry, L=L, state_dtype="fp32", record_dtype="bf16",
                          read_dtype=None if read == "fp32" else read,
                          max_drafts=T_MAX if KERNEL in SPECULATIVE_KERNELS else None,
                          verify_folds=KERNEL == "verify_fold")
    if over:
        import dataclasses
        # (the interpreter's dry run, with no table of its own, takes the H200's batch-256 one)
        rows = BATCH if device.type == "cuda" else 256
        base = kern.tabled_launch(KERNEL, rows, device) or (
            kern.tuning and kern.tuning.lookup(kern.plan.name, KERNEL, "NVIDIA H200", rows))
        if base is None:
            raise SystemExit(f"{folder}@{over}: no tabled {KERNEL} launch to override on {device}")
        fields = common.launch_fields((kv.split("=") for kv in over.split("+")), f"{folder}@{over}")
        kern.forced[KERNEL] = dataclasses.replace(base, **fields)
        if KERNEL == "fold":   # the commit's launch of the fold kernel too
            kern.forced["commit"] = kern.forced[KERNEL]
    return kern


def check(kerns, device, batch: int | None = None) -> dict:
    """One staggered cycle from the same pool per version, against the first version
    (also bench/config_ab.py's check: versions that differ in configuration)."""
    batch = batch or BATCH
    outs, states = [], []
    for kern in kerns:
        work = Workload(kern, batch, device, seed=7)   # same seed: the same pool and inputs
        work.staggered()()
        steps = []
        for _ in range(kern.plan.L):
            work.out.fill_(float("nan"))
            work.decode(batch)
            steps.append(work.out[:batch].clone())
        outs.append(torch.stack(steps))
        kern.flush(work.state, work.all_slots)
        states.append(kern.materialize(work.state, work.all_slots))
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "state": [rel_err(s, states[0].double()) for s in states],
            "nan": [bool(torch.isnan(o).any()) for o in outs]}


def check_verify(kerns, device) -> dict:
    """One verify launch per version from the same pool (staggered cursors, seeded draft
    counts per row), against the first version: outputs, ring records, drafted counts."""
    outs, rings, drafted, ckpt_same = [], [], [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)   # same seed: the same pool and drafts
        work.staggered()()
        gen = torch.Generator(device=device).manual_seed(3)
        counts = torch.randint(0, kern.plan.T_MAX + 1, (BATCH,), generator=gen, device=device,
                               dtype=torch.int32)
        for r in work.state.ring.values():   # rows past the pool's records: never written
            r[:, :, L - 1:] = 0                # (uninitialised memory) before the drafts' rows
        ckpt = work.state.checkpoint.clone()
        out = kern.verify(work.state, work.all_slots[:BATCH], num_drafts=counts,
                          **{n: t[:BATCH] for n, t in work.drafts.items()})
        outs.append(out.clone())
        rings.append({f: r.clone() for f, r in work.state.ring.items()})
        drafted.append(work.state.drafted.clone())
        ckpt_same.append(bool(torch.equal(ckpt, work.state.checkpoint)))
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "ring": [max(rel_err(r[f], rings[0][f].double()) for f in r) for r in rings],
            "drafted": [bool(torch.equal(d, drafted[0])) for d in drafted],
            "ckpt_unchanged": ckpt_same,
            "nan": [bool(torch.isnan(o).any()) for o in outs]}


def check_fold(kerns, device) -> dict:
    """From the same pool per version: a verify (staggered cursors, seeded draft counts), a
    commit of seeded accepted counts (the rows reaching L fold), then a flush of every row;
    the materialised states after the commit and after the flush against the first
    version's."""
    committed, flushed = [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)
        work.staggered()()
        work.speculate(BATCH)
        committed.append(kern.materialize(work.state, work.all_slots))
        kern.flush(work.state, work.all_slots)
        flushed.append(kern.materialize(work.state, work.all_slots))
        del work
    return {"commit": [rel_err(s, committed[0].double()) for s in committed],
            "flush": [rel_err(s, flushed[0].double()) for s in flushed],
            "nan": [bool(torch.isnan(s).any()) for s in committed + flushed]}


def check_verify_fold(kerns, device) -> dict:
    """One verify of T_MAX drafts per version from the same pool with every row at L - 1
    committed records (verify_folds: every row folds them first), against the first
    version: outputs, the materialised states after it (the folded checkpoints), and the
    cursors (all 0)."""
    outs, states, cursors_zero = [], [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)
        work.cursors(L - 1)()
        out = kern.verify(work.state, work.all_slots[:BATCH],
                          **{n: t[:BATCH] for n, t in work.drafts.items()})
        outs.append(out.clone())
        states.append(kern.materialize(work.state, work.all_slots[:BATCH]))
        cursors_zero.append(bool((work.state.cursor[:BATCH] == 0).all()))
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "state": [rel_err(s, states[0].double()) for s in states],
            "cursor0": cursors_zero,
            "nan": [bool(torch.isnan(o).any() or torch.isnan(s).any()) for o, s in zip(outs, states)]}


def check_conventional(kerns, device) -> dict:
    """One conventional step per version from the same state pool and inputs, against the
    first version: outputs and the updated states."""
    outs, states = [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)   # same seed: the same pool and inputs
        work.out.fill_(float("nan"))
        work.conventional(BATCH)
        outs.append(work.out[:BATCH].clone())
        states.append(work.pool[:BATCH].clone())
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "state": [rel_err(s, states[0].double()) for s in states],
            "nan": [bool(torch.isnan(o).any()) for o in outs]}


def check_conventional_spec(kerns, device) -> dict:
    """One conventional speculative step per version from the same state pool and drafts
    (seeded draft counts 0..T_MAX per row; snapshots poisoned with NaN first), then an
    install of seeded accepted counts (0..drafts), against the first version: the drafts'
    outputs, the snapshots each row wrote (its first count ones) and the pool after the
    install."""
    outs, snaps, pools = [], [], []
    for kern in kerns:
        work = Workload(kern, BATCH, device, seed=7)   # same seed: the same pool and drafts
        gen = torch.Generator(device=device).manual_seed(3)
        counts = torch.randint(0, kern.plan.T_MAX + 1, (BATCH,), generator=gen, device=device,
                               dtype=torch.int32)
        accepted = (torch.rand(BATCH, generator=gen, device=device) * (counts + 1)).to(torch.int32)
        slots = work.all_slots[:BATCH]
        snap = torch.full(kern.snapshot_shape(BATCH), float("nan"), dtype=work.pool.dtype, device=device)
        out = kern.conventional_verify(work.pool, slots, snap, num_drafts=counts, **work.params,
                                       **{n: t[:BATCH] for n, t in work.drafts.items()})
        written = torch.arange(kern.plan.T_MAX, device=device)[None, :] < counts[:, None]
        outs.append(out.clone())
        snaps.append(snap[written].clone())
        kern.conventional_commit(work.pool, slots, snap, accepted)
        pools.append(work.pool[:BATCH].clone())
        del work
    return {"out": [rel_err(o, outs[0].double()) for o in outs],
            "snapshots": [rel_err(s, snaps[0].double()) for s in snaps],
            "pool": [rel_err(p, pools[0].double()) for p in pools],
            "nan": [bool(torch.isnan(o).any() or torch.isnan(s).any()) for o, s in zip(outs, snaps)]}


# the speculative kernels (loaded with max_drafts = T_MAX)
SPECULATIVE_KERNELS = ("verify", "verify_fold", "fold", "conventional_spec")
# the comparisons other than the replay decode's: (check, timed quantities of
# Workload.time_kernel, the launch constants recorded)
KERNEL_CHECKS = {
    "conventional_decode": (check_conventional, ("conventional_decode",), ("BV", "NV")),
    "conventional_spec": (check_conventional_spec, ("conventional_spec",), ("BV", "NV")),
    "verify": (check_verify, ("verify",), ("BV", "NV", "BKT", "DBV", "HPP", "STREAM_STAGES")),
    "verify_fold": (check_verify_fold, ("verify_fold",),
                    ("BV", "NV", "BKT", "DBV", "HPP", "STREAM_STAGES")),
    "fold": (check_fold, ("fold", "commit"), ("BV", "NV", "BL"))}


def _check_line(check: dict) -> str:
    """Errors against the first version (floats) and per-version flags (bools)."""
    parts = []
    for key, vals in check.items():
        if all(isinstance(v, bool) for v in vals):
            parts.append(f"{key} " + "".join("1" if v else "0" for v in vals))
        else:
            parts.append(f"{key} " + "/".join(f"{v:.0e}" for v in vals[1:]))
    return " ".join(parts)


def launch_of(kern, device) -> tuple[dict, dict]:
    """(constexpr arguments, launch options) of the compared kernel: its tabled launch, or
    for the snapshot baseline (launched with the module's constants, no table) those."""
    if KERNEL == "conventional_spec":
        return dict(kern.module.CONSTEXPRS), compile_options(kern.module.NUM_WARPS)
    return kern.launch_args(KERNEL, BATCH, device)


def main_kernel(args, folders, device, timer) -> int:
    """--kernel verify / verify_fold / fold / conventional_decode: the check and the times per
    case (see the docstring)."""
    check_fn, quantities, keys = KERNEL_CHECKS[KERNEL]
    result = {"meta": environment(sys.argv), "kernel": KERNEL, "max_drafts": T_MAX,
              "templates": folders, "cases": []}
    for case in args.cases.split(","):
        variant, geometry, read = case.split(":")
        kerns = [load(f, variant, geometry, read, device) for f in folders]
        launches = [launch_of(k, device) for k in kerns]
        entry = {"case": case, "kernel": kerns[0].name,
                 "launch": [{k: c[k] for k in keys if k in c} for c, _ in launches],
                 "options": [o for _, o in launches],
                 "check": check_fn(kerns, device), "times": [[] for _ in folders]}
        works = [] if args.no_time else [Workload(k, BATCH, device) for k in kerns]
        for _ in range(args.rounds if works else 0):
            for i, work in enumerate(works):
                entry["times"][i].append({q: work.time_kernel(timer, q, BATCH) for q in quantities})
        del works
        med = [{q: sorted(t[q] for t in ts)[len(ts) // 2] for q in ts[0]} if ts else {}
               for ts in entry["times"]]
        entry["median"] = med
        result["cases"].append(entry)
        print(f"{case:<32} {_check_line(entry['check'])} | "
              + " | ".join(" ".join(f"{q} {m[q]:.4f}" for q in m) for m in med) + " | "
              + " ".join(f"{q} {med[0][q] / m[q]:.3f}x" for m in med[1:] for q in m), flush=True)
        (args.out / "template_ab.json").write_text(json.dumps(result, indent=1))
    return 0


def main() -> int:
    global BATCH, KERNEL, T_MAX
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", required=True, help="template folders, comma-separated")
    ap.add_argument("--cases", default=None, help=f"variant:geometry:read,... (default: {CASES}; "
                    f"with --kernel verify: {VERIFY_CASES})")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--no-time", action="store_true", help="the check only (runs on a CPU too)")
    ap.add_argument("--kernel", choices=("replay_decode", "verify", "verify_fold", "fold",
                                         "conventional_decode", "conventional_spec"),
                    default="replay_decode",
                    help="the kernel compared (default: %(default)s)")
    ap.add_argument("--max-drafts", type=int, default=T_MAX, help="T_MAX of --kernel verify")
    args = ap.parse_args()
    BATCH, KERNEL, T_MAX = args.batch, args.kernel, args.max_drafts
    args.cases = args.cases or (VERIFY_CASES if KERNEL in ("verify", "verify_fold") else CASES)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    folders = args.templates.split(",")
    timer = None if args.no_time else Timer(device)
    if KERNEL in KERNEL_CHECKS:
        args.out.mkdir(parents=True, exist_ok=True)
        return main_kernel(args, folders, device, timer)
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
