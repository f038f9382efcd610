"""Loading the Python file the runner names: a runtime's ``shim.py`` or an
``actions`` implementation module, imported from its path with its folder
importable (for its helpers), and checked for the names the kit calls."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_module(path: Path, name: str, required: tuple[str, ...], interface: str) -> ModuleType:
    """Imports the file at ``path`` as module ``name``; raises when it is
    missing, does not import, or lacks one of ``required`` (``interface``
    names the document that says what it must define)."""
    if not path.is_file():
        raise FileNotFoundError(f"no {path.name} at {path.parent}")
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    missing = [n for n in required if not hasattr(module, n)]
    if missing:
        names = " and ".join(f"`{n}`" for n in missing)
        raise ImportError(f"{path.name} must define {names} ({interface})")
    return module
