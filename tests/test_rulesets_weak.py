"""Weak (JAX) and ambiguous (anvil) arrays: the type side, and weak results that stay weak."""
import itertools
import pickle
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _weak


@pytest.fixture
def anvil_multiply():
    """np.add / np.multiply stand in for typelattice ufuncs registered under anvil's rules."""
    _weak.register_ufunc(np.add, "anvil")
    _weak.register_ufunc(np.multiply, "anvil")
    yield
    _weak.unregister_ufunc(np.add)
    _weak.unregister_ufunc(np.multiply)


def test_weak_float_array_promotes_like_a_python_float():
    w = tl.weak(np.asarray([1.0, 2.0]))
    assert w.lattice_type == "f*" and w.dtype == np.float64
    for t in (np.float16, "bfloat16", np.float32, np.complex64):
        assert tl.result_type(w, t) == tl.result_type(1.0, t)
    assert tl.promote_types(w, np.int8) == np.float64
    assert tl.result_type(w, np.int8, return_weak_type_flag=True) == (np.dtype("float64"), True)
    assert tl.join(w, "float16") == "float16"
    assert tl.join(w, w) == "f*"


def test_weak_default_types():
    assert tl.weak(np.asarray(1)).lattice_type == "i*"
    assert tl.weak(np.float32(1)).lattice_type == "f*"
    assert tl.weak(np.asarray(1j)).lattice_type == "c*"
    assert tl.weak(1.0, rules="jax32").dtype == np.float32
    assert tl.weak(np.asarray(3, np.int16), rules="anvil").lattice_type == "int16?"
    with pytest.raises(ValueError, match="no weak type"):
        tl.weak(np.asarray(True))                 # bool is never weak in JAX
    with pytest.raises(ValueError, match="not a weak type"):
        tl.weak(1, "int8")


def test_ambiguous_array_under_anvil():
    z = tl.asarray([1, 2], type="int32?", rules="anvil")
    assert isinstance(z, tl.WeakArray) and z.dtype == np.int32
    assert tl.result_type(z, np.int16, rules="anvil") == np.int16
    assert tl.result_type(z, np.bool_, rules="anvil", return_weak_type_flag=True) == (
        np.dtype("int32"), True)
    assert tl.join(z, "float64", rules="anvil") == "float64"
    # Strong types come back as plain arrays.
    s = tl.asarray([1, 2], type="int16", rules="anvil")
    assert type(s) is np.ndarray and s.dtype == np.int16


def test_marker_falls_back_to_the_python_scalar_type():
    z = tl.asarray(1, type="int32?", rules="anvil")
    assert tl.join(z, "int8") == "int8"           # jax: 'int32?' counts as i*
    w = tl.weak(1.0)
    assert tl.join(w, rules="anvil") == "float32?"
    assert tl.join(w, "float16", rules="array_api") == "float64"   # no weak types: strong dtype


def test_anvil_propagation_end_to_end(anvil_multiply):
    """(bool_tensor + 1L) * i16_tensor: z is ambiguous int32, the product is a known int16."""
    x = np.asarray(True)
    y = np.asarray(2, dtype=np.int16)
    assert _weak.may_be_weak((x, 1))
    z = _weak.apply_ufunc(np.add, "__call__", (x, 1), {}, "anvil")
    assert isinstance(z, tl.WeakArray) and z.lattice_type == "int32?" and z.dtype == np.int32
    out = z * y
    assert not isinstance(out, tl.WeakArray) and out.dtype == np.int16 and out == 4
    # Weak stays weak: ambiguous with ambiguous is ambiguous, and so is a float literal.
    assert (z * z).lattice_type == "int32?"
    assert (z * 2.5).lattice_type == "float32?" and (z * 2.5).dtype == np.float32
    assert (z + np.float64(1)).dtype == np.float64     # known f64 wins
    # A literal passed as an ambiguous array makes the first step weak with any ufunc call.
    z2 = np.add(x, tl.weak(1, rules="anvil"))
    assert z2.lattice_type == "int32?" and (z2 * y).dtype == np.int16
    # Comparisons answer with plain bools.
    _weak.register_ufunc(np.less, "anvil")
    try:
        assert type(np.less(z, z)) is not tl.WeakArray
    finally:
        _weak.unregister_ufunc(np.less)


def test_anvil_ambiguous_ints_in_inexact_ops():
    """An op that computes integers in floating point (JAX's to-inexact table: int32 in
    float32) takes anvil's ambiguous int32? as the int32 it is: ldexp(3, 2) and a bool array
    divided by a literal compute in float32, as the int32 arrays do. Reference: NumPy's ufunc
    on the operands cast to float32 (ldexp's exponent as int)."""
    an = tl.make_ufuncs("anvil")
    b = np.array([True, False])
    with np.errstate(divide="ignore"):      # (7 / False)
        cases = [(an["ldexp"](3, 2), np.ldexp(np.float32(3), 2)),
                 (an["ldexp"](np.int32([3, -5]), 2), np.ldexp(np.float32([3, -5]), 2)),
                 (an["divide"](b, 3), np.divide(b.astype(np.float32), np.float32(3))),
                 (an["divide"](7, b), np.divide(np.float32(7), b.astype(np.float32))),
                 (an["arctan2"](b, 3), np.arctan2(b.astype(np.float32), np.float32(3))),
                 (an["sqrt"](3), np.sqrt(np.float32(3)))]
    for got, want in cases:
        got, want = np.asarray(got), np.asarray(want)
        assert got.dtype == want.dtype == np.float32
        assert np.array_equal(got, want, equal_nan=True), (got, want)


def test_jax_weak_results_stay_weak():
    _weak.register_ufunc(np.add, "jax")
    try:
        w = tl.weak(np.asarray([1.0, 2.0]))
        h = np.asarray([1, 2], dtype=np.float16)
        assert (w + h).dtype == np.float16 and type(w + h) is np.ndarray
        ww = w + w
        assert isinstance(ww, tl.WeakArray) and ww.lattice_type == "f*"
        # int8 array + weak float: the join is f* (weak), materialized as float64.
        r = np.asarray([1], np.int8) + w
        assert isinstance(r, tl.WeakArray) and r.lattice_type == "f*" and r.dtype == np.float64
        b = _weak.apply_ufunc(np.add, "__call__", (np.asarray([True]), 1), {}, "jax")
        assert b.lattice_type == "i*" and b.dtype == np.int64
        with pytest.raises(OverflowError):
            _weak.apply_ufunc(np.add, "__call__", (np.asarray([1], np.int8), 1000), {}, "jax")
    finally:
        _weak.unregister_ufunc(np.add)


