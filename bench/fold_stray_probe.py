"""Where do a commit's stray checkpoint writes land? (H200, session 16)

bench/fold_nan_probe.py found NaN in the checkpoints of rows that a commit did not fold,
at fold launches of several warps. For Mamba-2 Nano ([16]/w4 at 1 and 3 stages, [32]/w2)
and KDA ([16]/w4/s3, the tabled T = 8 launch, and [32]/w2): batch 256, staggered cursors,
a verify of seeded draft counts, a commit of seeded accepted counts, ring rows past
L - 2 set to NaN or 0. Prints, per launch, the rows whose checkpoint changed although
they did not fold, and for a few of them which value heads, state rows and key columns
changed (one warp's share of the rows showed the race: a warp that read the advanced
cursor folded its rows), and the folded rows' largest difference from the [32]/w2 fold.
Usage (H200): python bench/fold_stray_probe.py
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402,F401
import torch  # noqa: E402

from fold_nan_probe import B, commit_once  # noqa: E402


def main():
    for variant, geometry, launches in (("mamba2", "nemotron3-nano-4b", [(16, 4, 3), (16, 4, 1), (32, 2, 3)]),
                                        ("kda", "kimi-linear-48b", [(16, 4, 3), (32, 2, 3)])):
        ref = None
        for launch in launches[::-1]:   # the [32]/w2 launch first: the folded rows' reference
            for fill in (float("nan"), 0.0):
                c = commit_once(variant, geometry, launch, fill)
                changed = (c.after != c.before) & ~(torch.isnan(c.after) & torch.isnan(c.before))
                stray = changed.flatten(1).any(1) & ~c.folded
                res = {"launch": launch, "fill": fill, "folded": int(c.folded.sum()),
                       "stray_rows": stray.nonzero().flatten().tolist()[:20],
                       "nan_elems": int(torch.isnan(c.after).sum())}
                if ref is not None and fill == 0.0:
                    res["folded_maxdiff_vs_ref"] = (c.after[c.folded] - ref[c.folded]).abs().max().item()
                if launch == launches[-1] and fill == 0.0:
                    ref = c.after
                for r in res["stray_rows"][:3]:
                    idx = changed[r].nonzero()
                    res.setdefault("examples", []).append({
                        "row": r, "cursor_before": c.cursor_before[r, 0].item(),
                        "acc": c.accepted[r].item(), "drafted": c.counts[r].item(),
                        "cursor_after": c.cursor_after[r].tolist()[:4], "n_changed": idx.shape[0],
                        "heads": sorted(set(idx[:, 0].tolist()))[:8],
                        "vrows": sorted(set(idx[:, 1].tolist()))[:20],
                        "kcols": [idx[:, 2].min().item(), idx[:, 2].max().item()],
                        "neighbours_folded": [bool(c.folded[r - 1]) if r else None,
                                              bool(c.folded[r + 1]) if r + 1 < B else None],
                        "nan_here": int(torch.isnan(c.after[r]).sum())})
                print(variant, json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
