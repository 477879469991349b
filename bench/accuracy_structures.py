"""The error study's NVFP4 read copy through each decode structure (key chunks, value
tiles): which read path carries session 10's 3.7% error rise over 2026-11-29.

Usage: python bench/accuracy_structures.py OUT [TOKENS]
Runs `replaygen.accuracy.run` for GDN with fp32 + NVFP4 read through the key-chunk decode
(the default for this configuration) and through the value-tile decode, same inputs
(same seed), and writes OUT/result.json and the summary table.
"""
import json
import sys
from pathlib import Path

from replaygen import accuracy

accuracy.MODES["fp32+nvfp4 kchunks"] = dict(state_dtype="fp32", read_dtype="nvfp4",
                                            decode_structure="kchunks")
accuracy.MODES["fp32+nvfp4 vtiles"] = dict(state_dtype="fp32", read_dtype="nvfp4",
                                           decode_structure="vtiles")
out = Path(sys.argv[1])
tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
result = accuracy.run("gdn", tokens, 32, "cuda", ["fp32+nvfp4 kchunks", "fp32+nvfp4 vtiles"],
                      budget_s=90)
accuracy.write(result, out, plot=False)
print(json.dumps(result.get("summary", {}), indent=1)[:3000])