def test_power_of_a_weak_base_to_an_integer_array_is_strong():
    """jax_ops_rules.md, power: '(Python scalar)**(int/bool array) is NOT weak (i*|bool -> int64,
    f*|int8 -> float64, c*|int8 -> complex128) although the join is weak'; other weak joins of
    power stay weak, as every op's (f*|bool, as jnp.power(1.5, bool_array) is)."""
    for base, exponent, dtype in ((1, np.ones(2, bool), np.int64),
                                  (1.5, np.ones(2, np.int8), np.float64),
                                  (1j, np.ones(2, np.int8), np.complex128),
                                  (1.5, np.ones(2, np.uint32), np.float64)):
        for b in (base, tl.weak(np.asarray([base, base]))):
            r = _weak.apply_ufunc(tl.power, "__call__", (b, exponent), {}, "jax")
            assert r.dtype == dtype and not tl.is_weak(r), (base, exponent.dtype)
    for a, b in ((np.ones(2, bool), 2.0), (1.5, np.ones(2, bool))):
        r = _weak.apply_ufunc(tl.power, "__call__", (a, b), {}, "jax")
        assert r.dtype == np.float64 and tl.is_weak(r)      # bool|f*, f*|bool: f*, weak
    r = tl.power(tl.weak(np.asarray([1.5, 2.0])), tl.weak(np.asarray([2, 3])))
    assert r.dtype == np.float64 and tl.is_weak(r)
    # an integer power is never weak (x ** Python int keeps x's dtype, not weak); bool|i* is
    # int32 for a weak int array as for a Python int (it was int64: the weak array took the
    # join's int64 where the Python int takes the op's int32)
    for a, b, dtype in ((tl.weak(np.asarray([2, 3])), tl.weak(np.asarray([2, 3])), np.int64),
                        (np.ones(2, bool), tl.weak(np.asarray([2, 3])), np.int32),
                        (np.ones(2, bool), 2, np.int32)):
        r = tl.power(a, b)
        assert r.dtype == dtype and not tl.is_weak(r)


def test_unregistered_ufuncs_are_plain_numpy():
    w = tl.weak(np.asarray([1.0]))
    r = np.add(w, np.asarray([1], np.float16))
    assert type(r) is np.ndarray and r.dtype == np.float64     # NumPy's own promotion


def test_strict_raises_for_weak_and_strong_mismatch():
    w = tl.weak(np.asarray([1.0]), rules="jax_strict")
    with pytest.raises(tl.TypePromotionError):
        _weak.apply_ufunc(np.add, "__call__", (w, np.asarray([1], np.int8)), {}, "jax_strict")


def test_views_pickles_and_casts():
    z = tl.asarray([1, 2, 3], type="int32?", rules="anvil")
    assert z[1:].lattice_type == "int32?"
    assert pickle.loads(pickle.dumps(z)).lattice_type == "int32?"
    assert type(z.astype(np.int8)) is np.ndarray
    assert type(tl.strong(z)) is np.ndarray
    assert "int32?" in repr(z)
    assert tl.is_weak(z) and tl.is_weak(1) and not tl.is_weak(np.int8(1))


def test_user_rule_set_weak_array():
    r = tl.lattice({"bool": ["i*"], "i*": ["int8"], "int8": ["int16"]}, name="toy",
                   weak={"i*": "int16"})
    w = tl.weak(5, rules=r)
    assert w.dtype == np.int16 and w.lattice_type == "i*"
    assert tl.result_type(w, np.int8, rules=r) == np.int8


@pytest.mark.parametrize("rules", tl.BUILTIN_RULES)
def test_weak_types_lie_below_their_materialization(rules):
    """Converting weak operands to the join's dtype is sound: w <= weak[w] for every weak type,
    so the join of the strong operands with that dtype is the dtype itself."""
    from typelattice.rules import builtin
    rs = builtin()[rules]
    for w, c in rs.weak.items():
        assert rs.join(w, c) == c == rs.join(c, w)


def test_weak_array_with_typelattice_ufuncs_when_present():
    ufuncs = pytest.importorskip("typelattice._ufuncs")
    add = ufuncs.make_ufuncs("anvil")["add"]
    z = tl.asarray([1, 2], type="int32?", rules="anvil")
    out = add(z, np.asarray([1, 2], np.int16))
    assert out.dtype == np.int16 and not isinstance(out, tl.WeakArray)
    assert add(z, z).lattice_type == "int32?"


_WEAK_DTYPE = {"i*": np.int64, "f*": np.float64, "c*": np.complex128}
_CORE = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "bfloat16", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("wt", ["i*", "f*", "c*"])
def test_operators_of_a_weak_array_follow_the_jax_table(wt, jax_reference):
    """`w + x`, `x + w`, `w * x`: jnp.add's table (reference jax_doc_jax_numpy.json), the weak
    flag included, as a JAX weakly typed array's operators are; np.add(w, x) stays NumPy's."""
    w = tl.weak(np.asarray([1, 2, 3], _WEAK_DTYPE[wt]))
    for name in _CORE + ["i*", "f*", "c*"]:
        x = (tl.weak(np.asarray([2, 1, 0], _WEAK_DTYPE[name])) if name.endswith("*")
             else np.asarray([1, 0, 1], name))
        want = jax_reference[(wt, name)]
        dtype = np.dtype(_WEAK_DTYPE.get(want, want))
        for got, a, b, ref in ((w + x, w, x, np.add), (x + w, x, w, np.add),
                               (w * x, w, x, np.multiply), (x * w, x, w, np.multiply)):
            assert got.dtype == dtype and tl.is_weak(got) == want.endswith("*"), (wt, name)
            assert isinstance(got, tl.WeakArray) == want.endswith("*")
            np.testing.assert_array_equal(np.asarray(got), ref(np.asarray(a).astype(dtype),
                                                               np.asarray(b).astype(dtype)))


