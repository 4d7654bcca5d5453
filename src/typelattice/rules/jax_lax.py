"""``jax.lax``: no implicit promotion (the jax.lax table of JAX's type promotion design note).

lax.add accepts identical dtypes only, plus a weak Python scalar combined with the 64-bit type of
its kind (int64 . i*, float64 . f*, complex128 . c*, with x64 enabled). bool . bool is empty in the
note's table: lax.add has no bool implementation, so ``check`` reports bool as not idempotent; the
rest is a partial lattice (see ``check_notes``).
"""
from .._lattice import TableRules
from .._names import CORE, WEAK

TYPES = CORE + WEAK
NO_SELF_PROMOTION = ("bool",)          # lax.add is not defined for bool
WEAK_WITH = {"i*": "int64", "f*": "float64", "c*": "complex128"}

CELLS = {(t, t): t for t in TYPES if t not in NO_SELF_PROMOTION}
for _w, _c in WEAK_WITH.items():
    CELLS[(_w, _c)] = CELLS[(_c, _w)] = _c

jax_lax = TableRules(
    "jax_lax", TYPES, CELLS,
    weak=dict(WEAK_WITH),
    python_scalars={"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"},
    description="jax.lax (x64): no implicit promotion; weak scalars only with the 64-bit type",
    source="JAX design note 'Design of Type Promotion Semantics for JAX', appendix (lax.add)",
)


def _check_notes():
    sub = TableRules("jax_lax without bool", [t for t in TYPES if t not in NO_SELF_PROMOTION],
                     {k: v for k, v in CELLS.items() if not set(k) & set(NO_SELF_PROMOTION)})
    return [f"bool . bool has no promotion because lax.add has no bool kernel; without bool the "
            f"table is a {sub.check(limit=0).kind}: each type promotes only with itself, and "
            f"i* -> int64, f* -> float64, c* -> complex128"]


jax_lax.check_notes = _check_notes

RULES = [jax_lax]
