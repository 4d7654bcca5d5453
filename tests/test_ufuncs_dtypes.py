"""Result dtypes and errors of every ufunc for every pair of the 18 operand kinds (15 dtypes and
Python int/float/complex), against the independent model in ufunc_reference.py."""
import pickle
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs
from ufunc_reference import (ALL_OPS, KINDS, compute_dtypes, dtype, expected,
                             operand)


def test_every_op_is_a_numpy_ufunc():
    for name in ALL_OPS:
        uf = getattr(tl, name)
        assert isinstance(uf, np.ufunc), name
        assert uf.nin == 2
        assert uf.nout == (2 if name == "divmod" else 1)
    assert tl.true_divide is tl.divide and tl.mod is tl.remainder


@pytest.mark.parametrize("name", ALL_OPS)
def test_result_dtypes_all_pairs(name):
    uf = getattr(tl, name)
    bad = []
    for a in KINDS:
        for b in KINDS:
            want = expected(name, a, b)
            x, y = operand(a), operand(b)
            try:
                with np.errstate(all="ignore"):
                    got = uf(x, y)
            except Exception as exc:  # noqa: BLE001
                if isinstance(want, type) and isinstance(exc, want):
                    continue
                bad.append(f"{a}|{b}: want {want}, raised {type(exc).__name__}: {exc}")
                continue
            got = got if isinstance(got, tuple) else (got,)
            got_names = tuple(np.asarray(g).dtype.name for g in got)
            if isinstance(want, type):
                bad.append(f"{a}|{b}: want {want.__name__}, got {got_names}")
            elif got_names != want:
                bad.append(f"{a}|{b}: want {want}, got {got_names}")
            elif a in ("i*", "f*", "c*") and b in ("i*", "f*", "c*"):
                pass
            else:
                # the operands broadcast to the array shape
                assert all(np.shape(g) == (3,) for g in got)
    assert not bad, f"{len(bad)} cells differ:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", ALL_OPS)
def test_resolve_dtypes_agrees_with_calls(name):
    uf = getattr(tl, name)
    pyt = {"i*": int, "f*": float, "c*": complex}
    bad = []
    for a in KINDS:
        for b in KINDS:
            want = expected(name, a, b)
            if isinstance(want, type) or (a in pyt and b in pyt):
                continue
            ins = tuple(pyt[k] if k in pyt else dtype(_long(k)) for k in (a, b))
            got = uf.resolve_dtypes(ins + (None,) * uf.nout)
            if tuple(d.name for d in got[2:]) != want:
                bad.append(f"{a}|{b}: {got} vs {want}")
            cin = compute_dtypes(name, a, b)
            fused = (name, got[0].name, got[1].name, cin[0]) in _ufuncs.fused_loops()
            # (a logical op's (bool, x) loop takes a Python scalar as the join's type x)
            kind = _ufuncs.mixed_loop_kind(uf, ins + got[2:]) or \
                _ufuncs.mixed_loop_kind(uf, got)
            weak = kind == "weak"
            for k, d, c in zip((a, b), got[:2], cin):
                # an input is converted to the compute dtype, or read as it is by a loop that
                # converts inline: blocked (floating and complex compute dtypes), fused, a logical op's
                # (bool, x) loop, or the weak loop of a Python scalar (NumPy's 0-d
                # int64/float64/complex128 array of it)
                own = np.dtype(pyt[k]).name if k in pyt and weak else \
                    None if k in pyt else _long(k)
                # (ldexp reads an int32 exponent as it is, as NumPy's loops do)
                int32_exp = name == "ldexp" and d.name == own == "int32" \
                    and got[0].name in ("float32", "float64")
                if d.name != c \
                        and not (d.name == own and (c in FLOATS or fused or weak
                                                    or kind == "blocked")) \
                        and not (kind == "logical" and d.name in (own, "bool")) \
                        and not int32_exp:
                    bad.append(f"{a}|{b}: inputs {got[:2]} vs {cin}")
    assert not bad, "\n".join(bad)