def test_operators_with_python_scalars_and_comparisons():
    w = tl.weak(np.asarray([1.0, 2.0]))
    for got in (w + 1, 1 + w, w * 2.5, 2 ** w, w - 1, 3 - w, w / 2, -w, abs(w), +w):
        assert isinstance(got, tl.WeakArray) and got.lattice_type == "f*"
    h = np.asarray([1.5, 2.0], np.float16)
    assert (w + h).dtype == np.float16 and (h - w).dtype == np.float16
    assert (w / h).dtype == np.float16 and (h ** w).dtype == np.float16
    lt = w < h
    assert type(lt) is np.ndarray and lt.dtype == bool and lt.tolist() == [True, False]
    assert (w == None).tolist() == [False, False]    # noqa: E711 (NumPy's own answer)
    for other in (None, "abc", np.asarray(["a", "b"])):      # plain bool arrays, not weak
        assert type(w == other) is np.ndarray and not tl.is_weak(w != other)
    # ml_dtypes arrays (kind 'V') compare through typelattice too: the weak float takes their
    # type, as in w + x (1.001 is 1.0 in bfloat16; NumPy's own == compares in float64)
    import ml_dtypes
    near = tl.weak(np.asarray([1.001, 3.0]))
    for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn):
        x = np.asarray([1.0, 2.0], t)
        assert (near == x).tolist() == (x == near.astype(t)).tolist() == [True, False]
        assert (near > x).tolist() == [False, True]
    with pytest.raises(tl.TypePromotionError):      # the numpy table has no bfloat16
        tl.weak(np.asarray([1.5]), rules="numpy") < np.asarray([1.0], ml_dtypes.bfloat16)
    i = tl.weak(np.asarray([6, 7]))
    for got, want in ((i & np.asarray([3, 3], np.uint8), np.uint8),
                      (i << np.int8(1), np.int8), (i // np.asarray([4, 4], np.int16), np.int16),
                      (i % 4, np.int64), (~i, np.int64)):
        assert got.dtype == want, got
    q, r = divmod(i, np.asarray([4, 4], np.int8))
    assert q.dtype == r.dtype == np.int8 and q.tolist() == [1, 1] and r.tolist() == [2, 3]
    with pytest.raises(OverflowError):        # a weak int8 meeting 300: as tl.add(int8, 300)
        np.asarray([1], np.int8) + tl.weak(np.asarray([300]))


@pytest.mark.parametrize("rules", ["jax", "jax32", "torch", "tensorflow"])
def test_unary_ops_of_a_weak_array_as_of_a_python_scalar(rules):
    """A unary op applies its rule to the weak type, as for a Python scalar of that type: torch's
    sqrt of a weak int array is float32 (its float for a Python scalar alone, result_type(2.0)),
    not the float64 of the materialized int64; the values are NumPy's op on the array cast to
    that dtype."""
    U = tl.make_ufuncs(rules)
    for wt, v in (("i*", 2), ("f*", 2.5), ("c*", 1.5j)):
        w = tl.asarray(np.array([v, v]), type=wt, rules=rules)
        for name in ("sqrt", "negative", "absolute"):
            want = U[name](v)
            got = U[name](w)
            assert got.dtype == want.dtype, (rules, wt, name, got.dtype, want.dtype)
            assert got.tolist() == [want.item()] * 2
    sq = U["sqrt"](tl.asarray(np.array([2]), type="i*", rules=rules))
    assert sq.dtype == tl.result_type(2.0, rules=rules) and tl.is_weak(sq, rules=rules)


def test_ldexp_of_weak_arrays_as_of_python_scalars():
    """ldexp promotes nothing (jax_ops_rules.md: the first operand made inexact, the second any
    integer, never weak): a weak int array as the exponent stays an int (it became float32, the
    join, and raised), as the mantissa it is int64 made inexact (float64), as Python ints are."""
    f = np.ones(3, np.float32)
    wi = tl.weak(np.array([1, 2, 3]))
    for a, b, py in ((f, wi, (f, 2)), (wi, np.ones(3, np.uint8), (3, np.ones(3, np.uint8)))):
        got, want = tl.ldexp(a, b), tl.ldexp(*py)
        assert got.dtype == want.dtype and not tl.is_weak(got), (got.dtype, want.dtype)
        assert got.tolist() == np.ldexp(np.asarray(a).astype(got.dtype),
                                        np.asarray(b).astype(np.int64)).tolist()
    anvil = tl.make_ufuncs("anvil")        # a weak bool? mantissa, as a Python bool (bool?)
    e = np.array([1, 2, 3], np.int8)
    got = anvil["ldexp"](tl.asarray([False, True, True], type="bool?", rules="anvil"), e)
    want = anvil["ldexp"](True, e)
    assert got.dtype == want.dtype and got.tolist() == [0.0, 4.0, 8.0]
    # torch's Python int mantissa is float32, its to-inexact of i* (the weak array took
    # int64's, float64)
    torch = tl.make_ufuncs("torch")
    got = torch["ldexp"](tl.weak(np.asarray([101, 3]), rules="torch"), np.ones(2, np.uint8))
    assert got.dtype == torch["ldexp"](101, np.ones(2, np.uint8)).dtype == np.float32
    assert got.tolist() == [202.0, 6.0]


@pytest.mark.parametrize("rules,dtype", [("jax", "int4"), ("numpy", "int32"),
                                         ("tensorflow", "int8"), ("jax_strict", "int16"),
                                         ("jax_lax", "int64")])
def test_float_ops_of_an_int_array_and_a_weak_int_array(rules, dtype):
    """divide/arctan2/hypot of an int array and a weak int array: the weak int takes the join
    with the array, as a Python int does (result dtype and values of the Python-int call: under
    numpy int32 / i* is float32, not the float64 of int32 / float32)."""
    import ml_dtypes
    U = tl.make_ufuncs(rules)
    x = np.array([1, 2, 3], getattr(ml_dtypes, dtype, dtype))
    w = tl.asarray(np.array([3]), type="i*", rules=rules)
    for name in ("divide", "arctan2", "hypot"):
        got, want = U[name](x, w), U[name](x, 3)
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64])
def test_a_one_element_weak_int_fits_as_the_python_int_does(dtype):
    """A weak int array of one element (0-d or [v]; checked by its item, not min/max) fits the
    dtype it adopts exactly where the Python int v does: the type's ends compute, one past
    them raises. Reference: the same call with the Python int."""
    info = np.iinfo(dtype)
    arr = np.zeros(2, dtype)
    for v in (info.min, info.max, info.min - 1, info.max + 1):
        if not -2**63 <= v < 2**63:
            continue        # (a weak int array holds int64, as 'i*' materializes)
        try:
            expected = tl.add(arr, v)
        except OverflowError:
            expected = None
        for w in (tl.weak(np.array(v)), tl.weak(np.array([v]))):
            if expected is None:
                with pytest.raises(OverflowError):
                    tl.add(arr, w)
            else:
                got = tl.add(arr, w)
                assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def test_weak_ints_must_fit_where_they_are_made_and_under_dtype():
    """A weak int array's values must fit the dtype its weak type materializes to when it is
    made (uint64 2**63 wrapped to -2**63; jax32's 2**40 to 0), and an integer dtype= it is
    computed in (int8 + weak [300], dtype=int8 gave 45), as a Python int must."""
    for make in (lambda: tl.weak(np.array([2**63], np.uint64)),
                 lambda: tl.asarray(2**40, type="i*", rules="jax32"),
                 lambda: tl.asarray([2**31], type="int32?", rules="anvil")):
        with pytest.raises(OverflowError, match="rule set"):
            make()
    assert tl.asarray(5, type="i*", rules="jax32").dtype == np.int32
    x = np.ones(3, np.int8)
    with pytest.raises(OverflowError, match="300"):
        tl.add(x, tl.weak(np.array([300])), dtype=np.int8)
    with pytest.raises(OverflowError):
        tl.add(x, 300, dtype=np.int8)
    assert tl.add(x, tl.weak(np.array([3])), dtype=np.int8).tolist() == [4, 4, 4]


