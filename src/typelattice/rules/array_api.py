"""The Python array API standard's *minimal* promotion tables (the proposal in data-apis/array-api,
"Type promotion rules"): float, unsigned, signed and mixed signed x unsigned tables.

Only what the proposal defines promotes; every other pair raises TypePromotionError: int x float
(cross-kind promotion is left to libraries), int64 x any unsigned and uint64 x any signed (the
seed's mixed table has no int64 row and no uint64 column), and anything with bool or complex
(not in these tables at all).

Python scalars: the proposal leaves open whether non-array operands take part in promotion
("It remains to be decided"), so this rule set gives them no type: a Python int/float/complex/bool
operand raises TypePromotionError; convert it with an explicit dtype (``np.asarray(1, x.dtype)``).

Not a lattice, because the mixed table stops at int32: int32 . uint8 = int32 and int64 . int32 =
int64, yet int64 . uint8 has no promotion, so (int64 . int32) . uint8 differs from
int64 . (int32 . uint8).
"""
from .._lattice import TableRules

# Each kind: a chain, the join is the wider type (the float, unsigned and signed tables).
CHAINS = (
    ("float16", "float32", "float64"),
    ("uint8", "uint16", "uint32", "uint64"),
    ("int8", "int16", "int32", "int64"),
)
# The mixed table: rows signed, columns unsigned, as printed (the reverse order is the same).
MIXED_COLUMNS = ("uint8", "uint16", "uint32")
MIXED = {
    "int8": ("int16", "int32", "int64"),
    "int16": ("int16", "int32", "int64"),
    "int32": ("int32", "int32", "int64"),
}

TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64")

CELLS = {}
for _chain in CHAINS:
    for _i, _a in enumerate(_chain):
        for _j, _b in enumerate(_chain):
            CELLS[(_a, _b)] = _chain[max(_i, _j)]
for _s, _row in MIXED.items():
    for _u, _r in zip(MIXED_COLUMNS, _row):
        CELLS[(_s, _u)] = CELLS[(_u, _s)] = _r

array_api = TableRules(
    "array_api", TYPES, CELLS,
    python_scalars={},
    description="array API standard, minimal promotion proposal: undefined pairs raise; "
                "Python scalars not promoted",
    source="data-apis/array-api issue 'Type promotion rules' (minimal tables)",
)

RULES = [array_api]
