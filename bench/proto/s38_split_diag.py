"""Session 38: where the two-launch verify's rings differ from one launch's on a GPU
(test_value_tile_verify_in_two_launches' schedule), per field: the largest difference,
how many elements exceed rtol = atol = 1e-6 (never-written rows are NaN in both and
count as equal), and the first of them. Run from the repository root: PYTHONPATH=.
python bench/proto/s38_split_diag.py"""
import sys, torch
sys.path.insert(0, "tests")
from test_speculative import SpecDriver, Config, ALL_CASES
from replaygen.tuning import Launch
for variant in ("kda", "gla"):
    for vf in (False, True):
        for hw in (None, 2):
            cfg = Config(variant, H=1, ratio=2, K=20, V=32, L=4, state_dtype="fp32", record_dtype="fp32",
                         input_dtype="fp32", optional=ALL_CASES[variant].optional_inputs, max_drafts=3, verify_folds=vf)
            split, one = [SpecDriver(cfg, "cuda", seed=13) for _ in range(2)]
            split.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1, head_launch=True, head_warps=hw)
            one.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1)
            split.kern.forced["verify_fold"] = Launch(BV=16, num_warps=1, num_stages=1, head_launch=True)
            one.kern.forced["verify_fold"] = one.kern.forced["verify"]
            for d in (split, one):
                d.decode((0,)); d.verify((0, 1, -1), 3, [3, 2, 3]); d.commit([3, 1, 0])
                d.verify((1, 0), 3, [3, 1]); d.commit([2, 1]); d.verify((0, 1), 3, [2, 3])
            for name in split.state.ring:
                a, b = split.state.ring[name], one.state.ring[name]
                diff = (a - b).abs()
                bad = ~torch.isclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True)
                where = bad.nonzero()[:6].tolist()
                print(variant, "vf", vf, "hw", hw, name, tuple(a.shape), "maxdiff", float(diff.nan_to_num(0).max()),
                      "bad", int(bad.sum()), "nan", int(a.isnan().sum()), int(b.isnan().sum()), "at", where)
            print(variant, vf, hw, "ckpt", float((split.state.checkpoint - one.state.checkpoint).abs().max()),
                  "cursor", split.state.cursor.tolist(), one.state.cursor.tolist())
