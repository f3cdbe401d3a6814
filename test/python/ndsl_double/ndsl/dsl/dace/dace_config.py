"""DaceConfig and DaCeOrchestration, as NDSL's: the mode comes from FV3_DACEMODE."""
import enum
import os


class DaCeOrchestration(enum.Enum):
    Python = 0
    Build = 1
    BuildAndRun = 2
    Run = 3


class DaceConfig:
    def __init__(self, communicator, backend, tile_nx=0, tile_nz=0, orchestration=None):
        if orchestration is None:
            self._orchestrate = DaCeOrchestration[os.getenv("FV3_DACEMODE") or "Python"]
        else:
            self._orchestrate = orchestration
        self._backend = backend
        self.layout = (1, 1)
        self.rank_size = 1

    def is_dace_orchestrated(self):
        return self._orchestrate != DaCeOrchestration.Python

    def get_orchestrate(self):
        return self._orchestrate

    def get_backend(self):
        return self._backend
