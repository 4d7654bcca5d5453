"""Helpers shared by the rule set modules: read a promotion table written as text, the way the
source documents print it (short names: 'b', 'u8', 'i8' = int8, 'bf16', 'f*'; '-' = no promotion).

Pure Python (the build-time generator imports the rule modules before the extension exists).
"""
from .._names import FROM_SHORT


def parse_table(text, spelling=None):
    """``(types, {(row, col): result or None})`` from a whitespace-separated text table.

    The first non-blank line is the header (column labels); every further line is a row label
    followed by one cell per column. Rows are the first operand. Labels are mapped to canonical
    names through ``spelling`` (default: the reference tables' short names, ``FROM_SHORT``).
    """
    spell = dict(FROM_SHORT)
    spell.update(spelling or {})
    lines = [ln.split() for ln in text.strip().splitlines() if ln.strip()]
    header = [spell.get(c, c) for c in lines[0]]
    table = {}
    rows = []
    for cells in lines[1:]:
        row = spell.get(cells[0], cells[0])
        if len(cells) != len(header) + 1:
            raise ValueError(f"row {cells[0]!r} has {len(cells) - 1} cells, expected {len(header)}")
        rows.append(row)
        for col, cell in zip(header, cells[1:]):
            table[(row, col)] = None if cell == "-" else spell.get(cell, cell)
    types = list(dict.fromkeys(rows + header))
    return types, table


def lattice_table(edges, types):
    """{(a, b): join or None} of a small lattice given as {type: [immediate successors]}
    (used to build tables that extend a lattice, like anvil's ambiguous types)."""
    ub = {}

    def up(t):
        if t not in ub:
            acc = {t}
            for s in edges.get(t, ()):
                acc |= up(s)
            ub[t] = acc
        return ub[t]

    table = {}
    for a in types:
        for b in types:
            cub = up(a) & up(b)
            least = [c for c in cub if cub <= up(c)]
            table[(a, b)] = least[0] if len(least) == 1 else None
    return table
