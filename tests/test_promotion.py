"""The default rule set (jax.numpy, 64-bit) against the reference tables and JAX's own property
checks; the API's accepted operand forms; errors."""
import decimal
import enum
import fractions
import itertools
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import typelattice as tl
from conftest import REFERENCE, extended_short_to_canon, reference_cells

CORE18 = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
          "bfloat16", "float16", "float32", "float64", "complex64", "complex128", "i*", "f*", "c*"]
WEAK_DEFAULT = {"i*": np.dtype("int64"), "f*": np.dtype("float64"), "c*": np.dtype("complex128")}
PY_SCALAR = {"i*": 1, "f*": 1.0, "c*": 1j}


def dtype_of(name):
    return np.dtype(getattr(ml_dtypes, name) if hasattr(ml_dtypes, name) else name)


def operand(name):
    """An operand of this type: a Python scalar for weak types, else a 1-element array."""
    return PY_SCALAR[name] if name in PY_SCALAR else np.zeros(1, dtype_of(name))


def expected(result):
    """(dtype, weak flag) that a reference cell stands for."""
    if result in WEAK_DEFAULT:
        return WEAK_DEFAULT[result], True
    return dtype_of(result), False


# -- every cell of the reference tables ------------------------------------------------------------
JAX_CELLS = reference_cells("jax_doc_jax_numpy.json")


@pytest.mark.parametrize("a,b,want", JAX_CELLS, ids=[f"{a}|{b}" for a, b, _ in JAX_CELLS])
def test_jax_numpy_table_cell(a, b, want):
    assert tl.join(a, b) == want
    assert tl.result_type(operand(a), operand(b), return_weak_type_flag=True) == expected(want)
    # promote_types takes names and types; weak kinds by name or as Python types.
    assert tl.promote_types(a, b) == expected(want)[0]


def test_jax_table_covers_324_cells():
    assert len(JAX_CELLS) == 18 * 18
    assert all(r is not None for _, _, r in JAX_CELLS)


@pytest.mark.parametrize("a,b,want", reference_cells("jax_doc_python_scalars.json"))
def test_python_scalars_table(a, b, want):
    assert tl.join(a, b) == want
    got = tl.result_type(PY_SCALAR[a], PY_SCALAR[b], return_weak_type_flag=True)
    assert got == (WEAK_DEFAULT[want], True)
    # Python's own arithmetic agrees on the kind.
    assert type(PY_SCALAR[a] + PY_SCALAR[b]).__name__[0] == want[0]


def test_jax_lattice_edges_reproduce_the_reference_lattice():
    """The seed's lattice (jax_lattice.json) plus b -> i* is contained in ours."""
    import json
    ref = json.loads((REFERENCE / "jax_lattice.json").read_text())
    from conftest import SHORT_TO_CANON as S
    rs = tl.get_rules("jax").ruleset()
    for a, b in ref["edges"]:
        assert S[b] in rs.edges[S[a]], (a, b)


# -- extended types (sub-byte ints, float8/6/4), from jax_ops_rules.md -----------------------------
def _extended_reference():
    text = (REFERENCE / "jax_ops_rules.md").read_text()
    block = text.split("**Promotion with core kinds**")[1].split("Between two different")[0]
    rows = [line.strip().strip("|").split("|") for line in block.splitlines()
            if line.startswith("|") and not line.startswith("|---")]
    header = [c.strip() for c in rows[0]]
    cells = []
    for row in rows[1:]:
        row = [c.strip() for c in row]
        t = row[0]
        for col, val in zip(header[1:], row[1:]):
            other = t if col == "self" else col
            other = {"i*": "i*", "f*": "f*", "c*": "c*"}.get(other, other)
            want = None if val == "TPE" else extended_short_to_canon(val)
            cells.append((t, other, want))
    return cells


EXT_CELLS = _extended_reference()


@pytest.mark.parametrize("a,b,want", EXT_CELLS, ids=[f"{a}|{b}" for a, b, _ in EXT_CELLS])
def test_extended_types_with_core_kinds(a, b, want):
    for x, y in ((a, b), (b, a)):
        if want is None:
            with pytest.raises(tl.TypePromotionError):
                tl.join(x, y)
        else:
            assert tl.join(x, y) == want
            assert tl.result_type(operand(x), operand(y)) == dtype_of(want)