def test_a_logical_op_with_a_python_scalar_first_leaves_the_array_calls_loop_alone():
    """logical_and(2.5, bool_array) registered the blocked (float64, bool) loop, which a later
    logical_and(float64_array, bool_array) then took instead of its one-pass (float64, bool)
    -> bool loop (about 3x slower). A Python scalar with a bool array now takes that logical
    loop too (the scalar in the join's type). Reference: NumPy's op on the operands cast to
    the join; the loop the array call gets in a process where it runs first."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        b = np.array([True, False, True, True])
        x = {"float64": np.array([2.5, 0.0, 0.0, 1e-300]), "int64": np.array([3, 0, 0, -1]),
             "complex128": np.array([1j, 0, 0, 1])}
        for name in ("logical_and", "logical_or", "logical_xor"):
            uf = getattr(tl, name)
            for v in (2.5, 0.0, 1e-300, 3, 0, 1j, 0j):
                if sys.argv[1] == "scalar-first":
                    print(name, v, uf(v, b).tolist(), uf(b, v).tolist())
            for t, a in x.items():
                print(name, t, uf(a, b).tolist(), uf(b, a).tolist(),
                      tl._ufuncs.mixed_loop_kind(uf, (t, "bool", "bool")),
                      tl._ufuncs.mixed_loop_kind(uf, ("bool", t, "bool")))
            if sys.argv[1] == "array-first":
                for v in (2.5, 0.0, 1e-300, 3, 0, 1j, 0j):
                    print(name, v, uf(v, b).tolist(), uf(b, v).tolist())
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout.splitlines()
            for order in ("array-first", "scalar-first")]
    assert sorted(outs[0]) == sorted(outs[1]), outs
    b = np.array([True, False, True, True])
    for line in outs[0]:
        name, v, rest = line.split(" ", 2)
        ref = getattr(np, name)
        if v in ("float64", "int64", "complex128"):
            assert rest.endswith("logical logical"), line
            continue
        v = complex(v) if "j" in v else float(v) if "." in v or "e" in v else int(v)
        t = tl.result_type(v, b).type
        want = ref(np.full(4, v, t), b.astype(t)).tolist()
        assert rest == f"{want} {want}", line


def test_the_error_of_a_pair_that_does_not_promote_names_arrays_as_arrays_in_any_order():
    """A failed add(2.5, int4_array) registered the error loop of (float64, int4) naming the
    operands ('f*', 'int4'), so a later float64 array with an int4 array was reported as a
    weak float. Reference: the messages in a process where the array call runs first."""
    code = """if True:
        import sys, numpy as np, ml_dtypes, typelattice as tl
        i4 = np.array([1, 2], ml_dtypes.int4)
        calls = [lambda: tl.add(2.5, i4), lambda: tl.add(np.array([2.5, 1.0]), i4)]
        for f in (calls if sys.argv[1] == "scalar-first" else calls[::-1]):
            try:
                f()
            except tl.TypePromotionError as exc:
                print(exc.operands, "rule set 'jax'" in str(exc), str(exc))
    """
    outs = [subprocess.run([sys.executable, "-c", code, order], capture_output=True, text=True,
                           check=True).stdout.splitlines()
            for order in ("array-first", "scalar-first")]
    assert outs[0] == outs[1], outs         # the message too (a note on f* stayed in it)
    assert [line.split(" True ")[0] for line in outs[0]] == ["('float64', 'int4')"] * 2, outs


def test_logical_ops_of_a_scalar_and_a_bool_array_or_a_bool_and_an_array():
    """The (bool, x) loops' stride-0 paths (one operand a scalar, NumPy scalar, 0-d or
    broadcast array): x's truth value read once, or the bool once. Reference: NumPy's logical
    op on x.astype(bool) (NaN and -0.0 included), in both operand orders."""
    import ml_dtypes
    rng = np.random.default_rng(5)
    b = rng.random(300) > 0.5
    specials = [0.0, -0.0, 1.0, np.nan, np.inf, 1e-40, -3.0]
    for dt in (np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64,
               np.complex64, np.complex128, ml_dtypes.bfloat16):
        vals = np.array(specials if np.dtype(dt).kind in "fcV" or dt is ml_dtypes.bfloat16
                        else [0, 1, -1 if np.dtype(dt).kind == "i" else 7], dtype=dt)
        if np.dtype(dt).kind == "c":
            vals = np.concatenate([vals, np.array([1j, -0.0j], dt)])
        xs = rng.integers(-2, 3, 300).astype(dt)
        for name in ("logical_and", "logical_or", "logical_xor"):
            uf, ref = getattr(tl, name), getattr(np, name)
            for v in vals:
                for scalar in (v, np.asarray(v), np.broadcast_to(v, b.shape)):
                    want = ref(np.asarray(v).astype(bool), b)
                    assert np.array_equal(uf(scalar, b), want), (name, dt, v)
                    assert np.array_equal(uf(b, scalar), want), (name, dt, v)
            for flag in (True, False, np.True_, np.bool_(False)):
                want = ref(xs.astype(bool), flag)
                assert np.array_equal(uf(xs, flag), want), (name, dt, flag)
                assert np.array_equal(uf(flag, xs), want), (name, dt, flag)
                assert np.array_equal(uf(xs[::-2], flag), ref(xs[::-2].astype(bool), flag))


FLOATS = ("float16", "bfloat16", "float32", "float64")


def _long(k):
    from ufunc_reference import LONG
    return LONG[k]


def test_python_int_out_of_range_raises_overflow():
    a = np.arange(3, dtype=np.int8)
    with pytest.raises(OverflowError):
        tl.add(a, 1000)
    with pytest.raises(OverflowError):
        tl.multiply(np.arange(3, dtype=np.uint8), -1)
    assert tl.add(a, 127).dtype == np.int8


@pytest.mark.parametrize("bad", ["object", "U3", "S3", "i4,f4", "M8[s]", "m8[s]", "longdouble"])
def test_unsupported_dtypes_error_names_the_call(bad):
    """Object, string, bytes, structured, datetime, timedelta and long double operands: a
    TypeError naming the ufunc, the operands' types and the rule set, for binary and unary calls
    and reductions; an out= array is left untouched."""
    x = np.zeros(3, bad)
    tag = str(np.dtype(bad)) if bad in ("object", "longdouble") else np.dtype(bad).type.__name__
    out = np.full(3, 7, np.int8)
    for call, want in ((lambda: tl.add(np.int8([1, 2, 3]), x, out=out), f"jax.add(int8, {tag})"),
                       (lambda: tl.multiply(x, 2), f"jax.multiply({tag}, Python int)"),
                       (lambda: tl.sqrt(x), f"jax.sqrt({tag})"),
                       (lambda: tl.add.reduce(x), f"jax.add({tag})")):
        with pytest.raises(TypeError) as e:
            call()
        msg = str(e.value)
        assert msg.startswith(want) and "rule set 'jax'" in msg, msg
    assert (out == 7).all()
    # a numeric dtype= does not cast them for the reduce-likes (astype parsed the strings
    # '1', '2', '3' and summed 6, read datetimes as day counts, dropped timedelta's unit)
    y = np.array(["1", "2", "3"]).astype(bad) if bad[0] in "US" else \
        np.array([1, 2, 3]).astype(bad) if bad[0] in "Mmlo" else x
    for t in (np.int8, np.float32):
        for call in (lambda: tl.add.reduce(y, dtype=t), lambda: tl.add.accumulate(y, dtype=t),
                     lambda: tl.add.reduceat(y, [0, 2], dtype=t),
                     lambda: tl.divide.reduce(y, dtype=t)):
            with pytest.raises(TypeError, match="rule set 'jax'"):
                call()


INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


@pytest.mark.parametrize("fast", [True, False], ids=["fastcall", "numpy-path"])
def test_python_int_out_of_range_error_names_the_call(fast):
    """A Python int outside the range of the dtype it takes (np.iinfo, the reference) raises an
    OverflowError naming the ufunc, the operands, that dtype and the rule set, raised from
    NumPy's own; one inside it computes. Every layout (fast path, where=, strided, out=)."""
    was = _ufuncs.set_fastcall()
    _ufuncs.set_fastcall(fast)
    try:
        for name in INT_DTYPES:
            info = np.iinfo(name)
            x = np.arange(4, dtype=name)
            for v in (info.min - 1, info.max + 1, -(2**70), 2**70):
                for call in (lambda: tl.add(x, v), lambda: tl.less(v, x),
                             lambda: tl.multiply(x[::2], v),
                             lambda: tl.add(x, v, out=np.zeros_like(x), where=x > 0),
                             lambda: tl.maximum(x, v, out=np.empty_like(x))):
                    with pytest.raises(OverflowError) as e:
                        call()
                    msg = str(e.value)
                    assert f"Python int {v}" in msg and f"{name} array" in msg, msg
                    assert f"does not fit {name}" in msg and "rule set 'jax'" in msg, msg
                    assert isinstance(e.value.__cause__, OverflowError)
            for v in (info.min, info.max):
                assert tl.add(x[:1], v).dtype == np.dtype(name)
                assert tl.subtract(x[:1], v)[0] == np.array(0, name) - np.array(v, name)
        # the wider dtype to use, or none
        with pytest.raises(OverflowError, match=r"np\.int16\(\.\.\.\)"):
            tl.add(np.uint8([1]), -1)
        with pytest.raises(OverflowError, match=r"no integer dtype wider than int64 holds it: "
                                                r"pass it as a float"):
            tl.add(np.int64([1]), 2**63)
        assert tl.add(np.int64([1]), float(2**63)).dtype == np.float64     # (the advice works)
        # (-1 beside uint64: int8 holds it, a wider one none; it said no integer dtype did)
        with pytest.raises(OverflowError, match=r"no integer dtype wider than uint64 holds it"):
            tl.add(np.uint64([1]), -1)
        # the int's own place (ldexp's exponent under tensorflow, which joins int64 with no
        # float): no array to cast, so not that advice
        with pytest.raises(OverflowError) as e:
            tl.make_ufuncs("tensorflow")["ldexp"](np.array([1.0, 2.0]), 2**63)
        assert "cast the int64 array" not in str(e.value), str(e.value)
        with pytest.raises(OverflowError, match=r"int64 joins no float under the rule set: cast "
                                                r"the int64 array to a float dtype first"):
            tl.make_ufuncs("jax_strict")["add"](np.int64([1, 2]), 2**63)
        # a type that joins no float (jax's int4: an island) is cast to one first; passing the
        # int as a float raised TypePromotionError
        i4 = np.array([1, -2], ml_dtypes.int4)
        with pytest.raises(OverflowError, match=r"int4 joins no float under the rule set: cast "
                                                r"the int4 array to a float dtype first"):
            tl.add(i4, 2**70)
        with pytest.raises(tl.TypePromotionError):
            tl.add(i4, float(2**70))
        assert np.array_equal(tl.add(i4.astype(np.float64), 2**70),
                              np.add(i4.astype(np.float64), np.float64(2**70)))
        # an op (or operand place) that takes no float is not told to pass one: it refuses it
        for call, f in ((lambda v: tl.bitwise_and(np.uint64([1]), v), "bitwise_and"),
                        (lambda v: tl.gcd(np.int64([4]), v), "gcd"),
                        (lambda v: tl.make_ufuncs("tensorflow")["ldexp"](np.ones(2), v), "ldexp"),
                        (lambda v: tl.make_ufuncs("jax32")["left_shift"](np.uint8([1]), v),
                         "left_shift")):
            with pytest.raises(OverflowError, match=rf"{f} takes no float there: pass a value "
                                                    r"within u?int\d+'s range"):
                call(2**64)
            with pytest.raises((TypeError, ValueError)):
                call(float(2**64))
        # a float type takes every int a float holds; beyond that, the same error
        assert tl.add(np.float32([1]), 2**70).dtype == np.float32
        with pytest.raises(OverflowError, match="does not fit float32.*every float type"):
            tl.add(np.float32([1]), 2**1030)
        # another rule set names itself
        with pytest.raises(OverflowError, match="jax32.add.*does not fit int32.*'jax32'"):
            tl.make_ufuncs("jax32")["add"](2**40, 1)
        # jax32 reads an np.int64 as int32 (wrapping 2**40 to 0): no wider integer to suggest
        with pytest.raises(OverflowError, match="no integer dtype wider than int32 holds it"):
            tl.make_ufuncs("jax32")["negative"](2**40)
    finally:
        _ufuncs.set_fastcall(was)


