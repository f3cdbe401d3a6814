"""temporary(...): a zero-filled array for intermediate results inside a program."""
import numpy as np


def temporary(like=None, *, shape=None, dtype=None):
    """`temporary(q)`: shape and dtype of field q; `temporary(shape=(nx, ny, nz), dtype=Float)`.

    In Python mode this allocates a numpy array (GT4Py's numpy backend takes it as is);
    compiled programs allocate their own."""
    if like is not None:
        if shape is not None:
            raise TypeError("temporary() takes a field or shape=(...), not both")
        return np.zeros(np.shape(like), dtype=dtype or like.dtype)
    if shape is None:
        raise TypeError("temporary() takes a field (temporary(q)) or shape=(nx, ny, nz)")
    return np.zeros(tuple(shape), dtype=dtype or np.float64)