def test_extended_reference_parsed():
    assert len(EXT_CELLS) == 17 * 14


def test_distinct_extended_types_never_promote():
    from typelattice._names import EXTENDED
    pairs = list(itertools.combinations(EXTENDED, 2))
    assert len(pairs) == 136  # "Between two different extended dtypes: TPE: 136 pairs."
    for a, b in pairs:
        with pytest.raises(tl.TypePromotionError):
            tl.join(a, b)


# -- lattice properties over every pair and triple -----------------------------------------------
@pytest.mark.parametrize("rules", ["jax", "jax32"])
def test_commutative_and_associative_over_all_triples(rules):
    r = tl.get_rules(rules)
    tab = r.table()
    idx = r.index
    n = r.n

    def j(a, b):
        return None if a is None or b is None else tab[idx[a]][idx[b]]

    T = r.types
    for a, b in itertools.product(T, repeat=2):
        assert j(a, b) == j(b, a), (a, b)
    bad = [(a, b, c) for a, b, c in itertools.product(T, repeat=3)
           if j(j(a, b), c) != j(a, j(b, c))]
    assert bad == [] and n ** 3 >= 27000


@pytest.mark.parametrize("rules", ["jax", "jax32"])
def test_build_time_proof_agrees(rules):
    r = tl.get_rules(rules)
    assert r.is_lattice
    assert r.ruleset().check().kind == "partial lattice"  # extended types do not all promote


CORE_DTYPES = [t for t in CORE18 if not t.endswith("*")]


@pytest.mark.parametrize("t", CORE18)
def test_jax_property_idempotent_and_bool_identity(t):
    assert tl.join(t, t) == t
    assert tl.join(t, "bool") == t  # bool is the bottom


def test_jax_property_within_kind_equals_numpy():
    kinds = {}
    for t in CORE_DTYPES:
        if t != "bfloat16":
            kinds.setdefault(np.dtype(t).kind, []).append(t)
    for group in kinds.values():
        for a, b in itertools.product(group, repeat=2):
            assert tl.promote_types(a, b) == np.promote_types(a, b), (a, b)


def test_jax_property_inexact_absorbs_exact():
    exact = [t for t in CORE18 if t in ("bool", "i*") or t[0] in "ui"]
    inexact = [t for t in CORE18 if t not in exact]
    for a, b in itertools.product(exact, inexact):
        res = tl.join(a, b)
        assert res[0] in "bfc", (a, b, res)  # bfloat16/float*/complex*/f*/c*


# -- n-ary result_type ---------------------------------------------------------------------------
def _fold_reference(types):
    ref = {(a, b): r for a, b, r in JAX_CELLS}
    acc = types[0]
    for t in types[1:]:
        acc = ref[(acc, t)]
    return acc


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(CORE18), min_size=1, max_size=6), st.randoms())
def test_result_type_is_order_independent(types, rnd):
    want = expected(_fold_reference(types))
    shuffled = list(types)
    rnd.shuffle(shuffled)
    assert tl.result_type(*map(operand, types), return_weak_type_flag=True) == want
    assert tl.result_type(*map(operand, shuffled), return_weak_type_flag=True) == want


def test_all_triples_match_reference_fold():
    for types in itertools.product(CORE18, repeat=3):
        want = expected(_fold_reference(list(types)))
        assert tl.result_type(*map(operand, types), return_weak_type_flag=True) == want, types


def test_result_type_needs_an_operand():
    with pytest.raises(ValueError):
        tl.result_type()


# -- 32-bit flavour ------------------------------------------------------------------------------
X32 = {"uint64": "uint32", "int64": "int32", "float64": "float32", "complex128": "complex64"}
X32_WEAK = {"i*": np.dtype("int32"), "f*": np.dtype("float32"), "c*": np.dtype("complex64")}


@pytest.mark.parametrize("a,b,want", JAX_CELLS, ids=[f"{a}|{b}" for a, b, _ in JAX_CELLS])
def test_jax32_is_x64_canonicalized(a, b, want):
    """jax_ops_rules.md: x32 = the x64 result for the canonicalized operands, mapped to 32 bit."""
    ref = {(x, y): r for x, y, r in JAX_CELLS}
    want = ref[(X32.get(a, a), X32.get(b, b))]
    want_dtype = X32_WEAK[want] if want in X32_WEAK else np.dtype(X32.get(want, want)
                                                                    if want != "bfloat16"
                                                                    else ml_dtypes.bfloat16)
    got = tl.result_type(operand(a), operand(b), rules="jax32", return_weak_type_flag=True)
    assert got == (want_dtype, want in X32_WEAK)


