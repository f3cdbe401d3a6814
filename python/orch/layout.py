"""The rank layout a process runs in: which code path (A, BL, B, ... TR) of a program it
loads. Set with ORCH_LAYOUT=NXxNY, ORCH_RANK=r, ORCH_DOMAIN=nx,ny,nz (per rank) and
ORCH_HALO=h, or with `orch.set_layout(...)`; orch resolves the rank to its code path."""
import os

from .errors import LayoutError

_settings = None
_used = False


def set_layout(layout=None, rank=0, domain=None, halo=None):
    """`set_layout("6x6", rank=17, domain=(12, 12, 8))`; `set_layout(None)` for no layout."""
    global _settings
    if _used:
        raise LayoutError("set the layout before the first compiled program call: bound libraries are not reloaded")
    if layout is None:
        _settings = {}
        return
    if not isinstance(layout, str):
        layout = "x".join(str(int(n)) for n in layout)
    _settings = {"layout": layout, "rank": int(rank)}
    if domain is not None:
        _settings["domain"] = ",".join(str(int(n)) for n in domain)
    if halo is not None:
        _settings["halo"] = int(halo)


def _current():
    global _settings
    if _settings is None:
        _settings = {}
        if os.environ.get("ORCH_LAYOUT"):
            _settings = {"layout": os.environ["ORCH_LAYOUT"], "rank": int(os.environ.get("ORCH_RANK", "0"))}
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
