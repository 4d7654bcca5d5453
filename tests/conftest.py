import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from typelattice import _ufuncs

REFERENCE = Path(__file__).parent / "reference"

# The reference tables spell types short ("i8" = int8); canonical names are NumPy's.
SHORT_TO_CANON = {
    "b": "bool", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128", "i*": "i*", "f*": "f*", "c*": "c*",
}


def extended_short_to_canon(s):
    """jax_ops_rules.md spelling of extended dtypes: i2, u4, f8e4m3fn, f4e2m1fn, f6e3m2fn."""
    m = re.fullmatch(r"([iu])([124])", s)
    if m:
        return ("int" if m.group(1) == "i" else "uint") + m.group(2)
    m = re.fullmatch(r"f([468])(e\d+m\d+\w*)", s)
    if m:
        return f"float{m.group(1)}_{m.group(2)}"
    return SHORT_TO_CANON[s]


def load_reference(name):
    return json.loads((REFERENCE / name).read_text())


def reference_cells(name):
    """[(row, col, result or None)] in canonical names."""
    data = load_reference(name)
    return [(SHORT_TO_CANON.get(a, a), SHORT_TO_CANON.get(b, b),
             None if r is None else SHORT_TO_CANON.get(r, r))
            for a, row in data["table"].items() for b, r in row.items()]


@pytest.fixture(scope="session")
def jax_reference():
    return {(a, b): r for a, b, r in reference_cells("jax_doc_jax_numpy.json")}


@pytest.fixture(params=[True, "avx2", False], ids=["best", "avx2", "portable"])
def simd_path(request):
    """Each SIMD path of the kernels in turn (_ufuncs.set_simd): the best the CPU has, at most
    AVX2, the portable code; every one must give the same bits and FP flags."""
    _ufuncs.set_simd(request.param)
    yield request.param
    _ufuncs.set_simd(None)


def run_with_warnings(f, *args, **kw):
    """(f(*args, **kw), the sorted distinct RuntimeWarning kinds it raised: 'overflow',
    'invalid value'...), every FP condition set to warn."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            r = f(*args, **kw)
    return r, sorted({str(m.message).split(" encountered")[0] for m in w
                      if issubclass(m.category, RuntimeWarning)})
