from .dace_config import DaceConfig, DaCeOrchestration
from .orchestration import dace_inhibitor, orchestrate, orchestrate_function
