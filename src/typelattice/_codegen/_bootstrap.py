"""Let a generator run as a plain script at build time, before the extension exists: register
``typelattice`` as a bare namespace pointing at the source tree, so importing
``typelattice._lattice`` does not execute ``typelattice/__init__.py``."""
import sys
import types
from pathlib import Path

PKG_DIR = Path(__file__).resolve().parents[1]


def install():
    if "typelattice" not in sys.modules:
        pkg = types.ModuleType("typelattice")
        pkg.__path__ = [str(PKG_DIR)]
        sys.modules["typelattice"] = pkg