@pytest.mark.parametrize("rules", ["jax", "jax32"])
def test_outer_under_dtype_checks_a_weak_int_as_the_call_does(rules):
    """outer's loop is the plain call's: a weak int array that does not fit the dtype= it is
    computed in raises, as in the call (weak [5] outer an int32 array with dtype=int2 gave
    5 -> int2 wrapped to 1). Reference: NumPy's outer on the operands cast to int2."""
    add = tl.make_ufuncs(rules)["add"]
    b = np.arange(3, dtype=np.int32)
    for bad in ([5], [1, -3], 2**40):
        w = tl.weak(np.array(bad))
        with pytest.raises(OverflowError, match=r"add\.outer\(weak .*does not fit int2"):
            add.outer(w, b, dtype=ml_dtypes.int2)
        with pytest.raises(OverflowError, match="does not fit int2"):
            add(w, b, dtype=ml_dtypes.int2)
    # (without dtype=: the weak array adopts the int2 array's type there, and the error names
    # outer too)
    with pytest.raises(OverflowError, match=r"add\.outer\(weak .*holds 2, which does not fit int2"):
        add.outer(tl.weak(np.array([1, 2])), np.array([1], ml_dtypes.int2))
    w = tl.weak(np.array([1, -2]))
    got = add.outer(w, b, dtype=ml_dtypes.int2)
    ref = np.add.outer(np.array([1, -2]).astype(ml_dtypes.int2), b.astype(ml_dtypes.int2))
    assert got.dtype == ml_dtypes.int2 and got.tolist() == ref.tolist()


def test_weak_arrays_under_dtype_and_signature_as_python_scalars():
    """Under dtype=/signature=, a weak array takes the type a Python scalar of its weak type takes
    there, where it was taken at its materialized dtype: float8 + weak float with
    dtype=float8_e5m2 raised (float8 and float64 do not promote); with signature=(int8, None,
    None), int8 + weak [300] gave an int64 array and weak [300] in the fixed place wrapped to 44.
    References: ml_dtypes' and NumPy's ufuncs on the operands cast to the loop type."""
    f8 = ml_dtypes.float8_e5m2
    a = np.array([1.0, 2.0, -3.0], f8)
    vals = np.array([1.1, 2.2, 0.4])
    w = tl.weak(vals)
    got = tl.add(a, w, dtype=f8)
    assert got.dtype == f8 and np.array_equal(got, np.add(a, vals.astype(f8)))
    got = tl.multiply(w, a, signature=(None, None, f8))
    assert got.dtype == f8 and np.array_equal(got, np.multiply(vals.astype(f8), a))
    got = tl.add(a, w, dtype=np.float32)       # computed in float32, as with a Python float
    assert got.dtype == np.float32
    assert np.array_equal(got, np.add(a.astype(np.float32), vals.astype(np.float32)))
    assert [tl.add(a[i:i + 1], float(v), dtype=np.float32)[0] for i, v in enumerate(vals)] \
        == got.tolist()
    x = np.array([1, 2, 3], np.int8)
    big = tl.weak(np.array([300, 1, 2]))
    for call in (lambda: tl.add(x, big, signature=(np.int8, None, None)),
                 lambda: tl.add(big, x, signature=(np.int8, None, None)),
                 lambda: tl.add(x, 300, signature=(np.int8, None, None))):
        with pytest.raises(OverflowError, match="300"):
            call()
    small = tl.weak(np.array([3, 1, -2]))
    got = tl.add(small, x, signature=(np.int8, None, None))
    assert got.dtype == np.int8 and got.tolist() == [4, 3, 1]
    got = tl.maximum(x, small, signature=(None, None, np.int16))
    assert got.dtype == np.int16 and got.tolist() == np.maximum(x, [3, 1, -2]).tolist()
    # a weak float is not truncated into an integer loop (NumPy's casting error), unless
    # casting='unsafe' asks for it; the operands are left as they were
    with pytest.raises(TypeError, match="Cannot cast"):
        tl.add(x, w, dtype=np.int8)
    got = tl.add(x, w, dtype=np.int8, casting="unsafe")
    assert got.dtype == np.int8 and got.tolist() == (x + vals.astype(np.int8)).tolist()
    assert x.tolist() == [1, 2, 3] and w.tolist() == vals.tolist() and tl.is_weak(w)


