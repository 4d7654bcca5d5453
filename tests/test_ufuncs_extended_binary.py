"""jax_ops_rules.md, 'Binary ops, self pairs E|E': the result dtype of every binary op on two
arrays of each extended dtype (sub-byte ints, float8/6/4), cell for cell, or an error where
JAX raises. The values are checked per family in test_ufuncs_sub_byte_ints.py and
test_ufuncs_small_floats.py."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from conftest import REFERENCE, extended_short_to_canon

import typelattice as tl


def _table():
    text = (REFERENCE / "jax_ops_rules.md").read_text()
    sec = text.split("**Binary ops, self pairs `E|E`**", 1)[1]
    rows = []
    for line in sec.splitlines()[1:]:
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    return {cells[0]: dict(zip(head[1:], cells[1:]))
            for cells in ([c.strip() for c in line.strip("|").split("|")] for line in rows[2:])}


TABLE = _table()
RAISES = ("TE", "VE", "TPE", "NotImp", "Overfl", "KeyErr")
# JAX-only spellings of typelattice ops (array API names)
ALIASES = {"atan2": "arctan2", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift", "pow": "power"}
# Cells where typelattice differs from the table, and why (README, "Ufuncs"):
DEVIATIONS = {
    # ml_dtypes computes it; JAX's lowering raises NotImplementedError: typelattice computes
    **{("copysign", t): "computes" for t in ("f4e2m1fn", "f6e2m3fn", "f6e3m2fn", "f8e3m4",
                                             "f8e4m3", "f8e8m0fnu", "f8e4m3b11fnuz", "f8e4m3fn",
                                             "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz")},
    # JAX's eager int1 is its bool (the table's caveats): int8 results typelattice does not give
    ("copysign", "i1"): "raises", ("gcd", "i1"): "raises", ("lcm", "i1"): "raises",
    # true division and heaviside keep int1/int2 in JAX (no to-inexact entry for them), where
    # typelattice runs no float op on them, as for the unary float functions
    **{(op, t): "raises" for op in ("divide", "true_divide", "heaviside")
       for t in ("i2", "u2", "i1", "u1")},
}


def _operand(canon):
    d = np.dtype(getattr(ml_dtypes, canon))
    return np.array([1, 1], np.float32).astype(d) if "float" in canon else np.ones(2, d)


def test_table_parsed():
    assert len(TABLE) == 44 and all(len(row) == 17 for row in TABLE.values())


@pytest.mark.parametrize("op", sorted(TABLE))
def test_every_extended_self_pair(op):
    uf = getattr(tl, ALIASES.get(op, op))
    wrong = []
    for abbr, entry in TABLE[op].items():
        canon = extended_short_to_canon(abbr)
        if not hasattr(ml_dtypes, canon):
            continue
        x = _operand(canon)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = uf(x, x)
            got = tuple(a.dtype.name for a in r) if isinstance(r, tuple) else r.dtype.name
        except (TypeError, ValueError):
            got = "raises"
        if entry == "=":
            want = canon
        elif entry.startswith("("):
            want = tuple(canon if p == abbr else extended_short_to_canon(p)
                         for p in entry.strip("()").split(","))
        elif entry in RAISES:
            want = "raises"
        else:
            want = extended_short_to_canon(entry)
        dev = DEVIATIONS.get((op, abbr))
        if dev is not None:
            assert got == (canon if dev == "computes" else "raises"), (op, abbr, got)
            assert want != got      # a deviation that no longer is one: remove it
            continue
        if got != want:
            wrong.append((abbr, entry, got))
    assert not wrong, wrong
