"""Python mode's transport to `orch serve` (python/orch/interpreter.py), driven as a user
drives it: stencil calls on numpy arrays. usage: interpreter_transport.py CASE FOLDER [N]
Each case asserts its results against numpy and prints one line starting with `ok`."""
import os
import sys
import threading
import time

import numpy as np

import orch
from orch.errors import OrchError
from gt4py.cartesian.frontend import exceptions as gt_exceptions

CASE, FOLDER = sys.argv[1], sys.argv[2]
sys.path.insert(0, FOLDER)

KINDS = """import numpy as np
from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval

from orch import stencil


@stencil
def mixed(a: Field[np.float64], b: Field[np.float32], n: Field[np.int32], m: Field[np.int64], flag: Field[bool], out: Field[np.float64], w: float, k: int, on: bool):
    with computation(PARALLEL), interval(...):
        out = a + b + n + m
        if flag and on:
            a = a * w
        b = b * 2.0
        n = n + k
        m = m * 2
        flag = not flag


@stencil
def copy(src: Field[np.float64], dst: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        dst = src * 1.5
"""


BROKEN = """import numpy as np
from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval

from orch import stencil


@stencil
def uses_missing(a: Field[np.float64], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = a * MISSING_SCALE
"""

#: GT4Py refuses each of these when @gtscript.stencil runs: ValueError from its parallel-model
#: checks, TypeError for an undecorated helper; lazy_stencil waits for the first call
REFUSED = """import numpy as np
from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval

from orch import lazy_stencil, stencil


def halve(x):
    return 0.5 * x


def self_shift(q: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        q = q[1, 0, 0]


def plain_helper(q: Field[np.float64], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = halve(q)


def none_start(q: Field[np.float64]):
    with computation(PARALLEL), interval(None, -1):
        q = 0.0


late = lazy_stencil(self_shift)
"""


def write(name, text):
    with open(os.path.join(FOLDER, name), "w") as f:
        f.write(text)


def mixed_call(seed, shape=(6, 5, 3)):
    """One call of `mixed` on in, out and inout fields of five dtypes, three of them not
    C-contiguous (a strided view, a Fortran-order array, a transposed one); checks every
    field against numpy, and that the writes reached the arrays the caller holds."""
    import kinds

    r = np.random.default_rng(seed)
    big = r.random((shape[0] * 2, shape[1], shape[2]))
    a = big[::2]  # a strided view: the writes must reach `big`
    b = np.asfortranarray(r.random(shape).astype(np.float32))
    n = np.ascontiguousarray(r.integers(-50, 50, shape[::-1]).astype(np.int32)).T  # transposed
    m = r.integers(-2**40, 2**40, shape).astype(np.int64)  # beyond int32
    flag = r.random(shape) > 0.5
    out = np.full(shape, np.nan)
    before = {k: v.copy() for k, v in dict(a=a, b=b, n=n, m=m, flag=flag).items()}
    w, k = 1.0 + seed / 8, seed % 7 - 3
    kinds.mixed(a, b, n, m, flag, out, w, k, True)
    assert not a.flags.c_contiguous and not b.flags.c_contiguous and not n.flags.c_contiguous
    assert np.array_equal(out, before["a"] + before["b"].astype(np.float64) + before["n"] + before["m"]), "out"
    assert np.array_equal(big[::2], np.where(before["flag"], before["a"] * w, before["a"])), "a (inout, strided view)"
    assert np.array_equal(big[1::2], np.random.default_rng(seed).random(big.shape)[1::2]), "the rows between a's were left alone"
    assert b.dtype == np.float32 and np.array_equal(b, before["b"] * 2), "b (float32, Fortran order)"
    assert n.dtype == np.int32 and np.array_equal(n, before["n"] + k), "n (int32, transposed)"
    assert m.dtype == np.int64 and np.array_equal(m, before["m"] * 2), "m (int64)"
    assert flag.dtype == bool and np.array_equal(flag, ~before["flag"]), "flag (bool)"


def read_only_inputs():
    """Inputs the stencil only reads may be read-only (GT4Py takes them): a frozen array and
    a broadcast view (zero strides); they are not written back."""
    import kinds

    src = np.arange(4 * 3 * 2, dtype=np.float64).reshape(4, 3, 2)
    src.flags.writeable = False
    dst = np.zeros((4, 3, 2))
    kinds.copy(src, dst)
    assert np.array_equal(dst, src * 1.5), "dst from a read-only src"
    plane = np.broadcast_to(np.arange(2.0), (4, 3, 2))
    kinds.copy(plane, dst)
    assert np.array_equal(dst, np.broadcast_to(np.arange(2.0) * 1.5, (4, 3, 2))), "dst from a broadcast src"


if CASE == "kinds":
    write("kinds.py", KINDS)
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    for i in range(calls):
        mixed_call(i)
    read_only_inputs()
    print(f"ok {calls} calls, pid {orch.interpreter._serve._process.pid}")

elif CASE == "threads":
    # four threads share this process's one `orch serve`; each checks its own results
    write("kinds.py", KINDS)
    failures = []

    def work(seed):
        try:
            for i in range(5):
                mixed_call(seed * 10 + i)
        except BaseException as e:  # reported by the main thread
            failures.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    print("ok 4 threads x 5 calls")

elif CASE == "fork":
    # a forked child gets its own serve process: sharing the parent's pipes would mix answers
    write("kinds.py", KINDS)
    mixed_call(0)
    parent = orch.interpreter._serve._process.pid
    child = os.fork()
    if child == 0:
        try:
            mixed_call(1)
            same = orch.interpreter._serve._process.pid == parent
            os._exit(2 if same else 0)
        except BaseException as e:
            print(f"child: {e!r}", flush=True)
            os._exit(1)
    _, status = os.waitpid(child, 0)
    assert os.WEXITSTATUS(status) == 0, f"the child failed (exit status {os.WEXITSTATUS(status)}; 2: it used its parent's serve process)"
    mixed_call(2)
    assert orch.interpreter._serve._process.pid == parent
    print("ok parent and forked child each had their own")

