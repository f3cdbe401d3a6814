"""Where a Python function or class is defined, as orch names modules."""
import inspect
import os


def source_file(obj):
    path = inspect.getsourcefile(obj) or inspect.getfile(obj)
    return os.path.abspath(path)
