"""Weak (JAX) and ambiguous (anvil) arrays: the type side, and weak results that stay weak."""
import pickle

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
    # an integer power is never weak (x ** Python int keeps x's dtype, not weak)
    for a, b in ((tl.weak(np.asarray([2, 3])), tl.weak(np.asarray([2, 3]))),
                 (np.ones(2, bool), tl.weak(np.asarray([2, 3])))):
        r = tl.power(a, b)
        assert r.dtype == np.int64 and not tl.is_weak(r)


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
