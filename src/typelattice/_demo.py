"""``python -m typelattice demo``: one screen that shows what the library is for."""
import ml_dtypes
import numpy as np

from ._core import result_type
from ._errors import TypePromotionError

A = {
    "int8": np.zeros(3, np.int8), "uint8": np.zeros(3, np.uint8),
    "int64": np.zeros(3, np.int64), "uint64": np.zeros(3, np.uint64),
    "float16": np.zeros(3, np.float16), "float32": np.zeros(3, np.float32),
    "bfloat16": np.zeros(3, ml_dtypes.bfloat16), "int4": np.zeros(3, ml_dtypes.int4),
}

CASES = [
    ("int8_array + 1", (A["int8"], 1)),
    ("uint8 + int8", (A["uint8"], A["int8"])),
    ("int64 + float16", (A["int64"], A["float16"])),
    ("int64 + float32", (A["int64"], A["float32"])),
    ("bfloat16 + float16", (A["bfloat16"], A["float16"])),
    ("bfloat16 + 2.5", (A["bfloat16"], 2.5)),
    ("uint64 + int64", (A["uint64"], A["int64"])),
    ("(int8 + uint8) + float16", None),
    ("int8 + (uint8 + float16)", None),
    ("int4 + int8", (A["int4"], A["int8"])),
]


def _np(ops):
    # NumPy's own add, not np.result_type: they differ (bfloat16 + 2.5 is float32, while
    # np.result_type says float64)
    try:
        return str(np.add(*ops).dtype)
    except Exception as exc:  # NumPy's own failure, shown as such
        return type(exc).__name__


def _tl(ops):
    try:
        dt, weak = result_type(*ops, return_weak_type_flag=True)
        return str(dt) + (" (weak)" if weak else "")
    except TypePromotionError:
        return "TypePromotionError"


def rows():
    out = []
    i8, u8, f16 = A["int8"], A["uint8"], A["float16"]
    for label, ops in CASES:
        if label.startswith("(int8"):
            n = np.add(np.add(i8, u8), f16).dtype
            t = result_type(result_type(i8, u8), f16)
        elif label.startswith("int8 + ("):
            n = np.add(i8, np.add(u8, f16)).dtype
            t = result_type(i8, result_type(u8, f16))
        else:
            out.append((label, _np(ops), _tl(ops)))
            continue
        out.append((label, str(n), str(t)))
    return out


def main():
    print("typelattice: JAX's lattice type promotion for NumPy (result dtype of a op b)\n")
    table = rows()
    w = max(len(r[0]) for r in table) + 2
    print(f"{'expression':{w}}{'NumPy 2':22}typelattice (rules='jax')")
    print("-" * (w + 50))
    for label, n, t in table:
        mark = "  " if n == t.replace(" (weak)", "") else "* "
        print(f"{label:{w}}{n:22}{mark}{t}")
    print("\n* differs from NumPy. NumPy's promotion is not associative (rows 8 and 9);")
    print("a lattice join is. Python scalars are weak: they never widen an array.")
    print("More: python -m typelattice table | explain uint8 int8 | check | diff numpy jax")
    return 0
