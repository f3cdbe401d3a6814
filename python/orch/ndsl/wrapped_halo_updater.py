"""NDSL's WrappedHaloUpdater in an orchestrated method: `self._halo.update()`, `.start()`,
`.wait()` become the library's compiled MPI exchange (orch's halo_update) when it is the
same exchange: scalar fields, all of them the component's own arrays (bound from `self`
or the method's arguments, so the library holds them), a tile communicator of orch's
layout, and one halo width. Otherwise the calls stay NDSL's, as host callbacks, and the
closure says why (`orch info`)."""
import dataclasses

from .. import layout

#: the updater's methods an orchestrated method may call
HALO_CALLS = ("update", "start", "wait")


def is_wrapped_halo_updater(value):
    """NDSL's WrappedHaloUpdater (by its shape: NDSL may not be importable here)."""
    return type(value).__name__ == "WrappedHaloUpdater" and all(hasattr(value, a) for a in ("_updater", "_state", "_qtx_x_names"))


def halo_exchange(updater, arrays):
    """What the closure's record of `updater` gains: {"halo": {fields, width}} to compile it,
    or {"halo_callback": why} to call NDSL's updater back."""
    why = _refusal(updater, arrays)
    if why is not None:
        return {"halo_callback": why}
    return {"halo": {"fields": [arrays[id(a)]["param"] for a in _arrays(updater)], "width": _width(updater._updater)}}


def _refusal(updater, arrays):
    if updater._qtx_y_names is not None:
        return "a vector update (x and y components) is exchanged by NDSL's updater"
    inner = updater._updater
    comm = getattr(inner, "_comm", None)
    if type(comm).__name__ != "TileCommunicator":
        return f"its communicator is a {type(comm).__name__}, not a TileCommunicator (one tile)"
    mine = layout._current().get("layout") or "1x1"
    theirs = "x".join(str(n) for n in getattr(getattr(comm, "partitioner", None), "layout", ()))
    if theirs != mine:
        return f"its partitioner's layout {theirs or '?'} is not orch's layout {mine} (ORCH_LAYOUT)"
    if layout.boundary() != "periodic":
        # NDSL's TilePartitioner wraps around the tile
        return "NDSL's tile wraps around (doubly periodic) but ORCH_BOUNDARY is edges"
    if _width(inner) is None:
        return "its exchanges do not share one halo width"
    try:
        fields = _arrays(updater)
    except (AttributeError, KeyError, NotImplementedError) as e:
        return f"its quantities cannot be read from its state ({type(e).__name__}: {e})"
    for name, a in zip(updater._qtx_x_names, fields):
        if a is None or id(a) not in arrays:
            return f"'{name}' is not one of the component's own arrays (from self or the method's arguments)"
    return None


def _arrays(updater):
    """The arrays the updater exchanges, read from its state as NDSL's start() reads them."""
    from .closure import _array

    state = updater._state
    if dataclasses.is_dataclass(state):
        quantities = [getattr(state, n) for n in updater._qtx_x_names]
    elif isinstance(state, dict):
        quantities = [state[n] for n in updater._qtx_x_names]
    else:
        raise NotImplementedError(f"a state of type {type(state).__name__}")
    return [_array(q) for q in quantities]


def _width(inner):
    """The one halo width of every exchange the updater was made for (NDSL's n_points)."""
    widths = {info.specification.n_points for t in getattr(inner, "_transformers", {}).values() for info in getattr(t, "_infos_x", ())}
    return int(widths.pop()) if len(widths) == 1 else None