def test_jax32_examples_from_the_issue():
    assert tl.result_type(np.int32(1), 1.5, rules="jax32") == np.float32
    assert tl.result_type(1, 1, rules="jax32", return_weak_type_flag=True) == (np.int32, True)
    assert tl.promote_types("uint32", "int32", rules="jax32") == np.int32
    assert tl.promote_types("uint32", "int32") == np.int64


# -- operand forms -----------------------------------------------------------------------------
@pytest.mark.parametrize("form", [
    np.dtype("int8"), np.int8, "int8", "i1", np.int8(3), np.array(3, np.int8),
    np.zeros((2, 2), np.int8), np.dtype(">i1"),
])
def test_strong_int8_forms(form):
    assert tl.result_type(form, 1, return_weak_type_flag=True) == (np.int8, False)
    assert tl.promote_types(form, np.uint8) == np.int16


def test_numpy_spellings_mean_numpy_types():
    assert tl.promote_types("i8", "u1") == np.int64   # 'i8' is NumPy's int64 as input
    assert tl.promote_types("bfloat16", "float16") == np.float32
    assert tl.promote_types(ml_dtypes.bfloat16, np.float16) == np.float32
    assert tl.promote_types(np.longlong, np.uint8) == np.int64
    assert tl.promote_types(np.dtype(">f4"), np.float16) == np.float32


@pytest.mark.parametrize("weak,name", [(int, "i*"), (float, "f*"), (complex, "c*"),
                                       (7, "i*"), (2.5, "f*"), (1 + 2j, "c*")])
def test_python_types_and_values_are_weak(weak, name):
    assert tl.result_type(weak, return_weak_type_flag=True) == (WEAK_DEFAULT[name], True)
    assert tl.result_type(weak, np.float16) == np.float16 if name != "c*" else np.complex64


def test_bool_is_never_weak():
    assert tl.result_type(True, return_weak_type_flag=True) == (np.bool_, False)
    assert tl.result_type(True, np.int8(1)) == np.int8
    assert tl.result_type(bool, 1, return_weak_type_flag=True) == (np.int64, True)


def test_zero_d_arrays_and_numpy_scalars_are_strong():
    assert tl.result_type(np.float64(1.0), np.zeros(3, np.float16)) == np.float64
    assert tl.result_type(np.array(1.0), np.zeros(3, np.float16)) == np.float64
    assert tl.result_type(1.0, np.zeros(3, np.float16)) == np.float16


class _Color(enum.IntEnum):
    RED = 3


class _MyFloat(float):
    pass


@pytest.mark.parametrize("value", [_Color.RED, _MyFloat(2.5)])
def test_python_scalar_subclasses_are_strong(value):
    """Only int, float, complex themselves are weak (JAX checks the exact type; NumPy's ufuncs
    take a subclass by its NumPy dtype): an IntEnum member is an int64, as the ufunc reads it."""
    strong = np.asarray(value).dtype
    a = np.zeros(3, np.int8)
    assert tl.result_type(a, value) == tl.promote_types(np.int8, strong)
    assert tl.result_type(a, value) == tl.add(a, value).dtype
    assert tl.result_type(value, return_weak_type_flag=True) == (strong, False)


@pytest.mark.parametrize("value", [fractions.Fraction(1, 2), decimal.Decimal("1.5")])
def test_other_numbers_are_refused(value):
    with pytest.raises(TypeError, match=type(value).__name__ + ".*rule set 'jax'"):
        tl.result_type(np.float32, value)


def test_headline_examples():
    assert tl.result_type(np.zeros(3, np.int8), 1) == np.int8
    assert tl.promote_types(np.int64, np.float16) == np.float16
    assert tl.promote_types(np.uint8, np.int8) == np.int16
    assert tl.promote_types(ml_dtypes.bfloat16, np.float16) == np.float32
    assert tl.promote_types(np.uint64, np.int8) == np.float64