@pytest.mark.parametrize("rules", sorted(tl.BUILTIN_RULES))
def test_the_suggested_wider_scalar_holds_the_int(rules):
    """The NumPy scalar an OverflowError suggests for a Python int that does not fit the dtype
    it takes is a type of the rule set, and passing it computes with the int's value, unwrapped
    (Python's own sum is the reference), or raises."""
    ufs = tl.make_ufuncs(rules)
    types = tl.get_rules(rules).types
    was = _ufuncs.set_fastcall()
    try:
        for fast in (True, False):
            _ufuncs.set_fastcall(fast)
            for name in INT_DTYPES:
                if name not in types:
                    continue
                info = np.iinfo(name)
                x = np.array([0, 1], name)
                for v in (info.min - 1, info.max + 1):
                    m = None
                    try:
                        ufs["add"](x, v)
                    except tl.TypePromotionError:
                        continue         # (no Python int type, or an explicit-only rule set)
                    except OverflowError as e:
                        m = re.search(r"np\.(\w+)\(\.\.\.\)", str(e))
                        msg = str(e)
                    if m is None:
                        continue
                    assert m.group(1) in types, (rules, name, v, msg)
                    try:
                        got = ufs["add"](x, getattr(np, m.group(1))(v))
                    except (TypeError, OverflowError):
                        continue
                    assert [int(g) for g in got] == [v, v + 1], (rules, name, v, got)
    finally:
        _ufuncs.set_fastcall(was)


