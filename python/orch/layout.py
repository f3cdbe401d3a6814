"""The rank layout a process runs in: which code path (A, BL, B, ... TR) of a program it
loads. Set with ORCH_LAYOUT=NXxNY, ORCH_RANK=r, ORCH_DOMAIN=nx,ny,nz (per rank) and
ORCH_HALO=h, or with `orch.set_layout(...)`; orch resolves the rank to its code path.
Under mpirun the rank comes from MPI's launcher (OMPI_COMM_WORLD_RANK, PMI_RANK) when
ORCH_RANK is not set. The compiled halo exchange reads ORCH_LAYOUT and ORCH_BOUNDARY
(`edges` or `periodic`), which `set_layout` sets for it."""
import os

from .errors import LayoutError

_settings = None
_used = False


def _launcher_rank():
    for var in ("ORCH_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        if os.environ.get(var):
            return int(os.environ[var])
    return 0


def rank():
    """This process's rank: set_layout's, else ORCH_RANK, else the MPI launcher's, else 0."""
    s = _current()
    return s.get("rank", _launcher_rank()) if s else _launcher_rank()


def boundary():
    """The tile boundary of halo exchanges: `edges` (default) or `periodic`."""
    b = os.environ.get("ORCH_BOUNDARY") or "edges"
    if b not in ("edges", "periodic"):
        raise LayoutError(f"ORCH_BOUNDARY={b!r}: use 'edges' or 'periodic'")
    return b


def set_layout(layout=None, rank=None, domain=None, halo=None, boundary=None):
    """`set_layout("6x6", rank=17, domain=(12, 12, 8))`; `set_layout(None)` for no layout.
    `rank` defaults to the MPI launcher's; `boundary` is `edges` or `periodic`."""
    global _settings
    if _used:
        raise LayoutError("set the layout before the first compiled program call: bound libraries are not reloaded")
    if boundary is not None:
        if boundary not in ("edges", "periodic"):
            raise LayoutError(f"boundary={boundary!r}: use 'edges' or 'periodic'")
        os.environ["ORCH_BOUNDARY"] = boundary
    if layout is None:
        _settings = {}
        os.environ.pop("ORCH_LAYOUT", None)
        return
    if not isinstance(layout, str):
        layout = "x".join(str(int(n)) for n in layout)
    # the compiled halo exchange reads the layout from the environment
    os.environ["ORCH_LAYOUT"] = layout
    _settings = {"layout": layout, "rank": _launcher_rank() if rank is None else int(rank)}
    if domain is not None:
        _settings["domain"] = ",".join(str(int(n)) for n in domain)
    if halo is not None:
        _settings["halo"] = int(halo)


def _current():
    global _settings
    if _settings is None:
        _settings = {}
        if os.environ.get("ORCH_LAYOUT"):
            _settings = {"layout": os.environ["ORCH_LAYOUT"], "rank": _launcher_rank()}
            if os.environ.get("ORCH_DOMAIN"):
                _settings["domain"] = os.environ["ORCH_DOMAIN"]
            if os.environ.get("ORCH_HALO"):
                _settings["halo"] = int(os.environ["ORCH_HALO"])
    return _settings


def current_key():
    """A hashable key of the layout settings (compiled programs are cached per layout)."""
    return tuple(sorted(_current().items()))


def cli_args():
    """The `orch build` options of the current layout (which is then fixed for the process)."""
    global _used
    _used = True
    s = _current()
    if not s:
        return []
    args = ["--layout", s["layout"], "--rank", str(s["rank"])]
    if "domain" in s:
        args += ["--rank-domain", s["domain"]]
    if "halo" in s:
        args += ["--halo", str(s["halo"])]
    return args
