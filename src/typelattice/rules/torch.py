"""PyTorch's promotion as printed in the appendix of JAX's type promotion design note (JEP 9407,
December 2021): ``torch.add`` of two tensors. Torch then had no uint16/uint32/uint64: their rows and
columns are empty (no promotion). Python floats take the default float32; a Python complex, complex64.
Not a lattice (e.g. ``(bool . i*) . uint8`` = int64 but ``bool . (i* . uint8)`` = uint8).
"""
from .._lattice import TableRules
from ._text import parse_table

# Rows: first operand; '-': no promotion. Copied from the design note's appendix.
TABLE = """
         b   u8  u16  u32  u64   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128   i*   f*   c*
    b    b   u8    -    -    -   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128  i64  f32  c64
   u8   u8   u8    -    -    -  i16  i16  i32  i64 bf16  f16  f32  f64  c64 c128   u8  f32  c64
  u16    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -
  u32    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -
  u64    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -    -
   i8   i8  i16    -    -    -   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128   i8  f32  c64
  i16  i16  i16    -    -    -  i16  i16  i32  i64 bf16  f16  f32  f64  c64 c128  i16  f32  c64
  i32  i32  i32    -    -    -  i32  i32  i32  i64 bf16  f16  f32  f64  c64 c128  i32  f32  c64
  i64  i64  i64    -    -    -  i64  i64  i64  i64 bf16  f16  f32  f64  c64 c128  i64  f32  c64
 bf16 bf16 bf16    -    -    - bf16 bf16 bf16 bf16 bf16  f32  f32  f64  c64 c128 bf16 bf16  c64
  f16  f16  f16    -    -    -  f16  f16  f16  f16  f32  f16  f32  f64  c64 c128  f16  f16  c64
  f32  f32  f32    -    -    -  f32  f32  f32  f32  f32  f32  f32  f64  c64 c128  f32  f32  c64
  f64  f64  f64    -    -    -  f64  f64  f64  f64  f64  f64  f64  f64 c128 c128  f64  f64 c128
  c64  c64  c64    -    -    -  c64  c64  c64  c64  c64  c64  c64 c128  c64 c128  c64  c64  c64
 c128 c128 c128    -    -    - c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128 c128
   i*  i64   u8    -    -    -   i8  i16  i32  i64 bf16  f16  f32  f64  c64 c128  i64  f32  c64
   f*  f32  f32    -    -    -  f32  f32  f32  f32 bf16  f16  f32  f64  c64 c128  f32  f64  c64
   c*  c64  c64    -    -    -  c64  c64  c64  c64  c64  c64  c64 c128  c64 c128  c64  c64 c128
"""

TYPES, CELLS = parse_table(TABLE)

torch = TableRules(
    "torch", TYPES, CELLS,
    weak={"i*": "int64", "f*": "float32", "c*": "complex64"},
    python_scalars={"bool": "bool", "int": "i*", "float": "f*", "complex": "c*"},
    description="PyTorch as tabulated in JAX's design note appendix; not a lattice",
    source="JAX design note 'Design of Type Promotion Semantics for JAX', appendix (torch.add)",
)

RULES = [torch]