def test_weak_array_reduced_into_out_computes_in_their_join():
    """A weak array reduced into out= is computed in its join with out's dtype, as a strong
    array is in the rule set's type for its dtype and out's: a weak float array into float16
    sums in float16 (it summed in float64, then cast), and weak ints must fit out's integer
    dtype (300 into int8 wrapped to -112). Reference: NumPy's method on the operand cast to
    the join."""
    vals = np.full(7, 0.1)
    for method, args in (("reduce", ()), ("accumulate", ()), ("reduceat", ([0, 3],))):
        for name in ("add", "multiply", "maximum"):
            shape = np.asarray(getattr(np.add, method)(vals, *args)).shape
            for dt in (np.float16, np.float32, ml_dtypes.bfloat16):
                out = np.zeros(shape, dt)
                got = getattr(getattr(tl, name), method)(tl.weak(vals), *args, out=out)
                want = getattr(getattr(np, name), method)(vals.astype(dt), *args)
                assert got is out       # (a weak view of it was returned)
                assert out.tobytes() == np.asarray(want, dt).tobytes(), (method, name, dt)
    out8 = np.zeros((), np.int8)
    with pytest.raises(OverflowError, match="300"):
        tl.add.reduce(tl.weak(np.array([300, 1])), out=out8)
    assert out8 == 0
    assert tl.add.reduce(tl.weak(np.array([100, 100])), out=out8) == np.int8(-56)
    # no out=: the weak array's own materialized dtype, as before
    assert tl.add.reduce(tl.weak(vals)).dtype == np.float64
    out64 = np.zeros(())        # out= of that dtype: the caller's array back, not a weak view
    assert tl.add.reduce(tl.weak(vals), out=out64) is out64 and out64 == np.add.reduce(vals)


def test_dtype_none_and_a_signature_of_nones_leave_a_weak_array_weak():
    """NumPy takes dtype=None and signature=(None, None, None) as not given: a weak array
    there promotes as in the plain call (it was taken at its materialized int64/float64).
    Reference: the plain call."""
    x = np.ones(3, np.int8)
    for w in (tl.weak(np.array([3])), tl.weak(np.array([2.5]))):
        want = tl.add(x, w)
        assert want.dtype == tl.result_type(x, w)
        for kw in ({"dtype": None}, {"signature": (None, None, None)}):
            got = tl.add(x, w, **kw)
            assert got.dtype == want.dtype and np.array_equal(got, want), (w, kw)


def test_in_place_operators_keep_the_array_and_its_weak_type():
    w = tl.weak(np.asarray([1.0, 2.0]))
    view = w[:]
    w += np.asarray([1, 1], np.float16)
    assert w.lattice_type == "f*" and w.tolist() == [2.0, 3.0] and view.tolist() == [2.0, 3.0]
    i = tl.weak(np.asarray([1, 2]))
    with pytest.raises(TypeError):            # the result, float64, cannot be stored in int64
        i += 2.5
    assert i.tolist() == [1, 2]


def test_operators_use_the_arrays_rule_set():
    z = tl.asarray([1, 2], type="int32?", rules="anvil")
    r = z + np.asarray([1, 1], np.int16)          # anvil: ambiguous int32 + int16 -> int16
    assert r.dtype == np.int16 and not tl.is_weak(r, rules="anvil")
    assert (z + 1).lattice_type == "int32?"
    w = tl.weak(np.asarray([1.0]), rules="jax32")
    assert (w + np.asarray([1], np.float16)).dtype == np.float16 and w.dtype == np.float32


def test_comparison_operators_under_an_asymmetric_table():
    """Python runs `c < w` as w.__gt__(c) (a WeakArray is an ndarray subclass), which swapped
    the operands: under tensorflow's asymmetric table, join(complex64, f*) is complex64 but
    join(f*, complex64) has none, so `c < w` raised where tensorflow.less(c, w) computes. The
    operators now take the other order where the first does not promote. Reference: the
    ufunc in the written order, and NumPy's comparison of the values."""
    tf = tl.make_ufuncs("tensorflow")
    w = tl.weak(np.array([1.5, 2.5, -1.0]), rules="tensorflow")
    c = np.array([1 + 0j, 3 + 0j, -1 + 0j], np.complex64)
    v = w.view(np.ndarray)
    for op, name in [("<", "less"), ("<=", "less_equal"), (">", "greater"),
                     (">=", "greater_equal"), ("==", "equal"), ("!=", "not_equal")]:
        got = eval(f"c {op} w")
        want = tf[name](c, w)
        assert got.dtype == want.dtype == bool and np.array_equal(got, want), op
        assert np.array_equal(got, eval(f"c.astype(np.complex128) {op} v")), op
    with pytest.raises(tl.TypePromotionError):      # the ufunc keeps the table's order
        tf["greater"](w, c)
    with pytest.raises(tl.TypePromotionError):      # no order promotes: the error stands
        np.array([True, False, True]) < w
    wi = tl.weak(np.array([1, 2, -3]), rules="tensorflow")
    with pytest.raises(tl.TypePromotionError):      # not the other order's OverflowError
        wi < np.array([1, 2, 3], np.uint8)


def test_weak_integers_that_do_not_fit_raise_as_python_ints_do():
    """A weak int array adopts the dtype it meets, as a Python int does, and must fit it
    (NumPy's cast would wrap 300 to 44 in int8); out= is left untouched."""
    import ml_dtypes
    for arr, value in ((np.asarray([1, 2], np.int8), 300), (np.asarray([1, 2], np.uint8), -1),
                       (np.asarray([1, 2], ml_dtypes.int4), 8)):
        out = np.full(2, 5, arr.dtype)
        with pytest.raises(OverflowError, match=f"holds {value}, which does not fit {arr.dtype}"):
            tl.add(arr, tl.weak(np.asarray([0, value])), out=out)
        with pytest.raises(OverflowError):
            tl.weak(np.asarray([value, 0])) - arr
        with pytest.raises(OverflowError):
            tl.add(arr, value)                       # the Python int's own error, for comparison
        assert out.astype(int).tolist() == [5, 5]
    # in range, including the type's ends: the values of the Python ints' call
    r = tl.add(np.asarray([1, -1], np.int8), tl.weak(np.asarray([126, -127])))
    assert r.dtype == np.int8 and r.tolist() == [127, -128]


