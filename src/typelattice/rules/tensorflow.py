"""TensorFlow's promotion as printed in the appendix of JAX's type promotion design note (JEP 9407,
December 2021): ``tf.add(x, y)``. TensorFlow does not promote between tensors; only Python scalars are
coerced, and only the second operand is coerced to the first one's type, so the table is ASYMMETRIC
(rows are the first operand: ``complex64 . f*`` = complex64 but ``f* . complex64`` has no promotion).
``tf.add`` has no bool kernel: bool . bool has no promotion either.
"""
from .._lattice import TableRules
from ._text import parse_table

# Rows: first operand; '-': no promotion. Copied from the design note's appendix.
TABLE = """
         b   u8  u16  u32  u64   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128   i*   f*   c*
    b    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -
   u8    -   u8    -    -    -    -    -    -    -    -    -    -    -    -    -   u8    -    -
  u16    -    -  u16    -    -    -    -    -    -    -    -    -    -    -    -  u16    -    -
  u32    -    -    -  u32    -    -    -    -    -    -    -    -    -    -    -  u32    -    -
  u64    -    -    -    -  u64    -    -    -    -    -    -    -    -    -    -  u64    -    -
   i8    -    -    -    -    -   i8    -    -    -    -    -    -    -    -    -   i8    -    -
  i16    -    -    -    -    -    -  i16    -    -    -    -    -    -    -    -  i16    -    -
  i32    -    -    -    -    -    -    -  i32    -    -    -    -    -    -    -  i32    -    -
  i64    -    -    -    -    -    -    -    -  i64    -    -    -    -    -    -  i64    -    -
 bf16    -    -    -    -    -    -    -    -    - bf16    -    -    -    -    - bf16 bf16    -
  f16    -    -    -    -    -    -    -    -    -    -  f16    -    -    -    -  f16  f16    -
  f32    -    -    -    -    -    -    -    -    -    -    -  f32    -    -    -  f32  f32    -
  f64    -    -    -    -    -    -    -    -    -    -    -    -  f64    -    -  f64  f64    -
  c64    -    -    -    -    -    -    -    -    -    -    -    -    -  c64    -  c64  c64  c64
 c128    -    -    -    -    -    -    -    -    -    -    -    -    -    - c128 c128 c128 c128
   i*    -    -    -    -    -    -    -  i32    -    -    -    -    -    -    -  i32    -    -
   f*    -    -    -    -    -    -    -    -    -    -    -  f32    -    -    -  f32  f32    -
   c*    -    -    -    -    -    -    -    -    -    -    -    -    -    - c128 c128 c128 c128
"""

TYPES, CELLS = parse_table(TABLE)

tensorflow = TableRules(
    "tensorflow", TYPES, CELLS,
    weak={"i*": "int32", "f*": "float32", "c*": "complex128"},
    python_scalars={"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"},
    description="TensorFlow as tabulated in JAX's design note appendix; asymmetric, rows = first operand",
    source="JAX design note 'Design of Type Promotion Semantics for JAX', appendix (tf.add)",
)

RULES = [tensorflow]
