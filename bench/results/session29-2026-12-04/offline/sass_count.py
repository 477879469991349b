"""Static SASS instruction counts of replay_decode_kernel (sm_90, compiled offline) in the
checkout `sys.argv[1]`, each at the batch-256 launch of the tables in `sys.argv[2]`
(a checkout's generated/), so that two commits compile the same launches."""
import sys, re, subprocess, glob, os, tempfile
root, tables = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
os.chdir(root)
sys.path.insert(0, "tests"); sys.path.insert(0, ".")
from test_compile_sm90 import compile_kernel
from replaygen import load
from replaygen.tuning import Launch
import triton
BIN = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
OUT = tempfile.mkdtemp()
cases = [("gdn", "qwen3.5-4b", {}), ("gdn", "qwen3.5-4b", dict(read_dtype="nvfp4")),
         ("kda", "kimi-linear-48b", {}), ("gla", "gla-1.3b", {}), ("mamba2", "nemotron3-nano-4b", {})]
for variant, config, opts in cases:
    kern = load(variant, config=config, L=16, state_dtype="fp32", record_dtype="bf16", **opts)
    # one launch for both trees: the current table's batch-256 entry
    cur = load(variant, config=config, L=16, state_dtype="fp32", record_dtype="bf16", tuning=os.path.join(tables, variant, "tuning.json"), **opts)
    lk = cur.table_launch("replay_decode", 256, "NVIDIA H200")
    flags = {"FUSED_FLUSH": False} if lk.separate_flush else {}
    k = compile_kernel(kern, "replay_decode_kernel", launch=lk, **flags)
    p = os.path.join(OUT, kern.name + ".cubin"); open(p, "wb").write(k.asm["cubin"])
    sass = subprocess.run([f"{BIN}/cuobjdump", "-sass", p], capture_output=True, text=True).stdout
    ins = re.findall(r"/\*[0-9a-f]{4}\*/\s+([A-Z][A-Z0-9_.]*)", sass)
    fsel = sum(1 for i in ins if i.startswith("FSEL"))
    print(variant, opts.get("read_dtype", "fp32"), len(ins), "FSEL", fsel, flush=True)
