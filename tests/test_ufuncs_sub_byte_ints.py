"""ml_dtypes' sub-byte integers (int1, int2, int4, uint1, uint2, uint4): JAX's promotion (they
meet only bool, themselves and Python ints) and XLA's two's-complement arithmetic, which wraps to
the type's bits. Reference: NumPy's int64 ufunc on the values, wrapped to the type's bits here."""
import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs

SUB = [t for t in ("int1", "int2", "int4", "uint1", "uint2", "uint4") if hasattr(ml_dtypes, t)]
BINARY = ["add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "maximum",
          "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal"]
UNARY = ["negative", "positive", "sign", "square", "invert", "floor", "ceil", "trunc",
         "conjugate", "logical_not", "isnan", "isinf", "isfinite", "signbit"]


def _dtype(name):
    return np.dtype(getattr(ml_dtypes, name))


def _range(name):
    bits = int(name[-1])
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if name.startswith("int") \
        else (0, (1 << bits) - 1)


def _wrap(v, name):
    lo, hi = _range(name)
    return (np.asarray(v, np.int64) - lo) % (hi - lo + 1) + lo


def _all_pairs(name):
    lo, hi = _range(name)
    v = np.arange(lo, hi + 1)
    a, b = np.repeat(v, v.size), np.tile(v, v.size)
    return a, b


def _reference(op, name, a, b=None):
    with np.errstate(all="ignore"):
        r = getattr(np, op)(a) if b is None else getattr(np, op)(a, b)
    return r if r.dtype == bool else _wrap(r, name)


@pytest.mark.parametrize("name", SUB)
@pytest.mark.parametrize("op", BINARY)
def test_every_pair_of_values(name, op):
    dt = _dtype(name)
    a, b = _all_pairs(name)
    want = _reference(op, name, a, b)
    with np.errstate(all="ignore"):
        got = getattr(tl, op)(a.astype(dt), b.astype(dt))
    assert got.dtype == (np.dtype(bool) if want.dtype == bool else dt)
    assert np.array_equal(got.astype(np.int64), want.astype(np.int64)), op
    assert _ufuncs.mixed_loop_kind(getattr(tl, op), (dt, dt, got.dtype)) == "sub_byte_int"


@pytest.mark.parametrize("name", SUB)
@pytest.mark.parametrize("op", UNARY)
def test_every_value_unary(name, op):
    dt = _dtype(name)
    lo, hi = _range(name)
    a = np.arange(lo, hi + 1)
    got = getattr(tl, op)(a.astype(dt))
    want = _reference(op, name, a)
    assert got.dtype == (np.dtype(bool) if want.dtype == bool else dt)
    assert np.array_equal(got.astype(np.int64), want.astype(np.int64)), op


@pytest.mark.parametrize("name", SUB)
def test_promotion_layouts_and_methods(name):
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.resize(np.arange(lo, hi + 1), 37)
    y = x[::-1].copy()
    xd, yd = x.astype(dt), y.astype(dt)
    # bool and in-range Python ints join to the sub-byte type
    assert tl.add(xd, np.ones(37, bool)).dtype == dt
    assert np.array_equal(tl.add(xd, hi).astype(np.int64), _wrap(x + hi, name))
    assert np.array_equal(tl.subtract(lo, xd).astype(np.int64), _wrap(lo - x, name))
    # strided, reversed, 0-d, out=, where=
    assert np.array_equal(tl.multiply(xd[::3], yd[::-3]).astype(np.int64),
                          _wrap(x[::3] * y[::-3], name))
    assert np.array_equal(tl.add(xd[5], yd).astype(np.int64), _wrap(x[5] + y, name))
    out = np.zeros(37, dt)
    w = np.arange(37) % 2 == 0
    tl.subtract(xd, yd, out=out, where=w)
    assert np.array_equal(out.astype(np.int64), np.where(w, _wrap(x - y, name), 0))
    inplace = xd.copy()
    tl.add(inplace, yd, out=inplace)
    assert np.array_equal(inplace.astype(np.int64), _wrap(x + y, name))
    # reductions run in order on the wrapped values (accumulate: the contiguous loop fed back)
    assert tl.maximum.reduce(xd).astype(np.int64) == x.max()
    acc = tl.bitwise_xor.accumulate(xd)
    assert acc.dtype == dt
    assert np.array_equal(acc.astype(np.int64), _wrap(np.bitwise_xor.accumulate(x), name))
    # islands: any other integer, float or another sub-byte type is a TypePromotionError
    for other in (np.ones(37, np.int8), np.ones(37, np.uint8), np.ones(37, np.float32),
                  np.ones(37, ml_dtypes.bfloat16), 1.5):
        with pytest.raises(tl.TypePromotionError, match=name):
            tl.add(xd, other)
    # what jax.numpy refuses for them stays refused, naming the type (gcd: the signed ones)
    for op in ("power",) + (("gcd",) if name.startswith("int") else ()):
        with pytest.raises(TypeError, match=name):
            getattr(tl, op)(xd, yd)


