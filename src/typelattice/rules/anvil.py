"""{anvil} (R package): ``common_dtype()``, with ambiguous (literal) types.

Known x known: the join on a JAX-like lattice without weak types (bool at the bottom, uint64 ->
int64, int64 -> float32 -> float64). Every type also has an *ambiguous* twin, written 'int32?',
the type of an R literal or of a value computed from one: the literal defaults are
integer 1L -> 'int32?', double 1.0 -> 'float32?', logical TRUE -> 'bool?' (here: Python int,
float, bool).

* ambiguous x ambiguous: the known join, still ambiguous ('int8?' . 'int16?' = 'int16?');
* ambiguous x known (either order): the known type wins, and the result is known, unless
  (1) the ambiguous type is a float and the known type is not, or (2) the known type is bool
  and the ambiguous one is not; then the result is the ambiguous operand's type, still
  ambiguous (the known value is converted to the literal's guess).

Ambiguity propagates: ``(bool_tensor + 1L) * i16_tensor`` is bool . 'int32?' = 'int32?' (rule 2),
then 'int32?' . int16 = int16. An ambiguous result materializes as its known twin ('int32?' ->
int32).

With the ambiguous types as nodes of their own, these rules form a lattice (``check`` proves it:
symmetric, associative, every pair has a join). In its order most ambiguous types lie *below* the
known ones ('int32?' <= int8, since a known int8 absorbs an integer literal), while bool lies below
every ambiguous type except 'bool?' and every known type lies below the ambiguous floats. So the
propagation example is simply the join of {bool, 'int32?', int16}, whatever the order.
"""
from .._lattice import TableRules
from .._names import kind
from ._text import lattice_table

KNOWN = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64")

EDGES = {
    "bool": ["int8", "uint8"],
    "int8": ["int16"],
    "uint8": ["int16", "uint16"],
    "int16": ["int32"],
    "uint16": ["int32", "uint32"],
    "int32": ["int64"],
    "uint32": ["uint64"],
    "uint64": ["int64"],
    "int64": ["float32"],
    "float32": ["float64"],
}

LITERALS = {"int": "int32?", "float": "float32?", "bool": "bool?"}


def ambiguous(t):
    return t + "?"


def ambiguous_with_known(amb, known):
    """Result of an ambiguous type (its known twin ``amb``) with a known type ``known``."""
    keep_ambiguous = ((kind(amb) == "f" and kind(known) != "f")
                      or (known == "bool" and amb != "bool"))
    return ambiguous(amb) if keep_ambiguous else known


_known = lattice_table(EDGES, KNOWN)
CELLS = dict(_known)
for _a in KNOWN:
    for _b in KNOWN:
        CELLS[(ambiguous(_a), ambiguous(_b))] = ambiguous(_known[(_a, _b)])
        CELLS[(ambiguous(_a), _b)] = CELLS[(_b, ambiguous(_a))] = ambiguous_with_known(_a, _b)

# Written as a table (the documented rules); kept as its Hasse diagram, so that the build proves
# it is a lattice (``as_lattice`` raises otherwise).
anvil = TableRules(
    "anvil", KNOWN + tuple(ambiguous(t) for t in KNOWN), CELLS,
    weak={ambiguous(t): t for t in KNOWN},
    python_scalars=dict(LITERALS),
    description="{anvil} (R) common_dtype(): known types and ambiguous literal types ('int32?')",
    source="{anvil} documentation, 'Type Promotion Rules'",
)

anvil = anvil.as_lattice()

RULES = [anvil]
