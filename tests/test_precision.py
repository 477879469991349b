"""Precision configurations against the float64 reference (tests/reference.py).

Every precision configuration (replaygen.load's state_dtype, stochastic, read_dtype,
fp8_scale, record_dtypes) decodes, flushes and materialises through `harness.Harness`,
which checks outputs and states with tolerances derived from the formats
(harness.U_QUANT, UNIT_ROUNDOFF), and checks the quantised copies bit for bit against
tests/formats_reference.py after every load and flush. Then the read copy's contract:
a non-flush step reads it (poisoned, its output is NaN), a flush never does (poisoned
just before a flush, the recurrence is unaffected). Small dims (K = 20: a padded key
block, a partial NVFP4 block and the tl.dot fold; V = 18: two value tiles) keep each
case at a second or two in the interpreter.
"""
from __future__ import annotations

import pytest
import torch

from harness import ALL_CASES, Config, Harness, Step, restore, snapshot, tolerance

PRECISIONS = {   # name -> (state_dtype, Config precision fields)
    "fp32+fp8row": ("fp32", dict(read_dtype="fp8", fp8_scale="row")),
    "fp32+fp8col": ("fp32", dict(read_dtype="fp8", fp8_scale="col")),
    "fp32+fp8tile": ("fp32", dict(read_dtype="fp8", fp8_scale="tile")),
    "fp32+nvfp4": ("fp32", dict(read_dtype="nvfp4")),
    "fp16sr+nvfp4": ("fp16", dict(stochastic=True, read_dtype="nvfp4")),
    "bf16sr+fp8row": ("bf16", dict(stochastic=True, read_dtype="fp8")),
    "fp16sr": ("fp16", dict(stochastic=True)),
    "shared-fp8row": ("fp8", dict(fp8_scale="row")),
    "shared-nvfp4": ("nvfp4", {}),
}
# every precision for the two delta-rule variants (scalar and per-channel gates); the
# main ones for the rest
CASES = ([(v, p) for v in ("gdn", "kda") for p in PRECISIONS]
         + [(v, p) for v in ("mamba2", "gla", "deltanet")
            for p in ("fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4", "shared-nvfp4")])
ROWS = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0)]
# Key width: 32 (rows of whole 8-byte words) for the key-chunk decodes of read copies, so
# their non-flush products run word by word (plan.read_word_keys), as at every real
# geometry; 20 otherwise: an odd width, whose key-chunk decodes multiply per element
# (test_flush_never_reads_the_read_copy).
WORD_CASES = {(v, p) for v in ("gdn", "mamba2") for p in ("fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4")}


def _config(variant, precision, L=3, record_dtype="bf16", K=20, **extra):
    state_dtype, fields = PRECISIONS[precision]
    return Config(variant, H=1, ratio=2, K=K, V=18, L=L, state_dtype=state_dtype,
                  record_dtype=record_dtype, input_dtype="bf16",
                  optional=ALL_CASES[variant].optional_inputs, **fields, **extra)


@pytest.mark.parametrize("variant,precision", CASES)
def test_precision_matches_reference(variant, precision, device):
    """Three slots at staggered ring positions with a padding row, device flushes in
    mixed launches and one explicit flush (the conventional pool alongside once per
    variant: its kernel does not depend on the precision configuration)."""
    words = (variant, precision) in WORD_CASES
    h = Harness(_config(variant, precision, K=32 if words else 20), num_slots=3, device=device,
                seed=21, check_conventional=precision == "fp32+fp8row")
    assert bool(h.kern.plan.read_word_keys) == words, "the case does not cover what it says"
    h.run([Step(r, flush=(1, -1) if i == 4 else None) for i, r in enumerate(ROWS)])
    assert h.device_flushes >= 3


