"""`orch.doctor()` / `python -m orch doctor`: what this package runs on, and how it found
orch's command line, so a setup problem is one command away from its cause."""
import os
import subprocess
import sys

from . import cli, modes
from .errors import OrchError


def doctor(file=None):
    """Prints (to `file`, default stdout) and returns a dict: the package, Python, numpy,
    the mode, and which command line the package uses (entry point, ORCH_CLI, checkout or
    npx) with its version. Raises OrchError when no command line is found."""
    out = sys.stdout if file is None else file
    report = {"package": os.path.dirname(os.path.abspath(__file__)), "python": sys.executable, "mode": modes.mode()}
    try:
        import numpy

        report["numpy"] = numpy.__version__
    except ImportError:
        report["numpy"] = None
    found = cli.locate()
    report["cli_source"] = found.source
    report["cli"] = found.detail
    p = subprocess.run(found.argv + ["--version"], capture_output=True, text=True)
    if p.returncode != 0:
        raise OrchError(f"orch's command line ({found.source}: {found.detail}) does not run:\n{p.stderr.strip()}")
    report["cli_version"] = p.stdout.strip()
    print(f"orch package: {report['package']}", file=out)
    print(f"python: {report['python']}", file=out)
    print(f"numpy: {report['numpy'] or 'not installed (arrays need it: install numpy)'}", file=out)
    print(f"mode: {report['mode']}", file=out)
    print(f"command line: {report['cli_source']}: {report['cli']} (orch {report['cli_version']})", file=out)
    return report
