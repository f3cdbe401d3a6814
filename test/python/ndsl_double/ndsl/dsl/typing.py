"""NDSL's type aliases for stencil signatures."""
import numpy as np
from gt4py.cartesian import gtscript

Float = np.float64
Int = np.int64
Bool = np.bool_
FloatField = gtscript.Field[gtscript.IJK, np.float64]
FloatFieldIJ = gtscript.Field[gtscript.IJ, np.float64]
FloatFieldK = gtscript.Field[gtscript.K, np.float64]
IntField = gtscript.Field[gtscript.IJK, np.int64]
BoolField = gtscript.Field[gtscript.IJK, np.bool_]
