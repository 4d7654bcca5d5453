"""NumPy's promotion as printed in the appendix of JAX's type promotion design note (JEP 9407,
December 2021): ``np.add`` of two arrays (Python scalars as 0, 0.0, 0j), NumPy before NEP 50, value-based
casting ignored. Not a lattice: ``(int8 + uint8) + float16`` is float32 but ``int8 + (uint8 + float16)``
is float16, and ``i* . i*`` is int64 rather than a type above i*.

NumPy then had no bfloat16: its row and column are empty (no promotion). i*, f*, c* are Python
int/float/complex; a lone Python scalar materializes as NumPy's default int64/float64/complex128.
"""
from .._lattice import TableRules
from ._text import parse_table

# Rows: first operand; '-': no promotion. Copied from the design note's appendix.
TABLE = """
         b   u8  u16  u32  u64   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128   i*   f*   c*
    b    b   u8  u16  u32  u64   i8  i16  i32  i64    -  f16  f32  f64  c64 c128  i64  f64 c128
   u8   u8   u8  u16  u32  u64  i16  i16  i32  i64    -  f16  f32  f64  c64 c128   u8  f64 c128
  u16  u16  u16  u16  u32  u64  i32  i32  i32  i64    -  f32  f32  f64  c64 c128  u16  f64 c128
  u32  u32  u32  u32  u32  u64  i64  i64  i64  i64    -  f64  f64  f64 c128 c128  u32  f64 c128
  u64  u64  u64  u64  u64  u64  f64  f64  f64  f64    -  f64  f64  f64 c128 c128  u64  f64 c128
   i8   i8  i16  i32  i64  f64   i8  i16  i32  i64    -  f16  f32  f64  c64 c128   i8  f64 c128
  i16  i16  i16  i32  i64  f64  i16  i16  i32  i64    -  f32  f32  f64  c64 c128  i16  f64 c128
  i32  i32  i32  i32  i64  f64  i32  i32  i32  i64    -  f64  f64  f64 c128 c128  i32  f64 c128
  i64  i64  i64  i64  i64  f64  i64  i64  i64  i64    -  f64  f64  f64 c128 c128  i64  f64 c128
 bf16    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -
  f16  f16  f16  f32  f64  f64  f16  f32  f64  f64    -  f16  f32  f64  c64 c128  f16  f16  c64
  f32  f32  f32  f32  f64  f64  f32  f32  f64  f64    -  f32  f32  f64  c64 c128  f32  f32  c64
  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64    -  f64  f64  f64 c128 c128  f64  f64 c128
  c64  c64  c64  c64 c128 c128  c64  c64 c128 c128    -  c64  c64 c128  c64 c128  c64  c64  c64
 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128    - c128 c128 c128 c128 c128 c128 c128 c128
   i*  i64   u8  u16  u32  u64   i8  i16  i32  i64    -  f16  f32  f64  c64 c128  i64  f64 c128
   f*  f64  f64  f64  f64  f64  f64  f64  f64  f64    -  f16  f32  f64  c64 c128  f64  f64 c128
   c* c128 c128 c128 c128 c128 c128 c128 c128 c128    -  c64  c64 c128  c64 c128 c128 c128 c128
"""

TYPES, CELLS = parse_table(TABLE)

numpy_rules = TableRules(
    "numpy", TYPES, CELLS,
    weak={"i*": "int64", "f*": "float64", "c*": "complex128"},
    python_scalars={"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"},
    description="NumPy (pre-NEP 50) as tabulated in JAX's design note appendix; not a lattice",
    source="JAX design note 'Design of Type Promotion Semantics for JAX', appendix (np.add)",
)

RULES = [numpy_rules]
