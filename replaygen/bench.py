"""`replaygen bench`: the benchmark suite of issue 5, and its report writer.

Input: variants (each spec's named geometries), batch sizes, ring lengths; a CUDA GPU.
Output, under --out: bench.json (provenance and one row per variant, geometry, L and
batch), bench.csv (the same rows flattened), bench.md (tables, and where the replay step
pays: per variant, geometry and L, the crossover batch and the batches at which the
runtime's size-based dispatch folds every step) and speedup.png (speedup vs batch per
variant; needs matplotlib, optional: skipped with a note when absent).
Invariants: fp32 checkpoints, bf16 records, inputs and outputs; throwaway buffers only
(`perf.Workload`); every time in a row comes from the same process and run as the copy
bandwidth it is compared with; bytes come from the sympy traffic model
(replaygen/traffic.py), never from the measured times; external baselines are timed only
after their output and new state matched our conventional kernel on the same inputs.

Per row (ms per decode step of the whole batch, CUDA-graph medians; `*_eager` with
--eager): conventional (our conventional kernel; measured once per geometry and batch,
it does not depend on L), nonflush (replay step, every row at n = L/2), flush_step (every
row's ring fills, so every row folds), amortised (a whole flush cycle of L launches with
row i at ring position i mod L, so every launch mixes flushing and non-flushing rows,
divided by L), baselines (external conventional kernels), speedup (conventional /
amortised), speedup_vs_best (the fastest conventional kernel, ours or external, over
amortised), bandwidth in bytes/s and as a fraction of the copy bandwidth;
tabled_amortised, where the tuning table has an entry for the decode at exactly this batch
(the amortised time its sweep recorded), and a note when the row measured more than
tuning.STALE times it (the entry has gone stale since its sweep).
"""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

SCHEMA = 1
DEFAULT_BATCHES = (1, 8, 64, 256, 512)
DEFAULT_LS = (8, 16, 32)
QUICK = dict(batches=(8, 256), Ls=(16,))
TIMES = ("conventional", "nonflush", "flush_step", "amortised")


# -- the suite (GPU) ---------------------------------------------------------------------------
def _launch_used(kern, rows, device) -> dict:
    """The tiles and options each timed kernel launched with, and `table`: the GPU whose
    tuning entry they come from (the device's own or a stand-in's: on an H100, per batch
    bucket, its own or the H200's), or "plan" (untuned)."""
    from .plan import decode_is_chunked
    out = {}
    for k in ("replay_decode", "conventional_decode"):
        consts, launch = kern.launch_args(k, rows, device)
        tiles = ("DBV", "BKT") if k == "replay_decode" and decode_is_chunked(kern.plan) else ("BV",)
        out[k] = {**{t: consts[t] for t in tiles}, **launch,
                  "table": kern.tuned_gpu(device, k, rows) or "plan"}
    return out


_BYTES: dict[str, tuple[dict, float]] = {}


