"""WrappedHaloUpdater, as NDSL's: a HaloUpdater with the state and the names of the
quantities it exchanges, so that an orchestrated method calls `update()`, `start()` and
`wait()` without arguments (host callbacks, for DaCe)."""
import dataclasses

from .orchestration import dace_inhibitor


class WrappedHaloUpdater:
    def __init__(self, updater, state, qty_x_names, qty_y_names=None, comm=None):
        self._updater = updater
        self._state = state
        self._qtx_x_names = qty_x_names
        self._qtx_y_names = qty_y_names
        self._comm = comm

    @staticmethod
    def check_for_attribute(state, attr):
        if dataclasses.is_dataclass(state):
            return state.__getattribute__(attr)
        if isinstance(state, dict):
            return attr in state.keys()
        return False

    def _quantities(self, names):
        if dataclasses.is_dataclass(self._state):
            return [getattr(self._state, n) for n in names]
        if isinstance(self._state, dict):
            return [self._state[n] for n in names]
        raise NotImplementedError

    @dace_inhibitor
    def start(self):
        if self._qtx_y_names is None:
            self._updater.start(self._quantities(self._qtx_x_names))
        else:
            self._updater.start(self._quantities(self._qtx_x_names), self._quantities(self._qtx_y_names))

    @dace_inhibitor
    def wait(self):
        self._updater.wait()

    @dace_inhibitor
    def update(self):
        self.start()
        self.wait()
