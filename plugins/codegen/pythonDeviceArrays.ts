/**
 * The parts of the generated Python binding (pythonBinding.ts) that differ for a CUDA
 * build (signature target 'cuda'): fields are device arrays, taken from any object with
 * `__cuda_array_interface__` (CuPy, Numba, PyTorch ...), and a call may return before its
 * kernels finish. A CPU binding contains none of this, so its call path is unchanged.
 *
 * Checks mirror the CPU ones (dtype, rank, whole-element and non-broadcast strides,
 * alignment, read-only arrays a program writes, overlaps), read from the interface
 * instead of numpy's flags. Any strides work; kernels read coalesced when the preset's
 * last loop axis is contiguous (I for the cuda presets: a Fortran-ordered IJK array).
 *
 * A bound device array stays bound while the call passes the same object with an equal
 * interface dict (shape, strides, pointer, stream): CuPy arrays can be reshaped in place,
 * so identity alone would not do.
 */

/** Python source of `_check_device_array(program, param, value)`, module level. */
export function deviceArrayCheck(): string[] {
  return [
    'def _check_device_array(program, param, value):',
    '    """Full checks of a field argument of a CUDA build; returns (data pointer, shape,',
    '    element strides, byte range [low, high) for the overlap check, interface dict)."""',
    '    name, dtype, axes = param["name"], param["dtype"], param["axes"]',
    '    cai = getattr(value, "__cuda_array_interface__", None)',
    '    if cai is None:',
    '        if isinstance(value, _np.ndarray):',
    '            raise TypeError(f"{program}: argument \'{name}\' is a host numpy array, but the program was built for CUDA and takes device arrays: copy it to the device, e.g. cupy.asarray({name})")',
    '        raise TypeError(f"{program}: argument \'{name}\' must be a device array with __cuda_array_interface__ (e.g. CuPy; {dtype}, {axes}), got {type(value).__name__}")',
    '    try:',
    '        shape = tuple(int(n) for n in cai["shape"])',
    '        got = _np.dtype(str(cai["typestr"]))  # str(): numpy reads None as float64',
    '        data, readonly = cai["data"]',
    '        strides = cai.get("strides")',
    '    except (KeyError, TypeError, ValueError) as e:',
    '        raise TypeError(f"{program}: argument \'{name}\' has a malformed __cuda_array_interface__ ({e!r})") from None',
    '    if cai.get("mask") is not None:',
    '        raise TypeError(f"{program}: argument \'{name}\' is a masked device array; pass its data without a mask")',
    '    if got != _NP[dtype]:',
    '        raise TypeError(f"{program}: argument \'{name}\' has dtype {got}, expected {dtype}: convert it with .astype({dtype})")',
    '    if len(shape) != len(axes) + len(param.get("dims", [])):',
    '        raise ValueError(f"{program}: argument \'{name}\' is a {axes or \'table\'} field with {len(axes)} spatial dimension(s) and data dimensions {tuple(param.get(\'dims\', []))}, got a device array of shape {shape}")',
    '    item = got.itemsize',
    '    if strides is None:  # C-contiguous',
    '        strides, step = [0] * len(shape), item',
    '        for axis in reversed(range(len(shape))):',
    '            strides[axis] = step',
    '            step *= max(1, shape[axis])',
    '    strides = tuple(int(s) for s in strides)',
    '    if len(strides) != len(shape):',
    '        raise TypeError(f"{program}: argument \'{name}\' has {len(strides)} strides for {len(shape)} dimensions")',
    '    for axis, (extent, stride) in enumerate(zip(shape, strides)):',
    '        if stride % item:',
    '            raise ValueError(f"{program}: argument \'{name}\' has strides {strides} bytes, not whole {item}-byte elements: pass a contiguous copy")',
    '        if stride == 0 and extent > 1:',
    '            raise ValueError(f"{program}: argument \'{name}\' is a broadcast view (stride 0 on axis {axis}): pass a real array")',
    '    _check_data_dims(program, param, shape, tuple(s // item for s in strides))',
    '    count = 1',
    '    for extent in shape:',
    '        count *= extent',
    '    if count and not data:',
    '        raise ValueError(f"{program}: argument \'{name}\' has a null device pointer")',
    '    if data % item:',
    '        raise ValueError(f"{program}: argument \'{name}\' is not aligned to its {item}-byte elements: pass a contiguous copy")',
    '    if param.get("written") and readonly:',
    '        raise ValueError(f"{program}: argument \'{name}\' is read-only, but the program writes it")',
    '    low = data + sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0 and n > 0)',
    '    high = data + item + sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0 and n > 0)',
    '    span = (low, high if count else low)',
    '    return data, shape, tuple(s // item for s in strides), span, dict(cai)',
  ];
}

/**
 * Python source (method bodies at class level, one indent) of the CUDA-only members:
 * the overlap check on byte ranges (numpy cannot look into device memory), `sync`,
 * `set_stream` and the `synchronize` setting.
 */
export function deviceMethods(symbol: string): string[] {
  return [
    '    def _check_overlaps(self):',
    '        """Fields are restrict pointers in the library: two arguments must not share memory',
    '        (compared as byte ranges, as numpy.may_share_memory does for host arrays)."""',
    '        names = [p["name"] for p in SIGNATURE["params"] if p["kind"] == "field"]',
    '        for i, (low, high) in enumerate(self._spans):',
    '            for j in range(i):',
    '                other_low, other_high = self._spans[j]',
    '                if low < other_high and other_low < high:',
    '                    raise ValueError(f"{SIGNATURE[\'program\']}: arguments {names[j]!r} and {names[i]!r} share memory; pass distinct arrays")',
    '',
    '    def sync(self):',
    '        """Waits for the kernels queued by the calls so far. Errors the kernels recorded (a',
    '        read at a variable K offset outside the array, a kernel fault) raise ProgramError',
    '        here, naming the program and the stencil."""',
    '        if self._handle is None:',
    '            _orch_closed()',
    '        if self._sync(self._handle):',
    '            raise ProgramError(self._error())',
    '',
    '    def set_stream(self, stream):',
    '        """Queues later calls on `stream`: a cudaStream_t as an int (CuPy: `stream.ptr`), an',
    '        object with `.ptr`, or None for a stream of the handle\'s own. Work already queued',
    '        finishes first."""',
    '        if self._handle is None:',
    '            _orch_closed()',
    '        ptr = getattr(stream, "ptr", stream)',
    '        if self._set_stream(self._handle, _ct.c_void_p(ptr or None)):',
    '            raise ProgramError(self._error())',
    '',
    '    def _bind_device(self, lib, synchronize):',
    `        self._sync = lib.${symbol}_sync`,
    '        self._sync.argtypes, self._sync.restype = [_ct.c_void_p], _ct.c_int',
    `        self._set_stream = lib.${symbol}_set_stream`,
    '        self._set_stream.argtypes, self._set_stream.restype = [_ct.c_void_p, _ct.c_void_p], _ct.c_int',
    '        self.synchronize = synchronize',
    '',
  ];
}