elif CASE == "interrupt":
    # KeyboardInterrupt during a long call (Jupyter's interrupt signals only Python, so
    # orch serve goes on and answers later): the next call must get its own answer
    import signal

    write("kinds.py", KINDS)
    import kinds

    mixed_call(0)
    big = np.random.default_rng(5).random((240, 240, 40))
    out = np.zeros_like(big)

    def interrupt(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.1)
    try:
        kinds.copy(big, out)
        raise SystemExit("the long call finished before the interrupt: make it longer")
    except KeyboardInterrupt:
        pass
    mixed_call(1)
    print("ok the call after the interrupt got its own answer")

elif CASE == "crash":
    # ORCH_CLI is a stand-in that, the first time, reads part of the request and dies
    write("kinds.py", KINDS)
    try:
        mixed_call(0)
        raise SystemExit("a serve process that died mid-call raised nothing")
    except OrchError as e:
        print(f"error: {e}")
    mixed_call(1)  # the next call starts a new serve process
    print("ok after the crash")

elif CASE == "stale":
    # the serve process keeps the lowered stencil, but not past an edit of a module it read
    write("coeffs.py", "SCALE = 2.0\n")
    write("scaled.py", "from gt4py.cartesian.gtscript import PARALLEL, computation, interval\nfrom ndsl.dsl.typing import FloatField\n\nfrom coeffs import SCALE\nfrom orch import stencil\n\n\n@stencil\ndef scale(q: FloatField):\n    with computation(PARALLEL), interval(...):\n        q = q * SCALE\n")
    import scaled

    q = np.ones((3, 3, 2))
    scaled.scale(q)
    assert np.all(q == 2.0), q
    scaled.scale(q)
    assert np.all(q == 4.0), q
    time.sleep(0.05)
    write("coeffs.py", "SCALE = 3.0  # edited\n")
    scaled.scale(q)
    assert np.all(q == 12.0), f"the edit of coeffs.py was not seen: {q.ravel()[0]}"
    print("ok the edited import was seen")

elif CASE == "errors":
    # errors travel back as OrchError, and the serve process keeps serving
    write("kinds.py", KINDS)
    import kinds

    shape = (4, 4, 2)
    f = lambda dt: np.zeros(shape, dtype=dt)
    # a bad argument is refused in Python before anything travels, as in compiled mode
    try:
        kinds.mixed(f(np.float16), f(np.float32), f(np.int32), f(np.int64), f(bool), f(np.float64), 1.0, 1, True)
        raise SystemExit("a float16 field raised nothing")
    except TypeError as e:
        assert "float16" in str(e), str(e)
        print(f"refused: {e}")
    # an error only orch's interpreter finds comes back with its diagnostics, when the
    # stencil is decorated (GT4Py lowers it there too), as a DefinitionError (a ValueError)
    write("broken.py", BROKEN)
    try:
        import broken

        raise SystemExit("an unknown name raised nothing when the stencil was decorated")
    except OrchError as e:
        assert [d["code"] for d in e.diagnostics] == ["E_UNKNOWN_NAME"], e.diagnostics
        assert isinstance(e, orch.DefinitionError) and isinstance(e, ValueError), type(e)
        # also GT4Py's class for it, from the stand-in's gt4py.cartesian.frontend.exceptions
        assert isinstance(e, gt_exceptions.GTScriptSymbolError), type(e).__mro__
        print(f"error: {e}")
    write("refused.py", REFUSED)
    import refused

    cases = (
        (refused.self_shift, ValueError, "E_SELF_ASSIGN_OFFSET"),
        (refused.plain_helper, TypeError, "E_NOT_GTSCRIPT_FUNCTION"),
        (refused.none_start, gt_exceptions.GTScriptSyntaxError, "E_INTERVAL"),
    )
    for definition, kind, code in cases:
        try:
            orch.stencil(definition)
            raise SystemExit(f"{definition.__name__} raised nothing when decorated")
        except kind as e:
            assert isinstance(e, orch.DefinitionError) and isinstance(e, ValueError), type(e)
            # GT4Py raises a plain ValueError/TypeError for the first two, not a GTScript error
            assert isinstance(e, gt_exceptions.GTScriptSyntaxError) == (code == "E_INTERVAL"), type(e).__mro__
            assert [d["code"] for d in e.diagnostics] == [code], e.diagnostics
            print(f"refused at decoration: {code}")
    try:
        refused.late(np.zeros((4, 4, 2)))
        raise SystemExit("a lazy stencil GT4Py refuses ran")
    except orch.DefinitionError as e:
        assert [d["code"] for d in e.diagnostics] == ["E_SELF_ASSIGN_OFFSET"], e.diagnostics
        print("lazy_stencil refused at its first call")
    pid = orch.interpreter._serve._process.pid
    try:
        kinds.mixed(f(np.float64), f(np.float32), f(np.int32), f(np.int64), f(bool), f(np.float64), 1.0, 1, True, domain=(9, 4, 2))
        raise SystemExit("a domain larger than the fields raised nothing")
    except (OrchError, ValueError) as e:
        print(f"error: {e}")
    mixed_call(3)
    assert orch.interpreter._serve._process.pid == pid, "the serve process was restarted after an error it reported"
    print("ok one serve process answered the errors and the next call")

else:
    raise SystemExit(f"unknown case {CASE}")