# -- errors --------------------------------------------------------------------------------------
def test_type_promotion_error_message():
    with pytest.raises(tl.TypePromotionError) as info:
        tl.promote_types("int4", "int8")
    msg = str(info.value)
    assert "'int4'" in msg and "'int8'" in msg and "'jax'" in msg and "astype" in msg
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, np.exceptions.DTypePromotionError)


def test_error_names_all_operands():
    with pytest.raises(tl.TypePromotionError, match=r"'float8_e4m3fn'.*'float16'"):
        tl.result_type(np.zeros(1, ml_dtypes.float8_e4m3fn), np.zeros(1, np.float16))


@pytest.mark.parametrize("bad", [np.dtype(object), np.dtype("U3"), np.dtype("S2"),
                                 np.dtype([("a", "i4")]), np.dtype("M8[s]"),
                                 np.array(["x"]), object()])
def test_unsupported_operands_raise_clearly(bad):
    """The error names the call, both operands and the rule set (it named only the bad dtype).
    The other operand is int8, hence the 'int8' below."""
    with pytest.raises(TypeError, match="typelattice|cannot interpret") as exc:
        tl.result_type(bad, np.int8, rules="torch")
    msg = str(exc.value)
    assert msg.startswith("result_type(") and "int8" in msg and "'torch'" in msg, msg
    with pytest.raises(TypeError) as exc:
        tl.promote_types(np.int8, bad, rules="torch")
    msg = str(exc.value)
    assert msg.startswith("promote_types(int8, ") and "'torch'" in msg, msg


@pytest.mark.parametrize("rules", tl.BUILTIN_RULES)
def test_every_pair_joins_or_raises_type_promotion_error(rules):
    """Every pair of the 32 dtypes under every built-in rule set gives a dtype or a
    TypePromotionError naming both types and the rule set (the suggested cast for two types a
    rule set lacks, complex64 and complex128 under max, raised "unhashable type: 'list'")."""
    from typelattice._names import CORE, EXTENDED
    for a, b in itertools.product(CORE + EXTENDED, repeat=2):
        try:
            assert isinstance(tl.promote_types(a, b, rules=rules), np.dtype)
        except tl.TypePromotionError as exc:
            msg = str(exc)
            named = [_X32.get(t, t) if rules == "jax32" else t for t in (a, b)]
            assert all(f"'{t}'" in msg for t in named) and f"'{rules}'" in msg, msg
            # a suggested cast is to a type with ops of its own under the rule set (it was
            # bfloat16 under numpy, uint16 under torch: no promotion even with themselves)
            target = re.search(r"astype\('([^']+)'\)", msg)
            if target is not None:
                assert tl.join(target[1], target[1], rules=rules) == target[1], (a, b, msg)


_X32 = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def test_unknown_type_name():
    with pytest.raises(TypeError, match="unknown type name 'int9'.*'jax'"):
        tl.promote_types("int9", "int8")


def test_numpy_str_scalars_are_type_names():
    """np.str_ (an element of an array of names) is a name, as for np.promote_types; a string
    array is an operand join refuses, naming the call and the rule set."""
    names = np.array(["int8", "uint8", "bfloat16"])
    assert tl.promote_types(names[0], "int16") == np.promote_types(names[0], "int16")
    assert tl.result_type(*names) == tl.result_type("int8", "uint8", "bfloat16")
    assert tl.join(*names) == tl.join("int8", "uint8", "bfloat16") == "bfloat16"
    with pytest.raises(TypeError, match=r"join\(<U1 array, 'int8'\): .*string.*'jax'"):
        tl.join(np.array(["a"]), "int8")


def test_unknown_rule_set():
    with pytest.raises(ValueError, match="unknown rule set 'nope'"):
        tl.promote_types("int8", "int8", rules="nope")


def test_type_outside_rule_set():
    tiny = tl.LatticeRules("tiny", {"int8": ["int16"]})
    assert tl.promote_types("int8", np.int16, rules=tiny) == np.int16
    with pytest.raises(tl.TypePromotionError, match="float32 is not a type of rule set 'tiny'"):
        tl.promote_types("float32", "int8", rules=tiny)


def test_jax32_canonicalizes_64_bit_operands():
    assert tl.promote_types("int64", "float64", rules="jax32") == np.float32