def test_python_int_in_a_loop_dtype_fixes():
    """Under dtype=/signature= a Python int takes the fixed loop type: one outside it raises an
    OverflowError naming the call, that type and the rule set (NumPy's own names neither), also
    where casting= refuses the other operand's cast; a unary op's int beyond int64 computes in
    the fixed float type (NumPy would make it an object array), as the binary ops do, and one
    into a sub-byte type is range-checked."""
    x = np.array([1, 2], np.int8)
    for call, v, t in ((lambda: tl.add(x, -1, dtype=np.uint8), -1, "uint8"),
                       (lambda: tl.add(x, 300, signature=(None, None, np.int8)), 300, "int8"),
                       (lambda: tl.add(x, 300, dtype=np.uint8, casting="no"), 300, "uint8"),
                       (lambda: tl.negative(2**64, dtype=np.uint64), 2**64, "uint64")):
        with pytest.raises(OverflowError) as e:
            call()
        msg = str(e.value)
        assert f"Python int {v})" in msg and f"does not fit {t}, the dtype the call's " \
            "dtype=/signature= fixes (rule set 'jax')" in msg, msg
    assert tl.add(x, 300, dtype=np.int16).tolist() == [301, 302]
    for t in (np.float64, np.float32, np.complex128):
        got = tl.sqrt(2**70, dtype=t)
        assert type(got) is t and got == np.sqrt(t(float(2**70))), (t, got)
    assert tl.negative(2**63, dtype=np.uint64) == np.negative(np.uint64(2**63))
    # a casting= stricter than same_kind judges the int as NumPy reads it (a uint64 below
    # 2**64, an object beyond): uint64 -> float64 is safe, an object cast is not
    assert tl.negative(2**63, dtype=np.float64, casting="safe") == \
        np.negative(2**63, dtype=np.float64, casting="safe")
    for casting in ("safe", "no", "equiv"):     # (NumPy's resolve_dtypes crashed under 'equiv')
        with pytest.raises(TypeError, match=rf"jax\.sqrt' input from dtype\('O'\) to "
                                            rf"dtype\('float64'\) with casting rule '{casting}'"):
            tl.sqrt(2**70, dtype=np.float64, casting=casting)
    # a unary op's int into a sub-byte type dtype= fixes is range-checked as a binary op's
    with pytest.raises(OverflowError, match=r"jax\.conjugate\(Python int 3\): .*does not fit "
                                            r"int1"):
        tl.conjugate(3, dtype=ml_dtypes.int1)
    with pytest.raises(TypeError, match="only within int64's range"):
        tl.sqrt(2**70, dtype=ml_dtypes.bfloat16)