@pytest.mark.parametrize("name", SUB)
def test_python_int_operand(name):
    """A Python int takes the sub-byte type (weak) when it fits it, on either side, for every
    binary op (reference: the int64 values, wrapped); one outside the type's range is an
    OverflowError naming the operands and the rule set, as for the core dtypes' weak ints
    (ml_dtypes' own conversion would wrap it), and leaves out= as it was."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.resize(np.arange(lo, hi + 1), 23)
    xd = x.astype(dt)
    for op in BINARY:
        uf = getattr(tl, op)
        for v in sorted({lo, hi, 0, min(1, hi), lo + hi}):
            with np.errstate(all="ignore"):
                pairs = ((uf(xd, v), x, v), (uf(v, xd[::-2]), v, x[::-2]))
            for got, a, b in pairs:
                want = _reference(op, name, a, b)
                assert got.dtype == (want.dtype if want.dtype == bool else dt), (op, v)
                assert np.array_equal(got.astype(np.int64), want.astype(np.int64)), (op, v)
        with np.errstate(all="ignore"):
            out = np.zeros(23, uf(xd[:1], xd[:1]).dtype)
        out[::2] = 1
        before = out.copy()
        for v in (hi + 1, lo - 1, 2**40, -2**70):      # (beyond int64: NumPy's error, reworded)
            for args in ((xd, v), (v, xd)):
                with pytest.raises(OverflowError, match=rf"jax\.{op}\(.*Python int {v}\b.*"
                                   rf"does not fit {name}, the dtype rule set 'jax'"):
                    uf(*args, out=out)
        assert np.array_equal(out.view(np.uint8), before.view(np.uint8)), op


def test_division_by_zero_warns_as_numpy():
    dt = _dtype("int4")
    x = np.array([3, -5], dt)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        r = tl.floor_divide(x, np.zeros(2, dt))
    assert np.array_equal(r.astype(np.int64), [0, 0])


@pytest.mark.parametrize("name", SUB)
@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_reductions_with_where_and_empty_ones_use_the_identity(name, op):
    """bitwise reductions of a sub-byte integer with where= or along an empty axis start from
    the op's identity in the type (all ones for and: the type's bits); reference: NumPy's
    int64 reduction of the values, wrapped. Without an identity they raised 'no identity'."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.resize(np.arange(lo, hi + 1), (3, 4))
    w = (np.arange(12).reshape(3, 4) % 3) != 1
    ident = {"bitwise_and": -1, "bitwise_or": 0, "bitwise_xor": 0}[op]
    uf, ref = getattr(tl, op), getattr(np, op)
    for axis in (0, 1, None):
        got = uf.reduce(x.astype(dt), axis=axis, where=w)
        want = ref.reduce(x, axis=axis, where=w, initial=ident)
        assert np.asarray(got).dtype == dt
        assert np.array_equal(np.asarray(got).astype(np.int64), _wrap(want, name)), (axis, got)
    got = uf.reduce(np.zeros((0, 2), dt), axis=0)
    assert got.dtype == dt and np.array_equal(got.astype(np.int64), _wrap(np.full(2, ident), name))


