"""The type universe by name: no NumPy here, so the build-time generator can import it.

Canonical names are NumPy's dtype names ("int8", "bfloat16", "float8_e4m3fn"), the weak Python
kinds "i*", "f*", "c*", and names a rule set adds itself (e.g. Mojo MAX's "index"). The short
labels ("i8" = int8, "bf16") are the spelling of the reference tables and of printed tables only:
as *input*, a string goes through ``np.dtype`` first, where "i8" means int64 as NumPy users expect.
"""

CORE = (
    "bool",
    "uint8", "uint16", "uint32", "uint64",
    "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64",
    "complex64", "complex128",
)
WEAK = ("i*", "f*", "c*")

SUB_BYTE_INTS = ("int1", "int2", "int4", "uint1", "uint2", "uint4")
SMALL_FLOATS = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
)
EXTENDED = SUB_BYTE_INTS + SMALL_FLOATS

SHORT = {
    "bool": "b",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
    "i*": "i*", "f*": "f*", "c*": "c*",
    "tensor_float32": "tf32",           # Mojo MAX's table-level type, as the reference spells it
}
FROM_SHORT = {v: k for k, v in SHORT.items()}

# Kind of each canonical dtype name: b (bool), u, i, f, c; weak kinds map to their kind too.
_KIND_PREFIX = (("bool", "b"), ("uint", "u"), ("int", "i"), ("bfloat", "f"), ("float", "f"),
                ("complex", "c"))


def kind(name):
    """'b', 'u', 'i', 'f' or 'c' for a canonical dtype name or weak kind; None for others."""
    if name in WEAK:
        return name[0]
    base = name.rstrip("?")
    for prefix, k in _KIND_PREFIX:
        if base.startswith(prefix):
            return k
    return None


def bits(name):
    """Bit width of a canonical dtype name (None for weak kinds and table-only types)."""
    base = name.rstrip("?")
    if base == "bool":
        return 8
    digits = ""
    for prefix, _ in _KIND_PREFIX:
        if base.startswith(prefix):
            digits = base[len(prefix):].split("_")[0]
            break
    return int(digits) if digits.isdigit() else None


def short(name):
    """Short label for printing: the reference tables' spelling where one exists."""
    if name.endswith("?") and name[:-1] in SHORT:
        return SHORT[name[:-1]] + "?"
    return SHORT.get(name, name)