@pytest.mark.parametrize("fast", [True, False], ids=["fastcall", "numpy-path"])
def test_python_int_beyond_int64_with_an_ml_dtypes_float_names_the_call(fast):
    """ml_dtypes converts Python ints only within int64 ("expected number, got int", naming
    nothing): with bfloat16 or float8 arrays such an int is a TypeError naming the call, the
    operands and the rule set, and the float(...) it suggests gives the dtype's own value."""
    import ml_dtypes
    was = _ufuncs.set_fastcall()
    _ufuncs.set_fastcall(fast)
    try:
        for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn):
            x = np.ones(4, t)
            for v in (2**63, -(2**63) - 1, 2**100):
                for call in (lambda: tl.add(x, v), lambda: tl.less(v, x[::2]),
                             lambda: tl.add(x, v, out=np.zeros_like(x), where=x > 0)):
                    with pytest.raises(TypeError) as e:
                        call()
                    msg = str(e.value)
                    assert f"Python int {str(v)[:12]}" in msg, msg
                    assert f"{np.dtype(t).name} array" in msg, msg
                    assert "int64's range" in msg and "rule set 'jax'" in msg, msg
                got = tl.add(x, float(v))
                want = (np.ones(4, np.float32) + np.float32(float(v))).astype(t)
                assert got.dtype == np.dtype(t) and got.tobytes() == want.tobytes()
            assert tl.add(x, 2**62).dtype == np.dtype(t)
    finally:
        _ufuncs.set_fastcall(was)


def test_strong_numpy_scalars_and_0d_arrays():
    a = np.arange(3, dtype=np.int8)
    assert tl.add(a, np.int64(1)).dtype == np.int64
    assert tl.add(a, np.array(1, np.int16)).dtype == np.int16
    assert tl.add(a, np.float32(1)).dtype == np.float32
    assert tl.add(np.float16(1), 1.0).dtype == np.float16
    # Python bool is bool, never weak
    assert tl.add(a, True).dtype == np.int8
    assert tl.add(np.ones(2, bool), True).dtype == bool


@pytest.mark.parametrize("bad", [
    np.array(["a", "b"]), np.array([1, 2], dtype=object), np.array([1, 2], dtype="M8[s]"),
    np.array([(1, 2)], dtype="i4,i4"), np.array([1, 2], dtype="m8[s]"),
])
def test_unsupported_dtypes_raise_clearly(bad):
    with pytest.raises(TypeError, match="typelattice"):
        tl.add(bad, np.ones(len(bad), np.int8))
    with pytest.raises(TypeError, match="typelattice"):
        tl.add(bad, 1)


def test_no_promotion_raises_type_promotion_error():
    import ml_dtypes
    x = np.ones(3, ml_dtypes.float8_e4m3fn)
    with pytest.raises(tl.TypePromotionError, match="jax") as info:
        tl.add(x, np.ones(3, np.float16))
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    assert "float8_e4m3fn" in str(info.value) and "float16" in str(info.value)


def test_pickle_and_docstrings():
    for name in ALL_OPS:
        uf = getattr(tl, name)
        assert pickle.loads(pickle.dumps(uf)) is uf
        assert uf.__doc__ and "jax" in uf.__doc__
    assert "int32" in tl.floor_divide.__doc__


def test_identity_attributes_match_numpy():
    for name in ["hypot", "logaddexp", "logaddexp2", "lcm", "add", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and",
                 "logical_or", "logical_xor", "maximum", "subtract", "gcd"]:
        assert getattr(tl, name).identity == getattr(np, name).identity, name


def test_names_pickle_and_foreign_array_libraries():
    """__name__ is '<rules>.<op>': dask maps multi-output ufuncs and .outer to its own NumPy-rule
    functions by name, so it must find none and refuse (TypeError) rather than silently use
    NumPy's promotion; single-output calls go through dask's elemwise with our semantics."""
    assert tl.add.__name__ == "jax.add" and tl.add.__module__ == "typelattice._ufuncs"
    for uf in (tl.add, tl.divmod, tl.true_divide, tl.mod):
        assert pickle.loads(pickle.dumps(uf)) is uf
    da = pytest.importorskip("dask.array")
    b = da.from_array(np.ones(4, bool), chunks=2)
    i8 = da.from_array(np.arange(4, dtype=np.int8), chunks=2)
    r = tl.floor_divide(b, b)              # JAX: int32 (NumPy would give int8)
    assert r.dtype == np.int32 and r.compute().dtype == np.int32
    assert tl.add(i8, 1).compute().dtype == np.int8
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.divmod(b, b)
    with pytest.raises(TypeError, match="NotImplemented"):
        tl.add.outer(i8, i8)