def test_an_int64_array_is_not_a_python_int_in_any_call_order():
    """A Python int with an int4 array runs a loop that checks its range; an int64 array there
    is a TypePromotionError, before and after that loop is registered, and so is ufunc.at with
    an int64 value (ufunc.at with a Python int takes it as an int4, as the plain call does).
    Both call orders, fresh processes:
    the int64 array ran the Python int's loop after it (int4 result), and a failed add.at left
    add(int4 array, 1) raising NumPy's 'already registered' error; a longlong array
    (array.array('q')) then did, when that loop was registered under longlong's class."""
    import subprocess
    import sys
    code = """if 1:
        import sys, numpy as np, ml_dtypes, typelattice as tl
        x = np.array([1, 2, -3], ml_dtypes.int4)
        def outcome(f):
            try:
                r = f()
                return "ok " + str(None if r is None else np.asarray(r).astype(np.int64).tolist())
            except Exception as e:
                return type(e).__name__
        import array
        q = np.asarray(array.array("q", [1, 1, 1]))          # longlong, not int64's class
        steps = {"int": lambda: tl.add(x, 1), "i64": lambda: tl.add(x, np.ones(3, np.int64)),
                 "at": lambda: tl.add.at(x.copy(), [0], np.int64(3)), "big": lambda: tl.add(x, 9),
                 "atp": lambda: (lambda y: (tl.add.at(y, [0, 0], 3), y)[1])(x.copy()),
                 "q": lambda: tl.add(x, q), "qr": lambda: tl.less(q, x),
                 "qs": lambda: tl.add(x, np.longlong(1)), "outer": lambda: tl.add.outer(x, q),
                 "td": lambda: tl.add(x, np.ones(3, "m8[s]"))}
        print([outcome(steps[k]) for k in sys.argv[1].split(",")])
    """
    want = {"int": "ok [2, 3, -2]", "i64": "TypePromotionError", "at": "TypePromotionError",
            "atp": "ok [7, 2, -3]",
            "big": "OverflowError", "q": "TypePromotionError", "qr": "TypePromotionError",
            "qs": "TypePromotionError", "outer": "TypePromotionError", "td": "TypeError"}
    for order in ("int,i64,at,big,int", "at,int,i64,int", "i64,int,i64,at,int", "atp,i64,int,at",
                  "i64,atp,at,int",
                  "int,q,qs,outer,td,int", "q,qr,qs,td,int,q,qr,qs,outer,td"):
        out = subprocess.run([sys.executable, "-c", code, order], capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == str([want[k] for k in order.split(",")]), (order, out)


def test_a_refused_timedelta64_operand_keeps_the_int_types_references():
    """A timedelta64 operand with a unit beside a sub-byte int array (the Python-int loop's
    carrier DType, refused in its resolve_descriptors) raises a TypeError and leaves the
    reference count of the int's dtype as it was (each call took one reference: after about 25
    errors the dtype was freed and the process crashed), for plain calls, at, outer and where=,
    in a fresh process (a crash fails the test)."""
    import subprocess
    import sys
    code = """if 1:
        import sys, numpy as np, ml_dtypes, typelattice as tl
        for name in ("int1", "int2", "int4", "uint1", "uint2", "uint4"):
            t = getattr(ml_dtypes, name)
            x = np.zeros(3, t)
            with np.errstate(all="ignore"):
                for uf in (tl.add, tl.less, tl.floor_divide, tl.bitwise_and):
                    uf(x, 0)
            before = sys.getrefcount(np.dtype(t))
            calls = (lambda: tl.add(x, np.timedelta64(1, "s")),
                     lambda: tl.less(np.ones(3, "m8[s]"), x),
                     lambda: tl.floor_divide(x, np.timedelta64(1, "s"), where=[True] * 3,
                                             out=np.zeros(3, t)),
                     lambda: tl.bitwise_and.outer(x, np.ones(2, "m8[s]")),
                     lambda: tl.add.at(x, [0], np.timedelta64(1, "s")))
            for _ in range(40):
                for f in calls:
                    try:
                        f()
                    except TypeError:
                        pass
                    else:
                        raise AssertionError("computed")
            print(name, sys.getrefcount(np.dtype(t)) - before, tl.add(x, 0).tolist())
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:6] == [f"{n} 0 [0, 0, 0]" for n in SUB], out.stdout


@pytest.mark.parametrize("name", SUB)
@pytest.mark.parametrize("op", ["maximum", "minimum", "bitwise_or", "add"])
def test_reduce_initial_outside_the_loop_type_raises(name, op):
    """An integer initial= is stored in the reduction's loop type; ml_dtypes' setitem wrapped it
    (maximum.reduce(int4 [1, 2], initial=20) gave 4). Reference: the initial folded in with
    NumPy's int64 reduction where it fits the loop type, an OverflowError (as NumPy's for int8)
    where it does not; add.reduce's loop is int64 (the sum widens) unless dtype=/out= ask for
    the sub-byte type."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.array([lo, hi], np.int64)
    uf, ref = getattr(tl, op), getattr(np, op)
    for init in (lo, hi, lo - 1, hi + 1, 20, np.int64(hi + 1)):
        fits = lo <= int(init) <= hi
        for kw in ({}, {"dtype": dt}, {"out": np.zeros((), dt)}):
            loop_is_sub_byte = op != "add" or kw
            if not loop_is_sub_byte:            # the sum's int64/uint64 (NumPy's own checks)
                wide = x.astype(np.int64 if name.startswith("int") else np.uint64)
                try:
                    want = ref.reduce(wide, initial=init)
                except OverflowError:
                    with pytest.raises(OverflowError):
                        uf.reduce(x.astype(dt), initial=init)
                    continue
                got = uf.reduce(x.astype(dt), initial=init)
                assert got.dtype == want.dtype and got == want, init
            elif fits:
                got = np.asarray(uf.reduce(x.astype(dt), initial=init, **kw))
                want = ref.reduce(x, initial=int(init))
                assert np.array_equal(got.astype(np.int64), _wrap(want, name)), (init, kw)
            else:
                with pytest.raises(OverflowError, match=f"initial=.*does not fit {name}"):
                    uf.reduce(x.astype(dt), initial=init, **kw)
    out = np.full((), lo, dt)
    with pytest.raises(OverflowError):
        uf.reduce(x.astype(dt), initial=hi + 1, out=out)
    assert int(out.astype(np.int64)) == lo                  # the user's out= untouched
    # dtype= of a sub-byte type for another array: the method runs on the cast array, in dt
    with pytest.raises(OverflowError, match=f"does not fit {name}"):
        uf.reduce(x.astype(np.int8), dtype=dt, initial=hi + 1)
    got = uf.reduce(x.astype(np.int8), dtype=dt, initial=hi)
    assert int(np.asarray(got).astype(np.int64)) == int(_wrap(ref.reduce(x, initial=hi), name))
    # a call NumPy refuses names reduce(), not the check
    with pytest.raises(TypeError, match=r"^reduce\(\)"):
        uf.reduce(x.astype(dt), 0, None, None, False, 0, True, 1)
    with pytest.raises(TypeError, match=r"^reduce\(\)"):
        uf.reduce(x.astype(dt), initial=0, foo=1)


