"""backend= names from GT4Py/NDSL code, called under ORCH_MODE=build-and-run: numpy runs in
Python mode (nothing built), the CPU and GPU names ask orch build for the cpu and cuda
presets, an unknown name raises. Prints one line per case."""
import os
import sys

import numpy as np

import orch
from orch import cli
from gt4py.cartesian import gtscript
from ndsl.dsl.typing import FloatField
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

asked = []


def fake_build(file, entry, defines, *, preset=None, **options):
    asked.append(preset)
    raise orch.BuildError("stop here")


def copy(a: FloatField, b: FloatField):
    with computation(PARALLEL), interval(...):
        b = a


a = np.full((3, 3, 2), 2.0)
b = np.zeros((3, 3, 2))
gtscript.stencil(backend="numpy", definition=copy)(a, b)
print("numpy", orch.mode(), b.sum(), sorted(d for d in os.listdir(".") if d.startswith(".gt_cache")))
b[...] = 0
gtscript.stencil(backend="debug", definition=copy)(a, b)
print("debug", orch.mode(), b.sum(), sorted(d for d in os.listdir(".") if d.startswith(".gt_cache")))

cli.build_entry = fake_build
for name in ["gt:cpu_ifirst", "gt:cpu_kfirst", "dace:cpu", "gt:gpu", "dace:gpu", "cuda"]:
    try:
        gtscript.stencil(backend=name, definition=copy)(a, b)
    except orch.BuildError:
        pass
    print(name, asked.pop())

try:
    gtscript.stencil(backend="gt:gpuu", definition=copy)
except orch.OrchError as e:
    print(type(e).__name__, isinstance(e, ValueError), e)
sys.stdout.flush()
