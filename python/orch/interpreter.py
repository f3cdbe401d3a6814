"""orch's reference interpreter for Python mode without GT4Py: one long-lived `orch serve`
per Python process, fields sent and received as raw bytes over its stdin/stdout (the
framing of cli/serveFrames.ts), so a call costs the interpreter's time, not files and
process starts. The serve process lowers each stencil once and keeps it."""
import atexit
import json
import os
import struct
import subprocess
import threading

from . import cli
from .definition_errors import definition_error
from .errors import CallError, OrchError

#: diagnostics about the call's arguments, raised as ValueError like GT4Py's
_CALL_CODES = {"E_ARG_SHAPE", "E_ARG_DTYPE", "E_DOMAIN_FIT", "E_DOMAIN_EMPTY", "E_OUT_OF_BOUNDS", "E_USAGE_ORIGIN", "E_USAGE_DOMAIN"}

#: diagnostics that are orch's own failures, never the definition's
_NOT_USER_CODES = {"E_INTERNAL", "E_PLUGIN"}

MAGIC = b"ORCH"

#: numpy dtype name -> orch's (others are sent under their numpy name; orch refuses them)
_DTYPES = {"float64": "float64", "float32": "float32", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "bool": "bool"}


def _frame(header, arrays):
    """The frame's bytes up to the arrays (which are written after it, without copies)."""
    header = dict(header, arrays=[{"name": n, "dtype": _DTYPES.get(a.dtype.name, a.dtype.name), "shape": list(a.shape), "nbytes": a.nbytes} for n, a in arrays])
    text = json.dumps(header).encode()
    return MAGIC + struct.pack("<I", len(text)) + text


def _wire(value):
    """`value` as the bytes orch reads: C-contiguous, native byte order (a copy only when needed)."""
    import numpy as np

    if value.dtype.byteorder not in "=|":
        value = value.astype(value.dtype.newbyteorder("="))
    return np.ascontiguousarray(value)


class Serve:
    """One `orch serve` process; started on the first call, again after it died."""

    def __init__(self):
        self._process = None
        self._owner = None
        self._next = 0
        self._lock = threading.Lock()
        atexit.register(self.close)

    def call(self, header, arrays):
        """Sends one request; returns the answer's header, its arrays as [(name, dtype, shape, bytes)] under "arrays"."""
        with self._lock:
            if self._owner != os.getpid():
                # a forked child (multiprocessing) must not share its parent's pipes
                self._process, self._owner = None, os.getpid()
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(cli.command() + ["serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self._next += 1
            process = self._process
            try:
                process.stdin.write(_frame(dict(header, id=self._next), arrays))
                for _, a in arrays:
                    process.stdin.write(a.data if a.size else b"")
                process.stdin.flush()
                answer = self._read(process)
            except (BrokenPipeError, OSError, _Ended) as e:
                self._stopped(process, header["target"], e)
            except BaseException:
                # interrupted mid-exchange (KeyboardInterrupt in Jupyter, which signals only
                # Python): its answer would be read as the next call's, so this process goes
                process.kill()
                process.wait()
                self._process = None
                raise
            if answer.get("id") != self._next:
                self._stopped(process, header["target"], f"answer {answer.get('id')} to request {self._next}")
            return answer

    def _read(self, process):
        head = _exactly(process.stdout, 8)
        if head[:4] != MAGIC:
            process.kill()
            raise _Ended(f"it answered {head!r}, not a frame: the orch command line ({cli.locate().detail}) and this Python package are different versions")
        (length,) = struct.unpack("<I", head[4:])
        answer = json.loads(_exactly(process.stdout, length))
        answer["arrays"] = [(a["name"], a["dtype"], a["shape"], _exactly(process.stdout, a["nbytes"])) for a in answer.get("arrays", [])]
        return answer

    def _stopped(self, process, target, why):
        """The serve process died or broke the framing mid-call: a clean error, and a fresh one next time."""
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        self._process = None
        raise OrchError(
            f"orch's interpreter (orch serve) stopped while running {target} (exit status {code}; {why}); "
            "its messages are above. The next call starts a new one."
        ) from None

    def close(self):
        process, self._process = self._process, None
        if process is not None and self._owner == os.getpid() and process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


class _Ended(Exception):
    """The serve process's stdout ended (or went wrong) inside a frame."""


def _exactly(stream, n):
    data = stream.read(n) if n else b""
    if len(data) != n:
        raise _Ended(f"its output ended after {len(data)} of {n} bytes")
    return data


_serve = Serve()

def describe(file, entry, externals=None, definition=False):
    """The entry's call interface (params with axes and dtypes; for a stencil its fields,
    which it never touches, and its scalars) as orch lowered it; nothing runs.
    `definition`: a refused definition raises DefinitionError (GT4Py's ValueError/TypeError)."""
    request = {"target": f"{file}:{entry}", "describe": True}
    if externals:
        request["externals"] = externals
    answer = _serve.call(request, [])
    if not answer.get("ok"):
        codes = [d.get("code") for d in answer.get("diagnostics", [])]
        message = f"orch could not lower {request['target']}:\n{answer.get('error')}"
        if definition and codes and not set(codes) & _NOT_USER_CODES:
            error = definition_error(message, codes)
        else:
            error = OrchError(message)
        error.diagnostics = answer.get("diagnostics", [])
        raise error
    return answer["interface"]


def run(file, entry, fields, scalars, origin, domain, externals=None):
    """One call of stencil `file:entry` on orch's interpreter; the fields it changed are updated in place.
    `externals`: those the stencil object was made with, tagged as in a closure."""
    import numpy as np

    request = {"target": f"{file}:{entry}", "scalars": scalars}
    if origin is not None:
        request["origin"] = {k: list(v) for k, v in origin.items()} if isinstance(origin, dict) else [int(x) for x in origin]
    if domain is not None:
        request["domain"] = [int(x) for x in domain]
    if externals:
        request["externals"] = externals
    answer = _serve.call(request, [(name, _wire(value)) for name, value in fields.items()])
    if not answer.get("ok"):
        codes = {d.get("code") for d in answer.get("diagnostics", [])}
        kind = CallError if codes and codes <= _CALL_CODES else OrchError
        error = kind(f"orch could not run {request['target']}:\n{answer.get('error')}")
        # the diagnostics as data: [{code, message, file, line, col, hint, ...}]
        error.diagnostics = answer.get("diagnostics", [])
        raise error
    for name, dtype, shape, data in answer["arrays"]:
        fields[name][...] = np.frombuffer(data, dtype=dtype).reshape(shape)