@pytest.mark.parametrize("variant", ["gdn", "mamba2"])
@pytest.mark.parametrize("precision", ["fp32+fp8row", "fp32+nvfp4", "fp16sr+nvfp4"])
def test_flush_never_reads_the_read_copy(variant, precision, device):
    """Poison the read copy (values and scales: NaN; NVFP4 bytes cannot hold a NaN, so
    their scales carry it) of slot 0 when its ring is one token from full. Where the
    flush is fused into the decode launch, the next decode flushes slot 0 reading the
    checkpoint: its output, its checkpoint and the read copy it rewrites match the
    reference (Harness checks all three). Where the flush is a launch of its own (the
    key-chunk decode of an NVFP4 read copy, plan.FUSED_FLUSH false) the decode kernel has
    no fold code: every token, the one that fills the ring included, is decoded from the
    read copy (and a delta rule's record u = beta (v - S k) reads S there, as at every
    non-flush step), and the fold launch reads only the checkpoint; so slot 0 is flushed
    by that launch alone (an explicit flush) and must match the reference. Either way
    the decoding carries on. A non-flush step of slot 1, poisoned the same way, does read
    it: NaN output."""
    h = Harness(_config(variant, precision), num_slots=2, device=device, seed=8,
                check_conventional=False)
    assert not h.kern.plan.read_word_keys   # K = 20: the per-element products
    h.run([Step((0, 1)), Step((0,))])            # slot 0: 2 records (L = 3), slot 1: 1
    assert h.cursor == [2, 1]
    for name, t in h.state.aux.items():
        if name.startswith("read") and t.dtype.is_floating_point:
            t[0] = float("nan")
    fused = h.kern.plan.FUSED_FLUSH
    assert fused == ("nvfp4" not in precision), "the test means to cover both flushes"
    if fused:
        h.run([Step((0,)), Step((0,)), Step((0,))])  # flush, then two non-flush steps
    else:
        h.flush((0,))
        h.run([Step((0,)), Step((0,))])
    for name, t in h.state.aux.items():
        if name.startswith("read") and t.dtype.is_floating_point:
            t[1] = float("nan")
    before = snapshot(h.state)
    inputs, _ = h.make_inputs(1)
    out = h.kern.decode(h.state, torch.tensor([1], dtype=torch.int32, device=device), **inputs)
    assert torch.isnan(out).all(), "a non-flush step did not read the read copy"
    assert torch.equal(h.state.checkpoint, before["checkpoint"])


def test_stochastic_rounding_draws_fresh_bits_every_flush(device):
    """Two slots holding the same state and the same records flush to different fp16
    checkpoints (the Philox key holds the slot); flushing the same state again after a
    restore, with the flush counter advanced, gives different bits again (the key holds
    the counter), while both stay within one fp16 ulp of the fp32 fold."""
    import replaygen
    kern = replaygen.load("gla", H=1, HV=1, K=20, V=18, L=4, state_dtype="fp16",
                          stochastic=True, record_dtype="fp32")
    g = torch.Generator().manual_seed(3)
    state = kern.new_state(2, device)
    slots = torch.arange(2, dtype=torch.int32, device=device)
    kern.load_state(state, slots, (torch.randn(1, 1, 18, 20, generator=g) * 0.5).expand(2, 1, 18, 20).to(device))
    for _ in range(2):
        x = {n: (torch.randn((1,) + s, generator=g)).expand((2,) + s).to(device)
             for n, s in (("q", (1, 20)), ("k", (1, 20)), ("v", (1, 18)), ("gk", (1, 20)))}
        kern.decode(state, slots, **x)
    fold = kern.materialize(state, slots)
    saved = snapshot(state)
    kern.flush(state, slots)
    first = state.checkpoint.clone()
    assert state.aux["flushes"].tolist() == [[1], [1]]
    assert not torch.equal(first[0], first[1])
    ulp = torch.finfo(torch.float16).eps * fold.abs().clamp(min=2.0 ** -14)
    assert bool(((first.float() - fold).abs() <= ulp).all())
    state.checkpoint.copy_(saved["checkpoint"])
    state.cursor.copy_(saved["cursor"])
    kern.flush(state, slots)
    assert state.aux["flushes"].tolist() == [[2], [2]]
    assert not torch.equal(state.checkpoint, first)