def test_checked_reduce_is_the_method_for_every_other_call():
    """The reduce in the ufunc's __dict__ names, documents and pickles as the method does, and
    passes every other call to NumPy's method unchanged (reference: np.ufunc.reduce itself)."""
    import pickle
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    method = np.ufunc.reduce.__get__(tl.add)
    assert tl.add.reduce.__name__ == "reduce" and tl.add.reduce.__self__ is tl.add
    assert tl.add.reduce.__doc__ == np.ufunc.reduce.__doc__
    assert pickle.loads(pickle.dumps(tl.add.reduce)) is tl.add.reduce
    for args, kw in [((x,), {}), ((x, 1), {"keepdims": True}), ((x, None), {"initial": 2.5}),
                     ((x, 0, None, None, False, 3), {}), ((x,), {"where": x > 3, "initial": 0})]:
        got, want = tl.add.reduce(*args, **kw), method(*args, **kw)
        assert got.dtype == want.dtype and np.array_equal(got, want), (args, kw)


@pytest.mark.parametrize("name", SUB)
def test_python_int_outside_the_type_raises_with_no_element_computed(name):
    """The sub-byte loops check a Python int operand element by element, so an empty array or
    where= everywhere False returned without the OverflowError a non-empty call raises (as
    NumPy's for int8 at any size): now the same error, either side, out= untouched; a
    fitting int still computes (reference: the values wrapped from NumPy's int64 op)."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.array([lo, hi], np.int64)
    for big in (hi + 1, lo - 1, 2**40):
        for a, kw in [(np.zeros(0, dt), {}), (np.zeros((2, 0), dt), {}),
                      (x.astype(dt), {"where": False, "out": np.full(2, lo, dt)}),
                      (x.astype(dt), {"where": np.array([True, False])})]:
            for args in ((a, big), (big, a)):
                with pytest.raises(OverflowError, match=f"does not fit {name}"):
                    tl.add(*args, **kw)
            if "out" in kw:
                assert np.array_equal(kw["out"].astype(np.int64), [lo, lo])
    out = np.full(2, lo, dt)
    got = tl.maximum(x.astype(dt), hi, where=np.array([False, True]), out=out)
    assert np.array_equal(got.astype(np.int64), [lo, _wrap(np.maximum(hi, hi), name)])
    assert tl.add(np.zeros(0, dt), lo).dtype == dt


@pytest.mark.parametrize("name", SUB)
def test_reductions_with_a_wider_dtype_cast_the_operand(name):
    """sum(int4_array, dtype=int8): int4 and int8 do not promote under JAX's rules, but dtype=
    of a reduction asks for the cast, as jnp.sum's does (it raised the TypePromotionError).
    Reference: NumPy's int64 method on the values, wrapped to int8 / exact in float32."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.resize(np.arange(lo, hi + 1), 9)
    for t in (np.int8, np.float32):
        for method in ("reduce", "accumulate"):
            got = getattr(tl.add, method)(x.astype(dt), dtype=t)
            want = getattr(np.add, method)(x.astype(t))
            assert np.asarray(got).dtype == t and np.array_equal(got, want), (t, method)