def test_weak_arrays_under_casting_and_kinds_the_loop_does_not_take():
    """casting= judges the strong operand's cast into the loop a weak array chose, as it judges
    it beside a Python scalar (float16 / weak floats with dtype=float32, casting='no' computed);
    a weak complex array is not cast into a real loop whose cast ml_dtypes calls same_kind
    (nextafter(bfloat16, weak complex, signature=bfloat16) dropped the imaginary parts)."""
    h = np.array([1.5, -2.0], np.float16)
    w = tl.weak(np.array([-1.5, 2.5]))
    with pytest.raises(TypeError) as want:
        tl.divide(h[:1], -1.5, dtype=np.float32, casting="no")
    with pytest.raises(TypeError) as got:
        tl.divide(h, w, dtype=np.float32, casting="no")
    assert str(got.value) == str(want.value)
    got = tl.divide(h, w, dtype=np.float32)
    assert got.dtype == np.float32
    assert np.array_equal(got, np.divide(h.astype(np.float32), np.float32([-1.5, 2.5])))
    lax = tl.make_ufuncs("jax_lax")
    b = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    c = tl.weak(np.array([-0.5j, 2 + 3j]), rules="jax_lax")
    with pytest.raises(TypeError, match="weak c\\* operand to bfloat16"):
        lax["nextafter"](b, c, signature=(ml_dtypes.bfloat16,) * 3)
    assert b.tolist() == [1.0, 2.0]


def test_a_python_int_under_casting_equiv_raises_in_process():
    """The OverflowError check of a Python int with dtype= asked NumPy's resolve_dtypes under
    the call's casting=, which crashes NumPy 2.4 for 'equiv' (the process died): NumPy's own
    TypeError now, as np.multiply gives, naming the call's casting= and the rule set."""
    code = """if True:
        import numpy as np, typelattice as tl
        for call in (lambda: tl.multiply(np.ones(2, np.float32), 2, dtype="float64",
                                         casting="equiv"),
                     lambda: tl.add(1, 2, dtype="int32", casting="equiv")):
            try:
                call()
            except TypeError as e:
                print("TypeError", "casting='equiv' allows no conversion" in str(e)
                      and "(rule set 'jax')" in str(e))
    """
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.split() == ["TypeError", "True"] * 2, p


@pytest.mark.parametrize("rules", ["jax", "jax_strict", "tensorflow", "torch"])
def test_at_takes_a_weak_array_value_as_a_python_scalar(rules):
    """uf.at(a, i, weak v) gives what uf.at(a, i, v) gives with the Python scalar v (NumPy's at
    took the weak array as a strong int64/float64 one: uint64 + 1 in float64, int4 refused).
    Reference: the same values computed with exact Python integers, or NumPy's ufunc on the
    value cast to the array's dtype."""
    U = tl.make_ufuncs(rules)
    w = lambda v: tl.weak(np.asarray(v), rules=rules)       # noqa: E731
    big = np.array([2**64 - 2, 2**63 + 3, 7], np.uint64)
    for name, v, f in (("add", 1, lambda x: x + 1), ("subtract", 1, lambda x: x - 1),
                       ("bitwise_or", 1, lambda x: x | 1)):
        if rules in ("torch", "tensorflow") and name != "bitwise_or" or rules == "torch":
            continue                        # (torch has no uint64; tf's weak int is int32)
        got = big.copy()
        U[name].at(got, [0, 1, 1], w(v))
        want = [int(e) for e in big]
        for k in (0, 1, 1):
            want[k] = f(want[k]) % 2**64
        assert got.tolist() == want
    h = np.array([1.0, 2.0], np.float16)
    v = 2.0**-11 + 1e-9             # (rounded once into float16: 1.0 + v is 1.0)
    got = h.copy()
    U["add"].at(got, [0], w(v))
    want = h.copy()
    want[0] = np.add(h[0], np.float16(v))
    assert got.tobytes() == want.tobytes()
    i8 = np.array([5, 2], np.int8)
    U["add"].at(i8, [0, 1], w([3, -4]))
    assert i8.tolist() == [8, -2]
    if rules == "jax":
        s = np.zeros(2, ml_dtypes.int4)
        U["add"].at(s, [0], w(3))
        assert s.tolist() == [3, 0]
        u = np.array([5, 6], np.uint64)
        with pytest.raises(OverflowError, match=r"jax.add.at\(uint64 array, weak int64 array\)"):
            U["add"].at(u, [0], w(-1))
        assert u.tolist() == [5, 6]                         # untouched


def test_weak_array_defers_to_operands_with_their_own_array_ufunc():
    """NEP 13: a duck array, a pandas/xarray object or a dask array beside a weak array handles
    the call, as it does beside a plain ndarray (the weak array took it over: a duck's call
    raised, a Series came back a bare ndarray). A masked array keeps its mask."""
    class Duck:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return ("duck", ufunc.__name__, method)
    w = tl.weak(np.asarray([1.5, 2.5, 3.5]))
    assert tl.add(w, Duck()) == tl.add(np.ones(3), Duck()) == ("duck", "jax.add", "__call__")
    assert tl.add(Duck(), w) == ("duck", "jax.add", "__call__")
    m = np.ma.array(np.array([1, 2, 3], np.int8), mask=[0, 1, 0])
    for got in (tl.add(m, w), tl.add(w, m)):
        assert isinstance(got, np.ma.MaskedArray) and got.dtype == np.float64
        assert got.mask.tolist() == [False, True, False]
        assert got[0] == 2.5 and got[2] == 6.5


def test_weak_array_as_where_and_out():
    """where= a weak array is its plain values (a weak mask recursed forever, in np.add too);
    out= a weak array is returned itself, as NumPy returns out= arrays."""
    x = np.arange(3, dtype=np.int8)
    wmask = tl.weak(np.asarray([1, 0, 1]))          # (no weak bool: a weak int mask)
    for f in (tl.add, np.add):
        with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('int64'\\) to "
                           "dtype\\('bool'\\)"):
            f(x, x, out=np.zeros(3, np.int8), where=wmask)  # (as with the plain int64 mask)
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        tl.add.reduce(x, where=wmask)
    o = tl.weak(np.zeros(3))
    for f in (tl.add, np.add):
        assert f(x, x, out=o) is o
        assert o.tolist() == [0.0, 2.0, 4.0]
    z = tl.weak(np.asarray(0.0))
    assert tl.add.reduce(np.ones(4, np.float32), out=z) is z and float(z) == 4.0
    r = tl.weak(np.zeros(3, np.int64))
    got = tl.divmod(x, np.int8(2), out=(None, r))
    assert got[1] is r and got[0].tolist() == [0, 0, 1] and r.tolist() == [0, 1, 0]


@pytest.mark.parametrize("name", ["divide", "arctan2", "hypot", "copysign", "logaddexp",
                                  "logaddexp2", "nextafter", "heaviside", "float_power"])
