"""typelattice: type promotion as a lattice for NumPy, with weak Python scalars.

The result dtype of ``a op b`` is the least upper bound (join) of the operands' types on a
promotion lattice (JAX's by default): ``int8_array + 1`` stays int8, ``uint8 + int8`` is int16,
``bfloat16 + float16`` is float32, and promotion is associative and commutative.
"""
from ._version import __version__
from ._errors import TypePromotionError
from ._core import (BUILTIN_RULES, CompiledRules, compile_rules, get_rules, join, promote_types,
                    result_type, set_default_rules)
from ._lattice import CheckReport, LatticeError, LatticeRules, RuleSet, TableRules
from ._weak import WeakArray, asarray, is_weak, strong, weak
from ._user import lattice, load_rules_file as load_rules, promotion_table, rules_from_dict

__all__ = [
    "__version__", "TypePromotionError", "promote_types", "result_type", "join", "get_rules",
    "compile_rules", "set_default_rules", "BUILTIN_RULES", "CompiledRules", "RuleSet",
    "LatticeRules", "TableRules", "CheckReport", "LatticeError",
    "lattice", "promotion_table", "rules_from_dict", "load_rules",
    "WeakArray", "weak", "asarray", "strong", "is_weak",
]

# -- ufuncs (JAX's rules; make_ufuncs(rules) builds them for another rule set) ----------------
from ._ufuncs import make_ufuncs, ufunc_info, set_num_threads, get_num_threads, threads
from ._ops import OPS as _OPS, ALIASES as _ALIASES

_UFUNCS = make_ufuncs()
globals().update(_UFUNCS)
UFUNC_NAMES = tuple(op.name for op in _OPS) + tuple(_ALIASES)
__all__ += ["make_ufuncs", "ufunc_info", "set_num_threads", "get_num_threads", "threads",
            "UFUNC_NAMES", *UFUNC_NAMES]
del _OPS, _ALIASES


# With CuPy already imported, register the CUDA path now so typelattice ufuncs called on CuPy
# arrays run our kernels (CuPy looks foreign ufuncs up by name); otherwise it loads on
# `import typelattice.cuda`.
import sys as _sys

if "cupy" in _sys.modules:
    from . import cuda  # noqa: E402,F401
del _sys