def test_pandas_keeps_typelattice_rules():
    pd = pytest.importorskip("pandas")
    s = pd.Series(np.arange(3, dtype=np.int8))
    assert tl.add(s, 1).dtype == np.int8
    assert tl.add(s, np.ones(3, np.uint8)).dtype == np.int16


def test_second_rule_set_gets_its_own_ufuncs():
    u32 = tl.make_ufuncs("jax32")
    assert u32["add"] is not tl.add and u32["add"].__name__ == "jax32.add"
    assert tl.make_ufuncs("jax32")["add"] is u32["add"]          # built once
    a = np.arange(3, dtype=np.int64)
    assert u32["add"](a, a).dtype == np.int32                   # x32 canonicalizes int64
    assert u32["add"](np.arange(3, dtype=np.int8), 1.0).dtype == np.float32
    assert u32["divide"](np.arange(3, dtype=np.int8), 2).dtype == np.float32
    assert tl.add(np.arange(3, dtype=np.int8), 1.0).dtype == np.float64
    assert pickle.loads(pickle.dumps(u32["multiply"])) is u32["multiply"]
    assert u32["add"].reduce(np.ones(3, np.int8)).dtype == np.int32


X32 = {"u64": "u32", "i64": "i32", "f64": "f32", "c128": "c64"}
X32_NAMES = {"uint64": "uint32", "int64": "int32", "float64": "float32",
             "complex128": "complex64"}


@pytest.mark.parametrize("name", ["add", "subtract", "divide", "floor_divide", "power",
                                  "bitwise_and", "left_shift", "gcd", "ldexp", "less",
                                  "logical_or", "arctan2", "hypot", "maximum"])
def test_jax32_ufuncs_are_x64_canonicalized(name):
    """jax_ops_rules.md: every x32 result equals the x64 result for the operands x32 really
    uses (64-bit arrays are their 32-bit siblings), with 64-bit results mapped to 32-bit."""
    uf = tl.make_ufuncs("jax32")[name]
    bad = []
    for a in KINDS:
        for b in KINDS:
            want = expected(name, X32.get(a, a), X32.get(b, b))
            x, y = operand(a), operand(b)
            try:
                with np.errstate(all="ignore"):
                    got = uf(x, y)
            except Exception as exc:  # noqa: BLE001
                if not (isinstance(want, type) and isinstance(exc, want)):
                    bad.append(f"{a}|{b}: want {want}, raised {exc!r}")
                continue
            got = got if isinstance(got, tuple) else (got,)
            names = tuple(np.asarray(g).dtype.name for g in got)
            if isinstance(want, type) or names != tuple(X32_NAMES.get(w, w) for w in want):
                bad.append(f"{a}|{b}: want {want}, got {names}")
    assert not bad, f"{len(bad)} cells differ:\n" + "\n".join(bad)


@pytest.mark.parametrize("call,exc", [
    (lambda u: u["bitwise_and"](np.ones(2, np.float32), 1), TypeError),
    (lambda u: u["gcd"](1.5, np.ones(2, np.int8)), ValueError),
    (lambda u: u["negative"](np.ones(2, bool)), TypeError),
    (lambda u: u["add"](np.ones(2), np.array(["a", "b"])), TypeError),
])
@pytest.mark.parametrize("rules", ["jax", "jax32"])
def test_domain_errors_name_the_rule_set(call, exc, rules):
    with pytest.raises(exc, match=f"rule set '{rules}'") as info:
        call(tl.make_ufuncs(rules))
    # and the ufunc by its own name: 'jax32.gcd', not the default rule set's 'jax.gcd'
    assert re.match(rf"{rules}\.[a-z_]+\b", str(info.value))


@pytest.mark.parametrize("call", [
    lambda u: u["add"](np.ones(2, "int4"), np.ones(2, np.float16)),
    lambda u: u["power"](np.ones(2, "int4"), np.ones(2, "int4")),
    lambda u: u["gcd"](np.ones(2, np.float32), 1),
])
def test_errors_name_the_ufunc_of_their_rule_set(call):
    import ml_dtypes  # noqa: F401  (registers 'int4')
    with pytest.raises((TypeError, ValueError)) as info:
        call(tl.make_ufuncs("jax32"))
    msg = str(info.value)
    assert "jax32." in msg and "typelattice." not in msg and "jax." not in msg.replace("jax32.", "")


@pytest.mark.parametrize("rules,table", [
    ("numpy", "jax_doc_numpy.json"), ("torch", "jax_doc_pytorch.json"),
    ("tensorflow", "jax_doc_tensorflow.json"), ("jax_lax", "jax_doc_jax_lax.json"),
    ("jax", "jax_doc_jax_numpy.json")])