def test_a_weak_int_an_array_type_cannot_hold_computes_as_a_python_int(name):
    """divide(uint16_array, weak -2) computes in float32 as divide(uint16_array, -2) does (the
    weak array had to fit uint16, the join, first: OverflowError). Reference: NumPy's ufunc on
    both operands cast to float32, JAX's to-inexact type of uint16."""
    u16 = np.array([1, 2, 3], np.uint16)
    w = tl.weak(np.asarray([-2, -1, 70000]))
    uf, ref = getattr(tl, name), getattr(np, name)
    for a, b in ((u16, w), (w, u16)):
        got = uf(a, b)
        assert got.dtype == np.float32 and not tl.is_weak(got)
        want = ref(np.asarray(a).astype(np.float32), np.asarray(b).astype(np.float32))
        np.testing.assert_array_max_ulp(np.asarray(got), want.astype(np.float32), maxulp=4)
    with pytest.raises(OverflowError, match="does not fit uint16"):
        tl.add(u16, w)                                      # (computed in uint16)
    # casting= judges the array's cast to the compute type, as with a Python int
    with pytest.raises(TypeError) as want:
        uf(u16, -2, casting="no")
    with pytest.raises(type(want.value)) as got:
        uf(u16, w, casting="no")
    assert str(got.value) == str(want.value)


def test_weak_array_calls_name_an_unsupported_operand_as_plain_calls():
    """A weak array beside an object/longdouble array: the plain call's TypeError, naming the
    call and the rule set (it gave the bare 'cannot promote the object dtype')."""
    w = tl.weak(np.ones(2))
    for other, what in ((np.array([1, None]), "object"), (np.ones(2, np.longdouble), "float128")):
        with pytest.raises(TypeError, match=r"^jax\.add\(float64 array, \w+ array\): "
                           rf"typelattice cannot promote .*{what}.*\(rule set 'jax'\)$"):
            tl.add(w, other)


def test_jax32_reads_int64_beside_a_weak_array_as_int32():
    """jax32 reads an int64 operand as its int32 (2**33 + 5 is 5) in calls with a weak array
    too (the cast to the op's compute type took the int64 values whole). Reference: NumPy's
    ufunc on the operand wrapped to int32 and cast to float32/complex64."""
    j = tl.make_ufuncs("jax32")
    x = np.array([2**33 + 5, 2**32 - 1, 7], np.int64)
    x32 = x.astype(np.int32)                                # (NumPy's wrap: 5, -1, 7)
    for name, v, ct in (("add", 1.5, np.float32), ("less", 1.5, np.float32),
                        ("maximum", 1.5, np.float32), ("add", 1 + 2j, np.complex64),
                        ("divide", 2, np.float32), ("copysign", 2, np.float32)):
        w = tl.weak(np.asarray(v), rules="jax32")
        want = getattr(np, name)(x32.astype(ct), np.asarray(v).astype(ct))
        got = j[name](x, w)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert np.asarray(got).tolist() == np.asarray(j[name](x, v)).tolist()
    w = tl.weak(np.asarray(1.5), rules="jax32")
    assert float(j["add"](np.int64(2**33 + 5), w)) == 6.5 and (w + x).tolist() == [6.5, 0.5, 8.5]


def test_a_weak_operand_an_op_refuses_gives_the_ops_error():
    """gcd of an int array and a weak float raises gcd's own ValueError, under any casting=, as
    with a Python float (the other operand was cast for the op's compute type first, and
    casting='no' refused that cast instead)."""
    x = np.arange(4, dtype=np.int16)
    for casting in ("no", "equiv", "safe", "same_kind"):
        for uf, v, exc in ((tl.gcd, 0.5, ValueError), (tl.bitwise_and, 0.5, TypeError),
                           (tl.nextafter, 1 + 2j, TypeError)):
            with pytest.raises(exc) as want:
                uf(x, v, casting=casting)
            with pytest.raises(type(want.value)):
                uf(x, tl.weak(np.asarray(v)), casting=casting)


@pytest.mark.parametrize("rules", ["jax", "jax32", "anvil"])
def test_at_where_the_plain_call_computes_in_another_type(rules):
    """uf.at(a, i, v) where uf(a, v) computes in another type than a's (copysign, divide of
    ints in float32 or float64): NumPy's at computes there on v in the type the plain call takes
    it in, for a Python scalar and a weak value alike (a Python int went as int64: jax32 read it
    as int32, wrapping 2**31 to -2**31). Reference: the plain call, cast back."""
    U = tl.make_ufuncs(rules)
    for name, dt, v in (("copysign", np.uint8, 2**31), ("copysign", np.int32, 1),
                        ("divide", np.int32, 2**32), ("divide", np.int64, 3)):
        base = np.array([2**30 - 1 if dt == np.int32 else 5, 6], dt)
        want = base.copy()
        with np.errstate(all="ignore"):
            want[0] = np.asarray(U[name](base[:1], v)).astype(dt)[0]
        got = base.copy()
        with np.errstate(all="ignore"):
            U[name].at(got, [0], v)
        assert got.tolist() == want.tolist(), (name, dt, v)
        try:
            w = tl.weak(np.asarray(v), rules=rules)
        except OverflowError:
            continue                # (jax32/anvil: a weak int is int32)
        got = base.copy()
        with np.errstate(all="ignore"):
            U[name].at(got, [0], w)
        assert got.tolist() == want.tolist(), (name, dt, "weak")


def test_a_weak_int_that_does_not_fit_raises_the_python_ints_error_first():
    """Where the call raises for any value (gcd of int4: no loop; nextafter with dtype=uint8:
    no loop), a weak int that does not fit raises that error, as the Python int does, not its
    OverflowError. Reference: the same call with the Python int."""
    i4 = np.array([1, 2], ml_dtypes.int4)
    b = np.array([True, False])
    for call in (lambda v: tl.gcd(i4, v), lambda v: tl.lcm(v, i4),
                 lambda v: tl.nextafter(b, v, dtype=np.uint8),
                 lambda v: tl.add(np.array([1], np.int8), v)):
        with pytest.raises(Exception) as plain:
            call(300)
        with pytest.raises(type(plain.value)):
            call(tl.weak(np.asarray(300)))
        with pytest.raises(type(plain.value)):
            call(tl.weak(np.asarray([300, 1])))
    # with no array beside it, nothing to probe: the call computes no value (power(0, -1)
    # raised ValueError, floor_divide(0, 0) warned)
    U = tl.make_ufuncs("jax32")
    w = tl.weak(np.asarray(2**40), rules="jax")
    for call in (lambda v: U["power"](v, -1), lambda v: U["floor_divide"](v, 0)):
        with pytest.raises(OverflowError):
            call(2**40)
        with warnings.catch_warnings(), np.errstate(all="raise"):
            warnings.simplefilter("error")
            with pytest.raises(OverflowError):
                call(w)


