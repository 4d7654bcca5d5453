"""Mojo MAX graph type promotion (``max.graph.type_promotion``): a join on a JAX-like lattice.

Differences from JAX: no weak types; uint64 and int64 both go up to float16; float16 -> bfloat16 ->
float32 -> tensor_float32 -> float64 is a chain (so float16 . bfloat16 = bfloat16 and
float32 . tensor_float32 = tensor_float32); ``index`` and ``address`` (word-size unsigned integers)
"behave as uint64" but nothing promotes to them: their only successor is uint64. index and
address compute as uint64 (their NumPy dtype here); tensor_float32 has no NumPy dtype, so it
exists at table level only (``typelattice.join``, the CLI).

The documented reference table contradicts this lattice in 4 cells, all in the row of the first
operand only (the reverse order agrees with the lattice): bool . index and bool . address are
printed as int64 (lattice: uint64), int8 . index = index and int8 . address = address (lattice:
float16). This rule set reproduces the lattice; ``check`` reports the 4 cells and the
non-associative triples the documented table would cause (``DOCUMENTED_CELLS``, ``documented()``).

Python scalars: not part of the document; a Python int/float operand raises TypePromotionError
(a Python bool is bool).
"""
from .._lattice import LatticeRules, TableRules

TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "index", "address", "float16", "bfloat16", "float32", "tensor_float32", "float64")

# The semilattice of the MAX source (each type and its immediate successors), as documented.
EDGES = {
    "bool": ["int8", "uint8"],
    "int8": ["int16"],
    "uint8": ["int16", "uint16"],
    "int16": ["int32"],
    "uint16": ["int32", "uint32"],
    "int32": ["int64"],
    "uint32": ["int64", "uint64"],
    "index": ["uint64"],
    "address": ["uint64"],
    "int64": ["float16"],
    "uint64": ["float16"],
    "float16": ["bfloat16", "float32"],
    "bfloat16": ["float32"],
    "float32": ["tensor_float32", "float64"],
    "tensor_float32": ["float64"],
    "float64": [],
}

# The cells where the documented table differs from the lattice (rows: first operand).
DOCUMENTED_CELLS = {
    ("bool", "index"): "int64",
    ("bool", "address"): "int64",
    ("int8", "index"): "index",
    ("int8", "address"): "address",
}

max_rules = LatticeRules(
    "max", EDGES, types=TYPES,
    python_scalars={"bool": "bool"},
    storage={"index": "uint64", "address": "uint64"},
    description="Mojo MAX graph: lattice with index/address (as uint64) and tensor_float32",
    source="Mojo MAX documentation, max.graph type_promotion",
)


def documented():
    """The table exactly as the MAX documentation prints it (lattice joins + DOCUMENTED_CELLS)."""
    cells = {(a, b): max_rules.join(a, b) for a in TYPES for b in TYPES}
    cells.update(DOCUMENTED_CELLS)
    return TableRules("max (documented table)", TYPES, cells,
                      description="Mojo MAX type_promotion table as printed")


def _check_notes(limit=5):
    report = documented().check(limit=limit)
    lines = [f"the documented table differs from this lattice in {len(DOCUMENTED_CELLS)} cells:"]
    for (a, b), doc in DOCUMENTED_CELLS.items():
        lines.append(f"  {a}.{b}: documented {doc}, lattice {max_rules.join(a, b)} "
                     f"({b}.{a} = {max_rules.join(b, a)} in both)")
    lines.append("as printed, the documented table would be: " + report.kind)
    lines += ["  " + ln for ln in report.format(limit=limit).splitlines()[1:]]
    return lines


max_rules.check_notes = _check_notes

RULES = [max_rules]
