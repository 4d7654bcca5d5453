"""kernel_float (C++/CUDA header library): element type promotion.

bool yields the other type; a float with any integer gives the float (even the 8-bit float);
two floats give the wider one, except float16 . bfloat16 = float32; integers of the same
signedness give the wider one; signed x unsigned is not allowed (no promotion).

The table's ``f8`` is an 8-bit float, not float64. kernel_float's fp8 support (fp8.h) is CUDA's
``__nv_fp8_e4m3`` and ``__nv_fp8_e5m2``, promoted alike; the table has one f8 column, which we map
to ``float8_e4m3fn``: CUDA's ``__nv_fp8_e4m3`` is the OCP FP8 E4M3 format (finite only, one NaN
pattern per sign, max 448), which is bit for bit ml_dtypes.float8_e4m3fn (not float8_e4m3, which
has infinities, nor the *fnuz variants with their single NaN and shifted bias). E4M3 is also the
format kernel_float lists first and the usual storage format. (E5M2, ml_dtypes.float8_e5m2, would
get the same row and column; it is left out so that the rule set is exactly the documented table.)

Python scalars: the document says nothing about them (C++ literals are ordinary typed values), so
a Python int/float/complex operand raises TypePromotionError; a Python bool is bool.

Not a lattice in the strict sense: int8 and uint8 have upper bounds (every float) but no join,
so (int8 . uint8) . float32 has no promotion while int8 . (uint8 . float32) = float32.
"""
from .._lattice import TableRules
from ._text import parse_table

F8 = "float8_e4m3fn"

TABLE = """
        b   i8  i16  i32  i64   u8  u16  u32  u64   f8  f16 bf16  f32  f64
   b    b   i8  i16  i32  i64   u8  u16  u32  u64   f8  f16 bf16  f32  f64
  i8   i8   i8  i16  i32  i64    -    -    -    -   f8  f16 bf16  f32  f64
 i16  i16  i16  i16  i32  i64    -    -    -    -   f8  f16 bf16  f32  f64
 i32  i32  i32  i32  i32  i64    -    -    -    -   f8  f16 bf16  f32  f64
 i64  i64  i64  i64  i64  i64    -    -    -    -   f8  f16 bf16  f32  f64
  u8   u8    -    -    -    -   u8  u16  u32  u64   f8  f16 bf16  f32  f64
 u16  u16    -    -    -    -  u16  u16  u32  u64   f8  f16 bf16  f32  f64
 u32  u32    -    -    -    -  u32  u32  u32  u64   f8  f16 bf16  f32  f64
 u64  u64    -    -    -    -  u64  u64  u64  u64   f8  f16 bf16  f32  f64
  f8   f8   f8   f8   f8   f8   f8   f8   f8   f8   f8  f16 bf16  f32  f64
 f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f32  f64
bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16  f32 bf16  f32  f64
 f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64
 f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64
"""

SPELLING = {"f8": F8}          # the table's label -> canonical name (f8 is NOT float64 here)
TYPES, CELLS = parse_table(TABLE, spelling=SPELLING)

kernel_float = TableRules(
    "kernel_float", TYPES, CELLS,
    python_scalars={"bool": "bool"},
    description="kernel_float (C++/CUDA): signed x unsigned not allowed; f8 = float8_e4m3fn",
    source="kernel_float documentation, 'Type Promotion'",
)

RULES = [kernel_float]
