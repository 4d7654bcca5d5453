"""JAX's type promotion lattice (jax.numpy), with 64-bit enabled and with it off.

Source: the JAX design note "Design of Type Promotion Semantics for JAX" (its final lattice,
../shared/reference/jax_lattice.json) plus what JAX runs today: bool -> i*; i* -> each sub-byte
int type (they promote only with bool, Python ints and themselves); f* -> each float8/6/4 type (an
integer or bool array with a float8 array gives the float8 type; float8 with any other float or
complex, or another float8 variant, has no promotion).
"""
from .._lattice import LatticeRules
from .._names import CORE, EXTENDED, SMALL_FLOATS, SUB_BYTE_INTS, WEAK

EDGES_X64 = {
    "bool": ["i*"],
    "i*": ["uint8", "int8", *SUB_BYTE_INTS],
    "f*": ["c*", "float16", "bfloat16", *SMALL_FLOATS],
    "c*": ["complex64"],
    "uint8": ["uint16", "int16"],
    "uint16": ["uint32", "int32"],
    "uint32": ["uint64", "int64"],
    "uint64": ["f*"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["int64"],
    "int64": ["f*"],
    "float16": ["float32"],
    "bfloat16": ["float32"],
    "float32": ["float64", "complex64"],
    "float64": ["complex128"],
    "complex64": ["complex128"],
}

# With x64 off JAX canonicalizes every 64-bit type to its 32-bit sibling, operands and results
# alike; the lattice that remains has u32 -> i32 where the 64-bit one has u32 -> i64.
EDGES_X32 = {
    "bool": ["i*"],
    "i*": ["uint8", "int8", *SUB_BYTE_INTS],
    "f*": ["c*", "float16", "bfloat16", *SMALL_FLOATS],
    "c*": ["complex64"],
    "uint8": ["uint16", "int16"],
    "uint16": ["uint32", "int32"],
    "uint32": ["int32"],
    "int8": ["int16"],
    "int16": ["int32"],
    "int32": ["f*"],
    "float16": ["float32"],
    "bfloat16": ["float32"],
    "float32": ["complex64"],
}
X32_CANONICAL = {"uint64": "uint32", "int64": "int32", "float64": "float32",
                 "complex128": "complex64"}

PYTHON_SCALARS = {"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"}

jax = LatticeRules(
    "jax", EDGES_X64, types=CORE + WEAK + EXTENDED,
    weak={"i*": "int64", "f*": "float64", "c*": "complex128"},
    python_scalars=PYTHON_SCALARS,
    description="jax.numpy with 64-bit enabled (jax_enable_x64=True); the default",
    source="JAX type promotion design note; jax._src.dtypes",
)

jax32 = LatticeRules(
    "jax32", EDGES_X32,
    types=[t for t in CORE + WEAK + EXTENDED if t not in X32_CANONICAL],
    weak={"i*": "int32", "f*": "float32", "c*": "complex64"},
    python_scalars=PYTHON_SCALARS,
    canonicalize=X32_CANONICAL,
    description="jax.numpy with 64-bit disabled (JAX's default): 64-bit types become 32-bit",
    source="JAX type promotion design note; jax._src.dtypes",
)

RULES = [jax, jax32]