def test_types_that_do_not_promote_with_themselves_have_no_binary_ops(rules, table):
    """A '-' on the reference table's diagonal (bfloat16 under NumPy, uint16 under PyTorch, bool
    under TensorFlow and jax.lax): op(T array, T array) raises TypePromotionError for every
    binary ufunc but the logical ops (truth values of anything) and ldexp (no promotion), and
    add/multiply/maximum.reduce of a T array too; where the cell is T, add gives T."""
    from conftest import reference_cells
    U = tl.make_ufuncs(rules)
    diag = {a: r for a, b, r in reference_cells(table) if a == b and a[-1:] != "*"}
    assert diag
    for t, r in diag.items():
        x = np.ones(3, dtype=tl.get_rules(rules).dtypes[tl.get_rules(rules).index[t]])
        if r is not None:
            assert r == t and U["add"](x, x).dtype == x.dtype, (rules, t)
            continue
        for name, uf in U.items():
            if uf.nin == 2 and name.startswith("logical_"):
                # truth values, through typelattice's call path first (it raised there, then
                # NumPy's path found the error loop it had left; outer went through)
                want = getattr(np, name)(x, x)
                assert uf(x, x).tolist() == want.tolist(), (rules, t, name)
                assert uf.outer(x, x).tolist() == getattr(np, name).outer(x, x).tolist()
                continue
            if uf.nin != 2 or name == "ldexp":
                continue
            with pytest.raises(tl.TypePromotionError, match="even with itself"):
                uf(x, x)
            if name in ("add", "multiply", "maximum"):
                # nor a reduction, where NumPy's sum of bools in the default int would fold
                with pytest.raises(tl.TypePromotionError, match="even with itself"):
                    uf.reduce(x)


@pytest.mark.parametrize("rules,table", [
    ("tensorflow", "jax_doc_tensorflow.json"), ("jax_lax", "jax_doc_jax_lax.json")])
def test_reduction_with_dtype_casts_where_the_types_do_not_join(rules, table):
    """add.reduce(bool array, dtype=t), where the reference table has no (t, bool) cell: dtype=
    of a reduction is an explicit request to compute in t, so the bools are cast to t and
    summed there, as NumPy's and jnp.sum's dtype= do (reference: NumPy's add.reduce with the
    same dtype=). The plain call with dtype=, which promotes its operands, keeps the rule set's
    TypePromotionError naming both types."""
    from conftest import reference_cells
    U = tl.make_ufuncs(rules)
    cells = {(a, b): r for a, b, r in reference_cells(table)}
    x = np.array([True, False, True])
    for t in ("int8", "int32", "float32"):
        assert cells[(t, "bool")] is None
        for method in ("reduce", "accumulate"):
            got = getattr(U["add"], method)(x, dtype=t)
            want = getattr(np.add, method)(x, dtype=t)
            assert got.dtype == want.dtype == t and np.array_equal(got, want), (t, method)
        with pytest.raises(tl.TypePromotionError, match=rf"{t}.*bool.*'{rules}'"):
            U["add"](x.astype(t), x, dtype=t)


@pytest.mark.parametrize("rules,table", [
    ("torch", "jax_doc_pytorch.json"), ("numpy", "jax_doc_numpy.json"),
    ("jax", "jax_doc_jax_numpy.json")])
def test_sum_of_small_unsigned_ints(rules, table):
    """add/multiply.reduce of uint8: in the unsigned default where the reference table gives it
    arithmetic (a uint64 diagonal cell: NumPy, jnp.sum), else in the signed default (torch's
    table has no uint64 + uint64: torch.sum of uint8 is int64); the sum is NumPy's of the cast
    array."""
    from conftest import reference_cells
    cells = {(a, b): c for a, b, c in reference_cells(table)}
    want = "uint64" if cells[("uint64", "uint64")] == "uint64" else "int64"
    U = tl.make_ufuncs(rules)
    x = np.array([200, 100, 250], np.uint8)
    for name in ("add", "multiply"):
        got = U[name].reduce(x)
        assert got.dtype == want and got == getattr(np, name).reduce(x.astype(want)), (name, got)


@pytest.mark.parametrize("rules", ["anvil", "max", "kernel_float"])
def test_sums_of_bools_and_small_ints_in_rule_sets_without_a_weak_int(rules):
    """Sums widen bools and small ints to the type a Python int takes alone (anvil: int32), or
    NumPy's int64 where the rule set has no Python int (max, kernel_float), as jnp.sum widens to
    the default int: a sum of 300 True is 300 (it was True, a logical or), of 200 int8 ones 200
    (it wrapped to -56). Values: NumPy's sum of the cast array."""
    try:
        want = tl.result_type(1, rules=rules)
    except tl.TypePromotionError:
        want = np.dtype("int64")
    U = tl.make_ufuncs(rules)
    for x in (np.ones(300, bool), np.ones(200, np.int8)):
        got = U["add"].reduce(x)
        assert got.dtype == want and got == np.add.reduce(x.astype(want)), (rules, x.dtype, got)


