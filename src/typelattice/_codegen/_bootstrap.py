"""Let a generator run as a plain script at build time, before the extension exists: register
``typelattice`` as a bare namespace pointing at the source tree, so importing
``typelattice._lattice`` does not execute ``typelattice/__init__.py``.

Submodules are found in the source tree first: an editable install of typelattice elsewhere on
the machine (meson-python puts an import hook on sys.meta_path) must not supply the rule sets
that this build compiles.
"""
import importlib.machinery
import sys
import types
from pathlib import Path

PKG_DIR = Path(__file__).resolve().parents[1]


class _SourceTreeFinder:
    """Finds typelattice.* in the source tree before any other import hook does."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("typelattice."):
            return None
        parent = sys.modules.get(name.rpartition(".")[0])
        search = list(getattr(parent, "__path__", None) or [str(PKG_DIR)])
        return importlib.machinery.PathFinder.find_spec(name, search)


def install():
    if "typelattice" not in sys.modules:
        pkg = types.ModuleType("typelattice")
        pkg.__path__ = [str(PKG_DIR)]
        sys.modules["typelattice"] = pkg
        sys.meta_path.insert(0, _SourceTreeFinder)