@pytest.mark.parametrize("rules", ["torch", "numpy", "tensorflow", "jax", "anvil"])
def test_a_weak_reduction_computes_as_its_pairwise_calls(rules):
    """add/multiply/maximum reduce and accumulate of a weak array compute where its pairwise
    calls w[0] + w[1] do: in the join of its weak type with itself, which tables make strong
    (torch's f* with f* is float64; the reduction computed in the float32 storage and stayed
    weak). Reference: the pairwise call's dtype and weak flag, NumPy's reduction on the array
    cast to that dtype."""
    U = tl.make_ufuncs(rules)
    for values in ([0.1, 0.2, 0.3], [3, 4, 5]):
        w = tl.weak(np.asarray(values), rules=rules)
        for name in ("add", "multiply", "maximum"):
            pair = U[name](w[0:1], w[1:2])
            for method in ("reduce", "accumulate"):
                got = getattr(U[name], method)(w)
                want = getattr(getattr(np, name), method)(tl.strong(w).astype(pair.dtype))
                assert np.asarray(got).dtype == pair.dtype, (name, method, values)
                assert tl.is_weak(got) == tl.is_weak(pair), (name, method, values)
                assert np.asarray(got).tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("rules", ["jax_strict", "jax_lax", "tensorflow", "jax"])
def test_at_computes_where_the_value_in_the_compute_type_does_not_join(rules):
    """Under rule sets that join no int with a float (and jax's int4, which joins no float),
    uf.at(int array, i, v) where the plain call computes in a float type takes an int v in the
    array's own type, from which NumPy's at finds the plain call's loop (v converted to the
    float type raised that the pair does not promote). An int outside the array's type raises
    an OverflowError, the array untouched. Reference: the plain call index by index, cast
    back."""
    U = tl.make_ufuncs(rules)
    wt = tl.get_rules(rules).python_scalars["int"]
    dts = [np.int8, np.uint16, np.int32, np.int64, ml_dtypes.int4]
    for name, dt in itertools.product(("divide", "arctan2", "copysign", "hypot"), dts):
        base = np.array([0, 1, 2, 3], dt)
        want = base.copy()
        try:
            with np.errstate(all="ignore"):
                for i in (0, 2, 0):
                    want[i] = np.asarray(U[name](want[i:i + 1], 3)).astype(dt)[0]
        except TypeError:
            want = None         # (jax_lax's Python int is strong; tensorflow has no int4)
        for v in (3, tl.weak(np.asarray(3), type=wt, rules=rules)):
            got = base.copy()
            if want is None:
                with pytest.raises(TypeError):
                    U[name].at(got, [0, 2, 0], v)
                assert got.tolist() == base.tolist()
                continue
            with np.errstate(all="ignore"):
                U[name].at(got, [0, 2, 0], v)
            assert got.tolist() == want.tolist(), (name, dt, v)
    a = np.array([1, 2], np.int8)
    if rules in ("jax_strict", "tensorflow"):     # (jax's at computes in float32 there)
        with pytest.raises(OverflowError, match=r"divide.at\(int8 array, indices, 300\).*int8"):
            U["divide"].at(a, [0], 300)
    assert a.tolist() == [1, 2]


def test_at_runs_the_plain_calls_loop_where_the_value_type_joins_wider():
    """numpy's table joins uint32 with float32 in float64, so hypot.at(uint32 array, i, v)
    with v in the plain call's float32 computed in float64 (3037000499 where the plain call
    gives 3037000448): v goes in uint32, whose loop is the plain call's; a v outside uint32
    still computes, in that wider loop. A weak int beside an int1 array, which has no loop,
    raises the plain call's TypeError (it raised that 1 does not fit int1). Reference: the
    plain call index by index, cast back."""
    U = tl.make_ufuncs("numpy")
    for name, v in (("hypot", 2**31), ("arctan2", 3), ("arctan2", -1), ("divide", 7)):
        for value in (v, tl.weak(np.asarray(v), rules="numpy")):
            base = np.array([3, 1, 2], np.uint32)
            want = base.copy()
            for i in (0, 2, 0):
                want[i] = np.asarray(U[name](want[i:i + 1], v)).astype(np.uint32)[0]
            got = base.copy()
            U[name].at(got, [0, 2, 0], value)
            assert got.tolist() == want.tolist(), (name, v)
    i1 = np.array([0, -1], ml_dtypes.int1)
    with pytest.raises(TypeError, match="no loop for int1"):
        tl.arctan2(i1, 1)
    for value in (1, tl.weak(np.asarray(1))):
        with pytest.raises(TypeError, match="no loop for int1"):
            tl.arctan2.at(i1, [0], value)
    assert i1.tolist() == [0, -1]


@pytest.mark.parametrize("rules", ["jax_strict", "jax_lax", "tensorflow"])
def test_an_op_rule_for_a_pair_with_no_join_takes_a_weak_array(rules):
    """Under rule sets where bool and i* do not join, power's own rule still gives bool ** i*
    int32 (jax_ops_rules.md): for a weak int exponent as for a Python int (the weak array
    raised that the pair does not promote). add of the pair raises for both. Reference: NumPy's
    power in int32."""
    U = tl.make_ufuncs(rules)
    b = np.array([True, False, True])
    w = tl.weak(np.asarray([2, 3, 0]), rules=rules)
    got = U["power"](b, w)
    assert got.dtype == U["power"](b, 2).dtype == np.int32 and not tl.is_weak(got)
    assert got.tolist() == np.power(b.astype(np.int32), np.array([2, 3, 0], np.int32)).tolist()
    with pytest.raises(tl.TypePromotionError):
        U["add"](b, 2)
    with pytest.raises(tl.TypePromotionError):
        U["add"](b, w)
