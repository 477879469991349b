"""Session 34 diagnostic: the largest normwise error of test_verify_window_with_strong_decays
(one variant) on this machine's device, by wrapping harness.rel_err."""
import sys
sys.path.insert(0, "tests")
import harness
import test_speculative as ts

orig, worst = harness.rel_err, [0.0]
def rel(a, r, floor=0.0):
    e = orig(a, r, floor)
    worst[0] = max(worst[0], e)
    return e
harness.rel_err = rel
harness.check.__globals__["rel_err"] = rel
try:
    ts.test_verify_window_with_strong_decays(sys.argv[1], sys.argv[2])
    status = "pass"
except AssertionError as exc:
    status = "FAIL " + str(exc)[:160]
print(sys.argv[1], sys.argv[3] if len(sys.argv) > 3 else "", "worst", f"{worst[0]:.3e}", status)
