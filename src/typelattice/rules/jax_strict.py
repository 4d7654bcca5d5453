"""JAX with ``jax_numpy_dtype_promotion='strict'``: only weak types promote.

Strict mode keeps JAX's weak Python scalars but removes every implicit promotion between concrete
types: i* goes up to f* and to every integer type, f* to c* and to every floating type, c* to
every complex type; a concrete type promotes only with itself and with the weak types below it.
bool has no successor at all (``bool_array + 1`` is an error in strict mode). This is JAX's own
strict lattice (jax._src.dtypes._type_promotion_lattice), here with 64-bit enabled. A partial
lattice: concrete types of different dtypes have no upper bound.
"""
from .._lattice import LatticeRules
from .._names import CORE, EXTENDED, SMALL_FLOATS, SUB_BYTE_INTS, WEAK

INTS = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", *SUB_BYTE_INTS]
FLOATS = ["bfloat16", "float16", "float32", "float64", *SMALL_FLOATS]
COMPLEXES = ["complex64", "complex128"]

EDGES = {
    "i*": ["f*", *INTS],
    "f*": ["c*", *FLOATS],
    "c*": COMPLEXES,
}

jax_strict = LatticeRules(
    "jax_strict", EDGES, types=CORE + WEAK + EXTENDED,
    weak={"i*": "int64", "f*": "float64", "c*": "complex128"},
    python_scalars={"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"},
    description="jax.numpy with jax_numpy_dtype_promotion='strict' (x64): only weak types promote",
    source="jax._src.dtypes._type_promotion_lattice('strict')",
)

RULES = [jax_strict]