def _bytes(kern, rows) -> dict:
    """Bytes per token (per sequence) of each measured step from the sympy traffic model,
    and per step of `rows` rows; evaluated once per configuration."""
    if kern.name not in _BYTES:
        from .traffic import traffic
        t = traffic(kern.plan)
        b = {"conventional": t.evaluate(t.conventional), "flush_step": t.evaluate(t.flush_step),
             "amortised": t.evaluate(t.amortised)}
        if kern.plan.L >= 2:
            b["nonflush"] = t.evaluate(t.step, kern.plan.L // 2)
        _BYTES[kern.name] = (b, float(t.evaluate(t.speedup_cap)))
    b, cap = _BYTES[kern.name]
    return {"per_token": dict(b), "speedup_cap": cap, "per_step": {k: v * rows for k, v in b.items()}}


def _tuning_for(tuning_dir, variant):
    from .tuning import TUNING_FILE
    if tuning_dir is None:
        return None              # the committed table
    path = Path(tuning_dir) / variant / TUNING_FILE
    return path if path.is_file() else None


def run_suite(args, log=print, progress=None) -> dict:
    """The suite; `progress(report)` is called after each geometry with the rows so far
    (the command writes bench.json then, so a run cut short keeps what it measured)."""
    from . import baselines as B
    from .perf import Timer, Workload, copy_bandwidth, environment, pool_size, precompile, require_cuda
    from .runtime import device_name, load
    from .spec import load_variant

    device = require_cuda("bench")
    start = time.perf_counter()
    meta = environment()
    log(f"replaygen bench on {meta['gpu']} (driver {meta['driver']}, torch {meta['torch']}, "
        f"triton {meta['triton']}, commit {meta['commit']})")
    timer = Timer(device, reps=args.reps)
    copy = copy_bandwidth(device, timer)
    log(f"copy bandwidth: {copy['eager'] / 1e12:.2f} TB/s eager, {copy['graph'] / 1e12:.2f} TB/s graph")
    slots = pool_size(args.batches)
    gpu = device_name(device)

    plan = []      # (variant, config, {L: kern})
    tasks = []
    for variant in args.variants:
        spec = load_variant(variant)
        tuning = _tuning_for(args.tuning, variant)
        for config in ([spec.configs[0]] if args.quick else spec.configs):
            kerns = {L: load(variant, config=config.name, L=L, state_dtype="fp32",
                             record_dtype="bf16", tuning=tuning) for L in args.L}
            plan.append((variant, config.name, kerns))
            for i, (L, kern) in enumerate(kerns.items()):
                kernels = ["replay_decode"] + (["conventional_decode"] if i == 0 else [])
                launches = {(k, kern.tabled_launch(k, b, device)) for k in kernels for b in args.batches}
                p = kern.plan
                tasks.append((variant, dict(L=L, state_dtype="fp32", record_dtype="bf16",
                                            **p.config.dim_map), sorted(launches, key=str),
                              tuple(args.batches), str(device)))
    t0 = time.perf_counter()
    precompile(tasks, args.jobs, log)
    log(f"precompiled in {time.perf_counter() - t0:.1f} s")

    rows, notes = [], []
    report = dict(schema=SCHEMA, meta=meta, copy_bytes_per_s=copy, rows=rows, notes=notes,
                  settings=dict(batches=list(args.batches), L=list(args.L),
                                variants=list(args.variants), eager=args.eager,
                                quick=args.quick, reps=args.reps),
                  complete=False)
    deadline = start + args.budget_s if args.budget_s else float("inf")
    for variant, config, kerns in plan:
        if time.perf_counter() > deadline:
            notes.append(f"time budget ({args.budget_s} s) reached: {variant} {config} not measured")
            continue
        conventional = {}
        found = [(b, *B.find(b)) for b in B.for_spec(variant)]
        for b, fn, note in found:
            if fn is None:
                notes.append(f"{variant}: baseline {b.name} skipped: {note}")
        for L, kern in kerns.items():
            try:
                work = Workload(kern, slots, device)
            except Exception as exc:  # noqa: BLE001 - reported, the suite goes on
                notes.append(f"{kern.name}: buffers failed: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            for rows_ in args.batches:
                r = dict(variant=variant, config=config, kernel=kern.name, L=L, batch=rows_,
                         state_dtype="fp32", record_dtype="bf16", input_dtype="bf16",
                         launch=_launch_used(kern, rows_, device),
                         fold_every_step=kern.folds_every_step(rows_))
                try:
                    if rows_ not in conventional:   # independent of L: once per batch
                        conventional[rows_] = _conventional_times(kern, work, rows_, found, timer,
                                                                  args.eager, notes)
                    r.update(conventional[rows_])
                    r.update(work.time_replay(timer, rows_))
                    _check_against_table(kern, gpu, r, notes)
                    if args.eager:
                        for k, v in work.time_replay(timer, rows_, graph=False).items():
                            r[k + "_eager"] = v
                except Exception as exc:  # noqa: BLE001 - reported in the row, the suite goes on
                    r["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                    notes.append(f"{kern.name} batch {rows_}: {r['error']}")
                r.update(_bytes(kern, rows_))
                derive_ratios(r, copy["best"])
                rows.append(r)
                log(row_line(r))
            del work
        report["seconds"] = round(time.perf_counter() - start, 1)
        if progress:
            progress(report)
    report["complete"] = True
    report["notes"] = list(dict.fromkeys(notes))     # one line per distinct skip
    return report


def _conventional_times(kern, work, rows, found, timer, eager, notes) -> dict:
    """Our conventional step and every available external baseline (checked first) at
    `rows` rows, on the workload's pool."""
    from . import baselines as B
    c = {"conventional": timer(lambda: work.conventional(rows))}
    if eager:
        c["conventional_eager"] = timer(lambda: work.conventional(rows), graph=False)
    c["baselines"] = {}
    for b, fn, note in found:
        if fn is None:
            continue
        where = f"{kern.plan.spec_name} {kern.name} batch {rows}: {b.name}"
        try:
            step, check = B.prepare(b, fn, kern, work, rows)
            entry = dict(source=note, **check)
            if check["ok"]:
                entry["ms"] = timer(step)
                if eager:
                    entry["ms_eager"] = timer(step, graph=False)
            else:
                notes.append(f"{where} differs from ours (out {check['err_out']:.2e}, state "
                             f"{check['err_state']:.2e}); not timed")
        except Exception as exc:  # noqa: BLE001 - reported, the suite goes on
            entry = dict(source=note, ok=False, error=f"{type(exc).__name__}: {str(exc)[:300]}")
            notes.append(f"{where} failed: {entry['error']}")
        c["baselines"][b.name] = entry
    return c


def _check_against_table(kern, gpu: str, r: dict, notes: list[str]) -> None:
    """The row's amortised time against what the tuning table recorded for its decode
    launch at this batch (the same quantity, timed the same way): `tabled_amortised`, and
    a note when the entry has gone stale (tuning.STALE)."""
    from .tuning import STALE
    info = kern.tuning.recorded(kern.name, "replay_decode", gpu, r["batch"]) if kern.tuning else None
    if info is None or not r.get("amortised"):
        return
    r["tabled_amortised"] = info["ms"]
    if r["amortised"] > STALE * info["ms"]:
        notes.append(f"{kern.name} batch {r['batch']}: amortised {r['amortised']:.4f} ms, its "
                     f"tuning entry recorded {info['ms']:.4f}: stale, re-tune it "
                     f"(bench/table_audit.py)")


def derive_ratios(r: dict, copy_bps: float) -> None:
    """Speedups and bandwidths of one row, from its times and bytes."""
    times = {k: r[k] for k in TIMES if r.get(k)}
    best_name, best = "conventional (ours)", r.get("conventional")
    for name, b in r.get("baselines", {}).items():
        if b.get("ms") and (best is None or b["ms"] < best):
            best_name, best = name, b["ms"]
    if r.get("amortised"):
        r["speedup"] = r["conventional"] / r["amortised"] if r.get("conventional") else None
        r["best_conventional"] = best_name
        r["speedup_vs_best"] = best / r["amortised"] if best else None
    r["bytes_per_s"] = {k: r["per_step"][k] / (t * 1e-3) for k, t in times.items()
                        if k in r.get("per_step", {})}
    r["copy_fraction"] = {k: v / copy_bps for k, v in r["bytes_per_s"].items()}


def row_line(r: dict) -> str:
    f = r.get("copy_fraction", {})
    return (f"{r['variant']:<7} {r['config']:<20} L={r['L']:<3} batch={r['batch']:<4} "
            f"conv {r.get('conventional', 0):.4f}  nonflush {r.get('nonflush') or 0:.4f}  "
            f"flush {r.get('flush_step', 0):.4f}  amort {r.get('amortised', 0):.4f} ms  "
            f"x{r.get('speedup') or 0:.2f} (vs best x{r.get('speedup_vs_best') or 0:.2f})  "
            f"bw conv {f.get('conventional', 0):.0%} amort {f.get('amortised', 0):.0%}")


# -- the report (any machine) ---------------------------------------------------------------------
def flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _ms(v) -> str:
    return f"{v:.4f}" if isinstance(v, (int, float)) else "—"


def _x(v) -> str:
    return f"{v:.2f}×" if isinstance(v, (int, float)) else "—"


def _pct(v) -> str:
    return f"{v:.0%}" if isinstance(v, (int, float)) else "—"


def markdown(report: dict) -> str:
    m = report["meta"]
    copy = report["copy_bytes_per_s"]
    lines = [f"# replaygen bench: {m['gpu']}", "",
             f"driver {m['driver']}, torch {m['torch']}, triton {m['triton']}, Python "
             f"{m.get('python', '?')}, commit `{m['commit']}`, {m['date']}"
             + "".join(f", {p} {v}" for p, v in m.get("packages", {}).items()), "",
             f"Command: `{m['command']}`", "",
             f"Copy bandwidth (device to device, read + write): {copy['eager'] / 1e12:.2f} TB/s "
             f"eager, {copy['graph'] / 1e12:.2f} TB/s from a CUDA graph; the better one is the "
             "ceiling below.", "",
             "ms per decode step of the whole batch (CUDA-graph medians); fp32 checkpoint, bf16 "
             "records, inputs and outputs. amortised = a whole flush cycle with staggered rows / L. "
             "speedup = conventional (ours) / amortised; vs best = the fastest conventional kernel "
             "(ours or external) / amortised; % copy = bytes from the traffic model / time / copy "
             "bandwidth.", ""]
    eager = any("amortised_eager" in r for r in report["rows"])
    head = ["variant", "geometry", "L", "batch", "conventional", "nonflush", "flush step",
            "amortised", "speedup", "vs best", "best conventional", "byte cap",
            "conv % copy", "amort % copy"]
    if eager:
        head += ["conv eager", "amort eager"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in report["rows"]:
        f = r.get("copy_fraction", {})
        cells = [r["variant"], r["config"], str(r["L"]), str(r["batch"]), _ms(r.get("conventional")),
                 _ms(r.get("nonflush")), _ms(r.get("flush_step")), f"**{_ms(r.get('amortised'))}**",
                 f"**{_x(r.get('speedup'))}**", _x(r.get("speedup_vs_best")),
                 r.get("best_conventional", "—"), _x(r.get("speedup_cap")),
                 _pct(f.get("conventional")), _pct(f.get("amortised"))]
        if eager:
            cells += [_ms(r.get("conventional_eager")), _ms(r.get("amortised_eager"))]
        lines.append("| " + " | ".join(cells) + " |")
    base = [(r, n, b) for r in report["rows"] if r["L"] == min(x["L"] for x in report["rows"])
            for n, b in r.get("baselines", {}).items()]
    if base:
        lines += ["", "## External baselines (checked against ours before timing)", "",
                  "| variant | geometry | batch | baseline | ms | ours (conventional) | err out | err state | source |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r, n, b in base:
            lines.append(f"| {r['variant']} | {r['config']} | {r['batch']} | {n} | {_ms(b.get('ms'))} | "
                         f"{_ms(r.get('conventional'))} | {b.get('err_out', float('nan')):.1e} | "
                         f"{b.get('err_state', float('nan')):.1e} | {b.get('source', '')} |")
    lines += crossover_lines(report["rows"])
    if report.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {n}" for n in report["notes"]]
    lines += ["", f"Suite time: {report.get('seconds', '?')} s."]
    return "\n".join(lines) + "\n"


# A replay step within this fraction of the best conventional step is reported as even:
# the suite's medians of one run differ by about this much between runs (session 27's
# audit: the same launches re-timed within 0.5-4%).
EVEN = 0.03


def crossover(points: list[tuple[int, float]]) -> int | None:
    """The smallest measured batch from which the replay step is never slower than the
    best conventional step (speedup vs best >= 1 - EVEN at it and at every larger batch
    measured); None when it is slower at the largest."""
    start = None
    for batch, x in sorted(points, reverse=True):
        if x < 1 - EVEN:
            break
        start = batch
    return start


def crossover_lines(rows: list[dict]) -> list[str]:
    """Issue 5's size-based dispatch, measured: per (variant, geometry, L), the replay
    step against the best conventional step at every batch, the batch from which it pays
    (crossover), and the batches at which the runtime's dispatch folds every step
    (Kernels.folds_every_step: the state stays a plain checkpoint, the conventional
    step's traffic)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r.get("speedup_vs_best"):
            groups.setdefault((r["variant"], r["config"], r["L"]), []).append(r)
    if not groups:
        return []
    batches = sorted({r["batch"] for g in groups.values() for r in g})
    lines = ["", "## Where the replay step pays (size-based dispatch)", "",
             "Amortised replay step against the fastest conventional step (vs best); "
             f"_italic_: within {EVEN:.0%} either way (even); **bold**: slower by more. "
             "crossover: the smallest batch from which the replay step is never slower (beyond "
             f"{EVEN:.0%}) at the batches measured. dispatch: the batches at which `decode` folds "
             "every step (Kernels.fold_below_rows).", "",
             "| variant | geometry | L | " + " | ".join(f"batch {b}" for b in batches)
             + " | crossover | dispatch folds at |",
             "|" + "---|" * (len(batches) + 5)]
    for (variant, config, L), g in groups.items():
        by_batch = {r["batch"]: r for r in g}
        cells = []
        for b in batches:
            x = by_batch[b]["speedup_vs_best"] if b in by_batch else None
            cell = _x(x)
            if x is not None and x < 1 - EVEN:
                cell = f"**{cell}**"
            elif x is not None and x < 1 + EVEN:
                cell = f"_{cell}_"
            cells.append(cell)
        start = crossover([(r["batch"], r["speedup_vs_best"]) for r in g])
        folds = [str(r["batch"]) for r in sorted(g, key=lambda r: r["batch"]) if r.get("fold_every_step")]
        lines.append(f"| {variant} | {config} | {L} | " + " | ".join(cells)
                     + f" | {'—' if start is None else start} | {', '.join(folds) or 'none'} |")
    return lines


def plot(report: dict, path: Path) -> str | None:
    """speedup vs batch, one panel per variant, one line per (geometry, L); returns a note
    when matplotlib is absent (an optional extra: pip install 'replaygen[bench]')."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "speedup.png not written: matplotlib is not installed (pip install matplotlib)"
    variants = list(dict.fromkeys(r["variant"] for r in report["rows"]))
    fig, axes = plt.subplots(1, len(variants), figsize=(4.5 * len(variants), 3.6), squeeze=False)
    for ax, v in zip(axes[0], variants):
        lines = {}
        for r in report["rows"]:
            if r["variant"] == v and r.get("speedup"):
                lines.setdefault((r["config"], r["L"]), []).append((r["batch"], r["speedup"]))
        for (config, L), pts in sorted(lines.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{config} L={L}")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(v)
        ax.set_xlabel("batch")
        ax.set_ylabel("speedup vs conventional")
        ax.legend(fontsize=7)
    fig.suptitle(f"ReplaySSM amortised vs conventional step, {report['meta']['gpu']}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def write_report(report: dict, out: Path, log=print, replot: bool = False) -> list[Path]:
    """bench.json, bench.csv, bench.md and (matplotlib permitting) speedup.png under out.
    A run without matplotlib notes the missing plot in its report; a replot (`replot`:
    the derived files rewritten from a measured bench.json) only logs it, so the data
    keep the notes of the run that measured them (and its plot, if it wrote one)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    note = plot(report, out / "speedup.png")
    if note and replot:
        log(note)
    elif note and note not in report.setdefault("notes", []):
        report["notes"].append(note)
    if not note:
        written.append(out / "speedup.png")
    (out / "bench.json").write_text(json.dumps(report, indent=1) + "\n")
    flat = [flatten({**{f"meta.{k}": v for k, v in report["meta"].items()}, **r}) for r in report["rows"]]
    fields = list(dict.fromkeys(k for row in flat for k in row))
    with open(out / "bench.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(flat)
    (out / "bench.md").write_text(markdown(report))
    written += [out / "bench.json", out / "bench.csv", out / "bench.md"]
    for p in written:
        log(f"wrote {p}")
    return written


def run(args, log=print) -> int:
    if args.replot:
        report = json.loads((Path(args.replot) / "bench.json").read_text())
        write_report(report, Path(args.out or args.replot), log, replot=True)
        return 0
    if args.quick:
        args.batches = args.batches or QUICK["batches"]
        args.L = args.L or QUICK["Ls"]
    args.batches = tuple(args.batches or DEFAULT_BATCHES)
    args.L = tuple(args.L or DEFAULT_LS)
    out = Path(args.out or "bench/results/latest")

    def progress(report):   # (the folder is made at the first results: a refused run makes none)
        out.mkdir(parents=True, exist_ok=True)
        (out / "bench.json").write_text(json.dumps(report, indent=1) + "\n")
    report = run_suite(args, log, progress)
    write_report(report, out, log)
    log(f"replaygen bench: {report['seconds']:.0f} s")
    return 0
