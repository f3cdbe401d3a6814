"""HaloUpdater, as NDSL's: made once from the fields' halo specifications, then
`update(quantities)` or `start(quantities)` ... `wait()`: Irecv, pack, Isend; wait, unpack.
`_transformers` (one per neighbour) hold the exchange specifications, as NDSL's do."""
import numpy as np

from ..comm.partitioner import DIRECTIONS


class HaloExchangeSpec:
    """NDSL's: a field's specification, the slices it sends and those it receives."""

    def __init__(self, specification, pack_slices, pack_clockwise_rotation, unpack_slices):
        self.specification = specification
        self.pack_slices = pack_slices
        self.pack_clockwise_rotation = pack_clockwise_rotation
        self.unpack_slices = unpack_slices


class HaloDataTransformer:
    """Packs the strips of every field sent to one neighbour into one buffer, and unpacks them."""

    def __init__(self, exchange_descriptors_x):
        self._infos_x = tuple(exchange_descriptors_x)
        size = sum(int(np.prod([s.stop - s.start for s in info.pack_slices[:2]])) * info.specification.shape[2] for info in self._infos_x)
        self._pack_buffer = np.empty(size, dtype=self._infos_x[0].specification.dtype)
        self._unpack_buffer = np.empty_like(self._pack_buffer)

    def pack(self, quantities):
        n = 0
        for q, info in zip(quantities, self._infos_x):
            strip = q.data[info.pack_slices].ravel()
            self._pack_buffer[n:n + strip.size] = strip
            n += strip.size
        return self._pack_buffer

    def unpack(self, quantities):
        n = 0
        for q, info in zip(quantities, self._infos_x):
            target = q.data[info.unpack_slices]
            target[...] = self._unpack_buffer[n:n + target.size].reshape(target.shape)
            n += target.size


def _strips(spec, direction):
    """The compute strip sent towards `direction`, and the halo strip received from it."""
    n, (oi, oj), (ei, ej) = spec.n_points, spec.origin[:2], spec.extent[:2]
    def axis(o, e, d):
        send = {-1: slice(o, o + n), 0: slice(o, o + e), 1: slice(o + e - n, o + e)}[d]
        recv = {-1: slice(o - n, o), 0: slice(o, o + e), 1: slice(o + e, o + e + n)}[d]
        return send, recv
    (si, ri), (sj, rj) = axis(oi, ei, direction[0]), axis(oj, ej, direction[1])
    return (si, sj, slice(None)), (ri, rj, slice(None))


class HaloUpdater:
    def __init__(self, comm, tag, transformers, timer=None, ranks=None):
        self._comm = comm
        self._tag = tag
        self._transformers = transformers  # direction -> HaloDataTransformer
        self._ranks = ranks or {}  # direction -> the neighbour's rank
        self._inflight = None
        self._requests = []

    @classmethod
    def from_scalar_specifications(cls, comm, specifications, boundaries, tag, optional_timer=None):
        transformers, ranks = {}, {}
        for boundary in boundaries:
            specs = []
            for spec in specifications:
                send, recv = _strips(spec, boundary.direction)
                specs.append(HaloExchangeSpec(spec, send, boundary.n_clockwise_rotations, recv))
            transformers[boundary.direction] = HaloDataTransformer(specs)
            ranks[boundary.direction] = boundary.to_rank
        return cls(comm, tag, transformers, optional_timer, ranks)

    def _message_tag(self, direction):
        # one message per direction (on a small periodic tile one neighbour lies in several)
        return self._tag * 16 + DIRECTIONS.index(direction)

    def update(self, quantities_x, quantities_y=None):
        self.start(quantities_x, quantities_y)
        self.wait()

    def start(self, quantities_x, quantities_y=None):
        if quantities_y is not None:
            raise NotImplementedError("the NDSL test double exchanges scalar fields only")
        if self._inflight is not None:
            raise RuntimeError("Previous exchange hasn't been properly finished.")
        comm = self._comm.comm
        self._requests = []
        for direction, transformer in self._transformers.items():
            # what travels towards -direction arrives from `direction`
            opposite = (-direction[0], -direction[1])
            self._requests.append(comm.Irecv(transformer._unpack_buffer, source=self._ranks[direction], tag=self._message_tag(opposite)))
        for direction, transformer in self._transformers.items():
            self._requests.append(comm.Isend(transformer.pack(quantities_x), dest=self._ranks[direction], tag=self._message_tag(direction)))
        self._inflight = tuple(quantities_x)

    def wait(self):
        if self._inflight is None:
            raise RuntimeError('Halo update "wait" call before "start"')
        for request in self._requests:
            request.wait()
        for transformer in self._transformers.values():
            transformer.unpack(self._inflight)
        self._inflight = None
