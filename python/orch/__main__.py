"""`python -m orch doctor`: see orch.doctor."""
import sys

from .doctor import doctor
from .errors import OrchError

if sys.argv[1:] != ["doctor"]:
    print("usage: python -m orch doctor", file=sys.stderr)
    sys.exit(2)
try:
    doctor()
except OrchError as e:
    print(f"orch: {e}", file=sys.stderr)
    sys.exit(1)