@pytest.mark.parametrize("rules", ["tensorflow", "jax", "jax32", "numpy"])
def test_sum_of_ints_never_narrows(rules):
    """add/multiply.reduce widen small ints to the rule set's default int, never narrow: under
    tensorflow (default int32) an int64 sum stays int64, its join with itself (reference table)."""
    from conftest import reference_cells
    U = tl.make_ufuncs(rules)
    r = tl.get_rules(rules)
    for t in ("int64", "uint64"):
        if t not in r.index or r.join_names(t, t) != t:
            continue
        x = np.array([2**40, 1], dtype=t)
        got = U["add"].reduce(x)
        assert got.dtype.itemsize >= 8 and int(got) == 2**40 + 1, (rules, t)
    if rules == "tensorflow":
        cells = {(a, b): c for a, b, c in reference_cells("jax_doc_tensorflow.json")}
        assert cells[("int64", "int64")] == "int64"
        assert U["add"].reduce(np.array([2**40, 1], np.int64)).dtype == np.int64
        assert U["add"].reduce(np.array([3, 1], np.int8)).dtype == np.int32   # the default int


def test_an_operand_that_declines_every_ufunc_gets_numpys_type_error():
    """An operand whose __array_ufunc__ returns NotImplemented (units libraries decline foreign
    ufuncs so) gets NumPy's TypeError, as from np.add; the call recursed until RecursionError."""
    class Declines:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return NotImplemented
    calls = [(tl.add, (np.int8(1), Declines()), {}), (tl.sqrt, (Declines(),), {}),
             (tl.add, (np.ones(2), Declines()), {"dtype": np.float32}),
             (tl.make_ufuncs("jax32")["add"], (np.ones(2), Declines()), {})]
    for uf, args, kwargs in calls:
        ref = getattr(np, uf.__name__.split(".")[1])
        with pytest.raises(TypeError, match="returned NotImplemented") as want:
            ref(*args, **kwargs)
        with pytest.raises(type(want.value), match="returned NotImplemented"):
            uf(*args, **kwargs)


@pytest.mark.parametrize("rules", ["jax", "torch", "numpy", "tensorflow"])
def test_reduce_initial_outside_the_loop_type_names_the_call(rules):
    """An integer initial= outside the reduction's integer loop type is an OverflowError naming
    the call, the loop type and the rule set (NumPy's said only "Python integer -1 out of
    bounds for uint8"); one inside it gives NumPy's value."""
    uf = tl.make_ufuncs(rules)["maximum"]
    for name, bad, good in (("uint8", -1, 255), ("int8", 128, -128), ("int32", 2**31, -5)):
        x = np.array([1, 7, 3], name)
        for call in (lambda: uf.reduce(x, initial=bad), lambda: uf.reduce(x, initial=bad),
                     lambda: uf.reduce(x, 0, None, None, False, bad),
                     lambda: uf.reduce(x, initial=np.int64(bad)),     # (NumPy's casts it)
                     lambda: uf.reduce(x, initial=np.array(bad)),     # (and a 0-d array)
                     lambda: uf.reduce(x, initial=bad, out=np.empty((), name))):
            with pytest.raises(OverflowError, match=rf"{rules}\.maximum\.reduce\({name} "
                                                    rf"array, initial={bad}\): initial= does "
                                                    rf"not fit {name}.*rule set '{rules}'"):
                call()
        got = uf.reduce(x, initial=good)
        want = np.maximum.reduce(x, initial=good)
        assert got.dtype == want.dtype and got == want, (rules, name)


@pytest.mark.parametrize("rules", ["jax", "torch"])
def test_reduce_float_initial_outside_the_loop_type_names_the_call(rules):
    """A float initial= outside the reduction's integer loop type, which NumPy refuses with an
    OverflowError naming nothing ("Python int too large to convert to C long", "Python integer
    -1000 out of bounds for int8", ml_dtypes' "out of range value"): the error names the call,
    the float, the loop type and the rule set. One inside it is truncated, as NumPy's is."""
    uf = tl.make_ufuncs(rules)["maximum"]
    int4 = np.dtype(ml_dtypes.int4)
    for dt, bad in ((np.dtype(np.int8), -1e3), (np.dtype(np.int8), 1e30),
                    (np.dtype(np.uint8), float("inf")), (int4, 100.0)):
        if dt == int4 and rules == "torch":
            continue            # (not a type of torch's rule set)
        x = np.array([1, 7, 3], dt)
        if dt != int4:          # (NumPy refuses it too)
            with pytest.raises(OverflowError):
                np.maximum.reduce(x, initial=bad)
        for call in (lambda: uf.reduce(x, initial=bad),
                     lambda: uf.reduce(x[None], axis=1, initial=bad, out=np.zeros(1, dt))):
            with pytest.raises(OverflowError, match=rf"{rules}\.maximum\.reduce\({dt} array, "
                                                    rf"initial={re.escape(str(bad))}\): "
                                                    rf"initial= does not fit "
                                                    rf"{dt}.*rule set '{rules}'\)$"):
                call()
    x = np.array([1, 7, 3], np.int8)
    got, want = uf.reduce(x, initial=9.7), np.maximum.reduce(x, initial=9.7)
    assert got.dtype == want.dtype and got == want == 9