@pytest.mark.parametrize("name", SUB)
def test_divmod_every_pair_of_values(name):
    """divmod keeps the sub-byte type in both outputs, as jax.numpy's (jax_ops_rules.md: (E,E);
    it raised 'no loop'). Reference: NumPy's int64 divmod of the values, wrapped; a Python int
    operand on either side, and one that does not fit (OverflowError)."""
    dt = _dtype(name)
    a, b = _all_pairs(name)
    with np.errstate(all="ignore"):
        q, r = tl.divmod(a.astype(dt), b.astype(dt))
        wq, wr = np.divmod(a, b)
    assert q.dtype == r.dtype == dt
    assert np.array_equal(q.astype(np.int64), _wrap(wq, name))
    assert np.array_equal(r.astype(np.int64), _wrap(wr, name))
    lo, hi = _range(name)
    with np.errstate(all="ignore"):
        for k in {lo, hi}:
            for got, want in ((tl.divmod(a.astype(dt), k), np.divmod(a, k)),
                              (tl.divmod(k, b.astype(dt)), np.divmod(k, b))):
                for g, w in zip(got, want):
                    assert g.dtype == dt and np.array_equal(g.astype(np.int64), _wrap(w, name))
    with pytest.raises(OverflowError, match=f"does not fit {name}"):
        tl.divmod(a.astype(dt), hi + 1)


