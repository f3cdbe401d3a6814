"""Calls of programs built for CUDA (a cuda preset): whether a call waits for its kernels,
which stream they run on, and waiting for them. CPU builds run to completion in the call
and are not affected.

By default a compiled call waits for its kernels, so errors the kernels record (a read at
a variable K offset outside the array, a kernel fault) raise `ProgramError` at the call.
`set_synchronize(False)` makes calls return once their kernels are queued, so the host
can go on while the GPU works; `sync()` then waits for every program's kernels and raises
those errors, naming the program and the stencil.
"""
import weakref

_open = weakref.WeakSet()
_settings = {"synchronize": True, "stream": None}


def register(binding):
    """Called for each CUDA program binding the package opens: applies the settings."""
    binding.synchronize = _settings["synchronize"]
    if _settings["stream"] is not None:
        binding.set_stream(_settings["stream"])
    _open.add(binding)
    return binding


def set_synchronize(flag):
    """Whether compiled CUDA program calls wait for their kernels (default True)."""
    _settings["synchronize"] = bool(flag)
    for binding in list(_open):
        binding.synchronize = _settings["synchronize"]


def synchronize():
    """The current setting of `set_synchronize`."""
    return _settings["synchronize"]


def set_stream(stream):
    """Queues CUDA program calls on `stream` (an int cudaStream_t, or an object with `.ptr`
    such as a CuPy stream); None gives each program a stream of its own again."""
    _settings["stream"] = stream
    for binding in list(_open):
        binding.set_stream(stream)


def sync():
    """Waits for the kernels of every CUDA program called so far; raises the first error
    one of them recorded (each program is waited for even so)."""
    first = None
    for binding in list(_open):
        try:
            binding.sync()
        except Exception as e:  # noqa: BLE001 - re-raised below, after the others are waited for
            first = first or e
    if first is not None:
        raise first