def test_per_field_record_precision(device):
    """record_dtypes={"g": "fp32"}: GDN's gate ring is fp32, the others bf16; the name
    says so; decoding matches the reference."""
    cfg = _config("gdn", "fp32+fp8row", record_dtypes=(("g", "fp32"),))
    h = Harness(cfg, num_slots=2, device=device, seed=2, check_conventional=False)
    assert h.state.ring["g"].dtype == torch.float32 and h.state.ring["u"].dtype == torch.bfloat16
    assert h.kern.name.endswith("__state_fp32__read_fp8row__rec_bf16_g-fp32")
    h.run([Step((0, 1))] * 4)


@pytest.mark.parametrize("kwargs,message", [
    (dict(state_dtype="fp32", stochastic=True), "stochastic rounding applies"),
    (dict(state_dtype="nvfp4", read_dtype="fp8"), "a read copy needs a high-precision checkpoint"),
    (dict(state_dtype="fp32", fp8_scale="row"), "fp8_scale applies only"),
    (dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="block"), "fp8_scale must be one of"),
    (dict(state_dtype="fp32", read_dtype="fp4"), "read_dtype must be None or one of"),
    (dict(record_dtypes={"nope": "fp32"}), "no record field 'nope'"),
    (dict(gate_records="cumulative"), "needs a per-channel decay"),   # GDN: a scalar gate
    (dict(gate_records="running"), "gate_records must be None or one of"),
    (dict(decode_structure="tiles"), "decode_structure must be None or one of"),
    # fp8 column scales do not factor out of a key chunk's sum: value tiles only
    (dict(read_dtype="fp8", fp8_scale="col", decode_structure="kchunks"), "needs a plain checkpoint"),
    (dict(state_dtype="fp8", decode_structure="kchunks"), "needs a plain checkpoint"),
])
def test_precision_errors(kwargs, message):
    import replaygen
    with pytest.raises(replaygen.ReplaygenError, match=message):
        replaygen.load("gdn", H=1, HV=2, K=4, V=4, **kwargs)


def test_build_and_show_take_the_precision_options(tmp_path, capsys):
    """`replaygen build` writes the configuration the options name; `show` prints the
    read copy's bytes and the caps against the fp32 checkpoint; bad options are errors."""
    from replaygen.cli import main
    code = main(["build", "--variant", "gdn", "--dims", "H=1,HV=2,K=32,V=16", "--state-dtype",
                 "fp16", "--stochastic", "--read-dtype", "nvfp4", "--record-dtypes", "g=fp32",
                 "--out", str(tmp_path)])
    assert code == 0
    name = "gdn__H1_HV2_K32_V16__L16__state_fp16sr__read_nvfp4__rec_bf16_g-fp32.py"
    assert (tmp_path / "gdn" / name).is_file(), capsys.readouterr().out
    assert main(["show", "--variant", "gdn", "--read-dtype", "fp8", "--fp8-scale", "tile"]) == 0
    shown = capsys.readouterr().out
    assert "copy          = HV*K*V + 4*HV*ceiling(V/BV)" in shown and "amortised cap" in shown
    assert "read copy fp8 scales per tile, stored in 32-key blocks" in shown   # (key chunks, K = 128)
    assert main(["build", "--variant", "gdn", "--stochastic", "--out", str(tmp_path)]) == 1
    assert "stochastic rounding applies to an fp16 or bf16 checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize("precision", ["fp32+nvfp4", "fp16sr+nvfp4"])
def test_fold_every_step_with_a_read_copy(precision, device):
    """The small-batch dispatch folds every row from the checkpoint and re-quantises the
    read copy each time (checked bit for bit after every step by Harness)."""
    h = Harness(_config("gdn", precision, L=4), num_slots=3, device=device, seed=13,
                check_conventional=False)
    h.run([Step((0, 1, 2)), Step((2, 0, 1), fold=True), Step((1, 0)), Step((0, 1, -1), fold=True)])
    assert h.device_flushes == 5