@pytest.mark.parametrize("name", SUB)
@pytest.mark.parametrize("op", ["gcd", "lcm"])
def test_gcd_lcm_of_the_unsigned_ones(name, op):
    """jax.numpy's gcd/lcm keep uint1/2/4 (jax_ops_rules.md '=') and raise for int2/int4 (TE):
    every pair of values, against NumPy's int64 op wrapped to the type's bits (lcm(15, 14) of
    uint4 is 210 mod 16 = 2, as JAX's uint4 arithmetic gives)."""
    dt = _dtype(name)
    a, b = _all_pairs(name)
    uf = getattr(tl, op)
    if name.startswith("int"):
        with pytest.raises(TypeError, match="unsigned sub-byte"):
            uf(a.astype(dt), b.astype(dt))
        return
    got = uf(a.astype(dt), b.astype(dt))
    assert got.dtype == dt
    assert np.array_equal(got.astype(np.int64), _wrap(getattr(np, op)(a, b), name))
    assert np.array_equal(uf(a.astype(dt), 1).astype(np.int64), _wrap(getattr(np, op)(a, 1), name))


@pytest.mark.parametrize("name", SUB)
def test_python_int_outside_the_type_raises_under_dtype_and_signature(name):
    """dtype=/signature= of the sub-byte type make NumPy convert a Python int with ml_dtypes'
    setitem, which wraps (add(9, int4_array, dtype=int4) gave [-6, -7]): the same OverflowError
    as the plain call's (and as NumPy's for int8 with dtype=int8); an int that fits computes
    (reference: NumPy's int64 op of the values, wrapped)."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.array([lo, hi], np.int64)
    for kw in ({"dtype": dt}, {"signature": (dt, dt, None)}):
        with pytest.raises(OverflowError, match=f"does not fit {name}"):
            tl.add(hi + 1, x.astype(dt), **kw)
        with pytest.raises(OverflowError, match=f"does not fit {name}"):
            tl.maximum(x.astype(dt), lo - 1, **kw)
        got = tl.add(x.astype(dt), hi, **kw)
        assert got.dtype == dt and np.array_equal(got.astype(np.int64), _wrap(x + hi, name))


@pytest.mark.parametrize("name", SUB)
def test_python_int_under_a_dtype_that_holds_it_computes(name):
    """A dtype=/signature= choosing a loop of another type takes a Python int in that type, as
    NumPy's own ufunc does (add(int4_array, 300, dtype=float32) raised that 300 does not fit
    int4; reference: np.add on the same operands, whose float32/int16 loops ml_dtypes casts
    into); where the chosen type cannot hold it, the OverflowError names that type."""
    dt = _dtype(name)
    lo, hi = _range(name)
    x = np.array([lo, hi], np.int64).astype(dt)
    for kw in ({"dtype": np.float32}, {"signature": (None, None, np.float32)},
               {"dtype": np.int16}):
        got = tl.add(x, 300, **kw)
        want = np.add(x, 300, **kw)
        assert got.dtype == want.dtype and np.array_equal(got, want), (kw, got, want)
        got = tl.maximum(-300, x, **kw)
        assert np.array_equal(got, np.maximum(-300, x, **kw)), (kw, got)
    with pytest.raises(OverflowError, match="does not fit int8"):
        tl.add(x, 300, dtype=np.int8)


def test_python_int_under_dtype_and_casting_unsafe():
    """casting= is part of the loop a dtype= chooses: int4 + 100 with dtype=uint16 and
    casting='unsafe' is NumPy's uint16 sum (an OverflowError named int4 when the check
    resolved the loop under same_kind, which refuses int4 -> uint16)."""
    x = np.array([1, -2], ml_dtypes.int4)
    got = tl.add(x, 100, dtype=np.uint16, casting="unsafe")
    want = np.add(x, 100, dtype=np.uint16, casting="unsafe")
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_python_int_message_with_a_positional_out():
    """out= given positionally was taken for an operand by the message's dtype lookup, which
    then failed: NumPy's bare "out of bounds" instead of the message naming the call."""
    for call in (lambda: tl.add(np.int8([1]), 300, np.zeros(1, np.int8)),
                 lambda: tl.add(np.int8([1]), 300, out=np.zeros(1, np.int8))):
        with pytest.raises(OverflowError, match=r"jax.add\(int8 array, Python int 300\): the "
                           r"Python int does not fit int8"):
            call()
