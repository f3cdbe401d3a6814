"""The PEP 517 build backend of the `orch` Python package, standard library only.

`pip install --no-build-isolation --no-index <orch>/python` (and `-e`) must work on a bare
Python with no package index. setuptools cannot build a wheel there: before 70.1 it needs
the `wheel` package, which such a Python often lacks and pip cannot fetch. The package is
pure Python, one folder, so its wheel is a zip of that folder plus a .dist-info, and its
editable wheel a .pth naming this folder.
"""
import base64
import hashlib
import os
import tomllib
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_TAG = "py3-none-any"


def _project():
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _names():
    p = _project()
    return p["name"].replace("-", "_"), p["version"]


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _dist_info_files():
    name, version = _names()
    info = f"{name}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: orch_build_backend\nRoot-Is-Purelib: true\nTag: {_TAG}\n"
    return info, {f"{info}/METADATA": _metadata().encode(), f"{info}/WHEEL": wheel.encode()}


def _package_files():
    """Every file of the `orch` package folder, by its name in the wheel."""
    files = {}
    root = os.path.join(_HERE, "orch")
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, n)
            with open(path, "rb") as f:
                files[os.path.relpath(path, _HERE).replace(os.sep, "/")] = f.read()
    return files


def _write_wheel(directory, files):
    name, version = _names()
    info, meta = _dist_info_files()
    files = {**files, **meta}
    target = f"{name}-{version}-{_TAG}.whl"
    records = []
    with zipfile.ZipFile(os.path.join(directory, target), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files.items():
            z.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{arcname},sha256={digest},{len(data)}")
        records.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return target


def _prepare_metadata(directory):
    info, meta = _dist_info_files()
    for arcname, data in meta.items():
        path = os.path.join(directory, arcname)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return info


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare_metadata(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth line puts this folder on sys.path: `import orch` then reads the sources here.
    return _write_wheel(wheel_directory, {"orch_editable.pth": (_HERE + "\n").encode()})