def _gate_record_errors(variant, gates, gate_dtype, device, L=16, K=16, V=8, HV=2, steps=36):
    """Worst normwise output error of one slot over `steps` decode steps (two flush
    cycles and a bit), and its materialised state's, against the float64 reference:
    fp32 state, inputs and records except the gate record (`gate_dtype`), so that the
    gate record's precision is what differs."""
    from harness import load_case
    case = ALL_CASES[variant]
    gen = torch.Generator().manual_seed(3)
    kern = load_case(variant, L=L, state_dtype="fp32", record_dtype="fp32",
                     record_dtypes={"g": gate_dtype}, gate_records=gates,
                     **case.dims(1, HV, K, V))
    params = case.params(gen, 1, HV, K, V)
    state = kern.new_state(1, device, **{n: t.to(device) for n, t in params.items()})
    slots = torch.zeros(1, dtype=torch.int32, device=device)
    S = torch.randn((1, HV, V, K), generator=gen) * 0.5
    kern.load_state(state, slots, S.to(device))
    ref, p64 = S[0].double(), {n: t.double() for n, t in params.items()}
    worst = 0.0
    for _ in range(steps):
        inputs = case.inputs(gen, 1, 1, HV, K, V, ())
        out = kern.decode(state, slots, **{n: t.to(device) for n, t in inputs.items()})
        ref, o = case.step(ref, **{n: t[0].double() for n, t in inputs.items()}, **p64)
        worst = max(worst, ((out[0].cpu().double() - o).norm() / o.norm()).item())
    M = kern.materialize(state, slots)[0].cpu().double()
    return worst, ((M - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("variant", ["gla", "kda"])
def test_cumulative_gate_record_precision(variant, device):
    """Why cumulative gate records are fp32 by default. A record holding G_j (the sum of
    log decays since the checkpoint, up to L·|g|) must keep G_t - G_j to the precision
    of one step's g; in bf16 its rounding grows with |G| instead. Measured here (L = 16,
    36 steps, the harness's gates: |g| ~ 0.5-1 per token, so |G| reaches ~10; worst
    output error, Triton interpreter, bf16 casts truncating):
        KDA  step fp32 1.06e-6 | cumulative fp32 1.04e-6 | step bf16 2.3e-3 | cumulative bf16 6.0e-2
        GLA  step fp32 2.1e-7  | cumulative fp32 2.1e-7  | step bf16 2.3e-3 | cumulative bf16 2.0e-2
    So cumulative fp32 gates are as exact as fp32 per-step gates (and 2000x better than
    the bf16 per-step gates of the previous default), while cumulative bf16 gates are
    8-26x worse than bf16 per-step gates."""
    step32, _ = _gate_record_errors(variant, "step", "fp32", device)
    cum32, cum32_state = _gate_record_errors(variant, "cumulative", "fp32", device)
    step16, _ = _gate_record_errors(variant, "step", "bf16", device)
    cum16, _ = _gate_record_errors(variant, "cumulative", "bf16", device)
    # fp32 arithmetic only (harness.tolerance with fp32 everywhere, two flushes)
    fp32_tol = tolerance(out="fp32", records="fp32", state="fp32", roundings=2)
    assert cum32 <= fp32_tol and cum32_state <= fp32_tol, (cum32, cum32_state, fp32_tol)
    assert cum32 <= 2 * step32 + 1e-7, (cum32, step32)
    assert cum16 > 4 * step16, (cum16, step16)   # the reason for the fp32 default


@pytest.mark.parametrize("precision,launch", [
    ("fp32+nvfp4", (64, 16, 2)),      # 4 scale tiles per value tile, one NVFP4 block per chunk
    ("fp32+fp8tile", (64, 16, 2)),
    ("fp32+fp8row", (16, 32, 1)),     # value tile = scale tile: two passes over V
    ("fp16sr+nvfp4", (16, 16, 1)),
    ("fp32+fp8row", (32, 32, 1, True)),   # the flush in a separate fold launch
    ("fp32+nvfp4", (64, 16, 2, False, True)),    # streaming first (as GDN's NVFP4 table)
    ("fp32+fp8row", (16, 32, 1, True, True)),    # ... two passes over V, flush separate
    ("fp32+fp8row", (16, 32, 1, True, False, True)),    # the records' scores at the head
    ("fp32+nvfp4", (16, 16, 1, False, False, True)),    # ... (the flush in the fold launch)
    ("fp32+nvfp4", (16, 16, 1, False, False, True, 2)),    # ... and the records in blocks of 2
    ("fp32+fp8row", (16, 32, 1, True, False, True, 4)),    # ... of 4 (the H100's GDN NVFP4 entry: 8)
])
def test_read_copy_key_chunks_with_other_launches(precision, launch, device):
    """The key-chunk decode of a read copy reads and writes its scales per row (tile
    scales indexed by row // BV), so any launch whose value tile holds whole scale tiles
    keeps the layout the fold and quantize kernels use: checked bit for bit (fp32
    checkpoint) after every flush, with chunks other than the plan's; and with the
    flush left to the fold kernel (every decode row reads the read copy, then the fold
    kernel folds the full rings and quantises them). The launches streaming first
    (Launch.stream_first) run at K = 32, rows of whole 8-byte words: their word
    products take the checkpoint's decay after the stream, where otherwise it is applied
    with the probes' scales (the other cases, K = 20, multiply per element). The
    launches taking the records' scores at the head (Launch.head_scores) run at K = 32
    too: their streams carry the word products alone; with record blocks
    (Launch.record_block) each value tile takes the records' terms from the committed
    records only, at the harness's staggered cursors."""
    from replaygen.plan import decode_is_chunked
    from replaygen.tuning import Launch
    # (NVFP4 and stochastic rounding default to value tiles, measured faster amortised;
    # their key-chunk path stays selectable and is checked here, forced)
    bv, bkt, warps, *flags = launch
    separate, first, head, block = (list(flags) + [False, False, False, 0])[:4]
    h = Harness(_config("gdn", precision, decode_structure="kchunks", K=32 if first or head else 20),
                num_slots=3, device=device, seed=3, check_conventional=False)
    assert decode_is_chunked(h.kern.plan) and bool(h.kern.plan.read_word_keys) == (first or head)
    h.kern.forced["replay_decode"] = Launch(BV=bv, BKT=bkt, num_warps=warps, num_stages=1,
                                            separate_flush=separate, stream_first=first,
                                            head_scores=head, record_block=block)
    consts = h.kern.launch_args("replay_decode", 3, device)[0]
    assert consts["STREAM_FIRST"] is first and consts["HEAD_SCORES"] is head
    assert consts["RECORD_BLOCK"] == block
    h.run([Step(r) for r in ROWS])
    assert h.device_flushes >= 3


def test_read_copy_launch_errors():
    """A key chunk must hold whole NVFP4 blocks; a value tile whole scale tiles."""
    from replaygen.errors import ConfigError
    from replaygen.plan import launch_constants
    nv = _config("gdn", "fp32+nvfp4", decode_structure="kchunks").load().plan
    with pytest.raises(ConfigError, match="whole NVFP4 blocks"):
        launch_constants(nv, "replay_decode", 32, 8)
    with pytest.raises(ConfigError, match="multiple of the read copy's scale tile"):
        launch_constants(nv, "replay_decode", 8, 32)


@pytest.mark.parametrize("per_sm", [None, 1, 5])
def test_queued_fold_takes_every_full_ring(per_sm, device, monkeypatch):
    """The key-chunk decode of an NVFP4 read copy leaves full rings to a second launch
    (plan.FUSED_FLUSH false): the decode queues each (slot, value head) block whose ring
    it filled, and the fold launch takes them in a grid that does not depend on how many
    filled (runtime.fold_programs: 3 programs in the interpreter, which counts as one
    multiprocessor, or Launch.fold_programs: per_sm, here one program that takes every
    item, or five), each block split over 2 programs here (Launch.fold_split; V = 18 in
    16-row tiles: 2 tiles; the plan's one program per block runs in every other NVFP4
    case of this file). Four slots whose rings fill in the same step queue 8 blocks (16
    work items for 3 programs), a decode that folds every step queues every block, and
    rows fill one at a time; outputs and states match the reference, every fold launch
    empties the queue (Harness), and the largest queued grid is the one asked for."""
    h = Harness(_config("gdn", "fp32+nvfp4", K=32), num_slots=4, device=device, seed=4,
                check_conventional=False)
    from replaygen.plan import plan_tiles
    from replaygen.runtime import fold_programs
    from replaygen.tuning import Launch
    p = h.kern.plan
    assert not p.FUSED_FLUSH and p.NV == 2
    if torch.device(device).type == "cpu":
        assert fold_programs(torch.device(device), per_sm) == (3 if per_sm is None else per_sm)
    bv, bkt, warps = plan_tiles(p, "replay_decode")
    h.kern.forced["replay_decode"] = Launch(bv, warps, p.STREAM_STAGES, bkt, fold_split=2,
                                            fold_programs=per_sm)
    grids, fold = [], h.kern.module.fold_kernel

    class Spy:   # the queued fold launches' grids (one-dimensional; the others are not)
        def __getitem__(self, grid):
            grids.append(grid)
            return fold[grid]
    monkeypatch.setattr(h.kern.module, "fold_kernel", Spy())
    h.run([Step((0, 1, 2, 3)), Step((3, 2, 1, 0)), Step((0, 1, 2, 3)),   # L = 3: all fill
           Step((1, -1, 3), fold=True), Step((0, 2)), Step((2, 0, 1)), Step((0, 3, 2))])
    assert h.device_flushes >= 4 + 2 + 1
    per_machine = 3 if per_sm is None else per_sm   # (a GPU: times its multiprocessors)
    if torch.device(device).type == "cpu":
        assert max(g[0] for g in grids if len(g) == 1) == per_machine


@pytest.mark.parametrize("precision,tiles", [("fp32+fp8row", 8), ("fp32+nvfp4", None)])
def test_tuned_value_tile_launches_of_read_copies_are_used(precision, tiles, device):
    """A read copy decoded in value tiles (KDA's per-channel decays) takes its launch from
    the tuning table like any other configuration: row scales let the decode retile (BV
    8 where the plan has 16), tile scales keep the plan's BV; both with the flush in the
    fold launch, one warp, one stage and a register cap. Until session 26 the runtime
    never looked such configurations up, so their tuned launches were dead data (H200:
    KDA fp32 + FP8 row 0.510 ms amortised at the plan's launch, 0.132 at the table's).
    Outputs, states and read copies match the references through staggered flushes; a
    tabled value tile that would split NVFP4's scale tiles is refused by name."""
    from replaygen.errors import ConfigError
    from replaygen.runtime import device_name
    from replaygen.tuning import Launch, TuningTable
    h = Harness(_config("kda", precision), num_slots=3, device=device, seed=5,
                check_conventional=False)
    p = h.kern.plan
    bv = tiles or p.BV
    table = TuningTable()
    gpu = device_name(torch.device(device))
    table.add(gpu, h.kern.name, "replay_decode", 1,
              Launch(bv, 1, 1, separate_flush=True, maxnreg=128))
    h.kern.tuning = table
    h.kern._launches.clear()
    consts, launch = h.kern.launch_args("replay_decode", 3, device)
    assert (consts["BV"], consts["NV"], consts["FUSED_FLUSH"]) == (bv, -(-18 // bv), False)
    assert launch["num_warps"] == 1 and launch.get("maxnreg") == 128
    if tiles:
        assert tiles != p.BV, "the fp8 row case means to retile"
    h.run([Step(r) for r in ROWS])
    assert h.device_flushes >= 3
    if tiles is None:   # NVFP4: a value tile of half the scale tile
        bad = TuningTable()
        bad.add(gpu, h.kern.name, "replay_decode", 1, Launch(p.BV // 2, 1, 1))
        h.kern.tuning = bad
        h.kern._launches.clear()
        with pytest.raises(ConfigError, match="scale tile"):
            h.kern.launch_args("replay_decode", 3, device)


@pytest.mark.parametrize("variant,precision,path", [
    ("kda", "fp32+fp8row", "words"), ("kda", "fp32+nvfp4", "words"), ("gla", "fp32+fp8tile", "words"),
    ("gla", "fp32+nvfp4", "words"), ("kda", "fp32+fp8row", "mma"), ("gla", "fp32+fp8tile", "mma"),
    ("gdn", "fp32+fp8row", "mma"), ("mamba2", "fp32+fp8tile", "mma")])
def test_value_tile_read_products_match_the_elementwise_read(variant, precision, path, device):
    """The value-tile decode's non-flush products from the read copy without decoding
    every element to fp32: Launch.read_words, from its 8-byte words (fp16x2 for FP8, int8
    for NVFP4: formats.read_words_dot2 / read_words_dot, as the key-chunk decode), or
    Launch.read_mma, an FP8 tile times an e4m3 probe operand of three parts per probe
    (formats.mma_probe_operand; tl.dot, on tensor cores on the GPU; scalar decays in value
    tiles through decode_structure). From one state and one token (fp32 inputs and
    outputs, rows at staggered cursors), its outputs against the same launch's
    elementwise read: within 2e-3 normwise (the interpreter: ~1.2e-4 for FP8 words; 1e-4
    for the tensor-core path, whose sums it takes exactly), 1.5e-2 for NVFP4 words. Both
    read the same read copy, so what differs is the probes' rounding (fp16, three e4m3
    parts or int8: 2^-11, 2^-12 relative, or half of 1/127 of the probe's largest element,
    ~5e-3 of a sum over 32 Gaussian keys, 4.9e-3 measured) and, on the GPU, each FP8
    word's 8 products summed in fp16 (the key-chunk decode's words measured 5e-4 from
    exact, H200, session 11) or the tensor core's fp32 accumulation of e4m3 products (~14
    bits): far below the read copy's own error against the recurrence (FP8 ~2^-4, NVFP4
    ~1/4 per element), which is all the reference comparison can bound (a 5% error in the
    sums passes the harness's tolerance and fails here). Then the launch runs the
    staggered schedule against the references, flushes in the fold launch included."""
    import dataclasses
    from replaygen.tuning import Launch
    state_dtype, fields = PRECISIONS[precision]
    cfg = Config(variant, H=1, ratio=2, K=32, V=18, L=3, state_dtype=state_dtype,
                 record_dtype="bf16", input_dtype="fp32", decode_structure="vtiles",
                 optional=ALL_CASES[variant].optional_inputs, **fields)
    h = Harness(cfg, num_slots=3, device=device, seed=9, check_conventional=False)
    p = h.kern.plan
    assert p.decode_template.startswith("replay_decode_vtiles")
    assert p.vtile_read_words and p.vtile_read_mma == (p.read.kind == "fp8")
    plain = Launch(p.BV, 1, 1, separate_flush=True)
    # (read_mma: four warps; with row scales 64 rows, so that on sm_90 the tile's product
    # is wgmma's e4m3 one; tile scales fix the tile at the scale tile's plan.BV rows,
    # below 64 here, where Triton widens it to fp16 for an mma.sync)
    mma = {"read_mma": True, "num_warps": 4, "BV": 64 if p.read.scale == "row" else p.BV}
    fast = dataclasses.replace(plain, **({"read_words": True} if path == "words" else mma))
    h.kern.forced["replay_decode"] = plain
    h.run([Step(r) for r in ROWS[:4]])
    assert len(set(h.cursor)) > 1 and max(h.cursor) > 0, "rows at staggered cursors, with records"
    saved = snapshot(h.state)
    inputs, _ = h.make_inputs(3)
    slots = torch.arange(3, dtype=torch.int32, device=device)
    outs = []
    for launch in (plain, fast):
        restore(h.state, saved)
        h.kern.forced["replay_decode"] = launch
        out = torch.full((3, p.HV, p.V), float("nan"), dtype=torch.float32, device=device)
        h.kern.decode(h.state, slots, out=out, **inputs)
        outs.append(out.double())
    assert not torch.isnan(outs[1]).any()
    diff = float((outs[1] - outs[0]).norm() / outs[0].norm())
    # the interpreter's tl.dot sums e4m3 products exactly, so there only the probe's three
    # parts differ from the elementwise read (5e-6..2e-5; two parts, 2^-8: 2.4e-4..7.4e-4)
    limit = 1e-4 if path == "mma" and device == "cpu" else 1.5e-2 if p.read.kind == "nvfp4" else 2e-3
    assert diff <= limit, f"{path} products off the elementwise read by {diff:.2e} normwise"
    assert diff > 0, f"bit for bit the elementwise read's outputs: the {path} products never ran"
    restore(h.state, saved)   # (the harness's reference never saw those two steps)
    h.run([Step(r) for r in ROWS[4:] + ROWS[:3]])
    assert h.device_flushes >= 3
