"""NumPy's masked arrays mask a ufunc's results outside its domain (log(-1), x / 0) through
tables keyed by the ufunc object (numpy.ma.core.ufunc_domain / ufunc_fills, read by
MaskedArray.__array_wrap__): a typelattice ufunc takes the entries of its NumPy namesake, so
`tl.log(masked_array)` masks what `np.log(masked_array)` masks.

numpy.ma is not imported by NumPy itself (it costs ~15 ms): until it is, the ufuncs wait here and
are entered right after its import."""
import importlib.util
import sys

_PENDING = []           # (typelattice ufunc, NumPy ufunc) made before numpy.ma was imported


def _enter(core, pairs):
    for uf, np_uf in pairs:
        if np_uf in core.ufunc_domain:
            core.ufunc_domain[uf] = core.ufunc_domain[np_uf]
        if np_uf in core.ufunc_fills:
            core.ufunc_fills[uf] = core.ufunc_fills[np_uf]


class _AfterMaskedImport:
    """A finder that lets numpy.ma.core load as it would, then enters the waiting ufuncs."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "numpy.ma.core":
            return None
        sys.meta_path.remove(_AfterMaskedImport)
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_enter(module):
            exec_module(module)
            _enter(module, _PENDING)
            _PENDING.clear()
        loader.exec_module = exec_then_enter
        return spec


def register(uf, np_uf):
    """Give typelattice ufunc ``uf`` NumPy ufunc ``np_uf``'s masked-array domain, now or once
    numpy.ma is imported."""
    core = sys.modules.get("numpy.ma.core")
    if core is not None and hasattr(core, "ufunc_fills"):
        _enter(core, [(uf, np_uf)])
        return
    if not _PENDING and _AfterMaskedImport not in sys.meta_path:
        sys.meta_path.insert(0, _AfterMaskedImport)
    _PENDING.append((uf, np_uf))
