"""Casts into ml_dtypes' types that leave the kind: ml_dtypes registers complex -> its floats
and float -> its sub-byte ints same_kind (NumPy ranks their kind, 'V', above every other), so
NumPy alone would make them silently into out=/dtype=. typelattice judges them as NumPy judges
its own types' casts (np.can_cast of a NumPy type of the same kind is the reference): refused
under casting='same_kind', made with NumPy's ComplexWarning where the casting is unsafe."""
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl

# ml_dtypes' types by the kind of what they hold, with the NumPy type of that kind
_FLOATS = [n for n in ("bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
                       "float8_e5m2", "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3",
                       "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "float8_e8m0fnu")
           if hasattr(ml_dtypes, n)]
_INTS = [n for n in ("int2", "int4") if hasattr(ml_dtypes, n)]
_UINTS = [n for n in ("uint2", "uint4") if hasattr(ml_dtypes, n)]
_ANALOG = dict([(n, np.float32) for n in _FLOATS] + [(n, np.int8) for n in _INTS]
               + [(n, np.uint8) for n in _UINTS])
_SOURCES = [np.array([1 + 2j, 2 - 1j]), np.array([1.5, 2.0]), np.array([1, 2], np.int8),
            np.array([1, 0], np.uint8)]


def _casts(src, name):
    """NumPy's same_kind verdict on a cast of src to its own type of name's kind"""
    return np.can_cast(src.dtype, _ANALOG[name], "same_kind")


@pytest.mark.parametrize("name", sorted(_ANALOG))
@pytest.mark.parametrize("src", _SOURCES, ids=lambda a: a.dtype.name)
def test_out_and_dtype_judged_by_kind(name, src):
    t = np.dtype(getattr(ml_dtypes, name))
    before = np.array([1, 1], np.float32).astype(t)
    out = before.copy()
    if _casts(src, name):
        # the loop computes in src's type, cast into out= as ml_dtypes casts
        tl.add(src, src, out=out)
        np.testing.assert_array_equal(out.view(np.uint8), np.add(src, src).astype(t)
                                      .view(np.uint8))
        return
    with pytest.raises(TypeError, match=rf"jax\.add' output from dtype\('{src.dtype}'\) to "
                                        rf"dtype\({name}\) with casting rule 'same_kind'"):
        tl.add(src, src, out=out)
    assert out.view(np.uint8).tolist() == before.view(np.uint8).tolist()      # untouched
    with pytest.raises(TypeError, match=rf"input 0 from dtype\('{src.dtype}'\) to "
                                        rf"dtype\({name}\)"):
        tl.add(src, src, dtype=t)
    with pytest.raises(TypeError, match="same_kind"):
        tl.add(src, src, signature=(t, t, None))
    with pytest.raises(TypeError, match="same_kind"):
        tl.add.outer(src, src, out=np.zeros((2, 2), t))
    # casting='unsafe' makes the cast, as NumPy's own, warning where it drops imaginary parts
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        tl.add(src, src, out=out, casting="unsafe")
    assert [w.category for w in seen] == \
        ([np.exceptions.ComplexWarning] if src.dtype.kind == "c" else [])
    np.testing.assert_array_equal(out.view(np.uint8), np.add(src, src).astype(t)
                                  .view(np.uint8))


@pytest.mark.parametrize("name", ["bfloat16", "int4"])
def test_python_scalars_in_a_fixed_ml_dtypes_loop(name):
    t = np.dtype(getattr(ml_dtypes, name))
    x = np.array([1, 2]).astype(t)
    # a Python int is weak: its value is checked, not its kind
    np.testing.assert_array_equal(tl.add(x, 3, dtype=t), (np.array([1, 2]) + 3).astype(t))
    if name == "bfloat16":
        with pytest.raises(TypeError, match=r"input 1 from dtype\('complex128'\)"):
            tl.add(x, 1j, dtype=t)
        with pytest.raises(TypeError, match=r"jax\.sqrt' input from dtype\('complex128'\)"):
            tl.sqrt(np.array([1j, 4j]), dtype=t)
    else:       # (jax joins int4 with no float: the promotion error comes first)
        for v in (1.5, 1j):
            with pytest.raises(TypeError, match=r"\('int4', '(float64|complex128)'\) have no"):
                tl.add(x, v, dtype=t)


def test_reductions_and_at_warn_of_dropped_imaginary_parts():
    c = np.array([1 + 2j, 3 - 4j, 0.5 + 1j])
    bf16 = np.dtype(ml_dtypes.bfloat16)
    # (NumPy's reduce-likes and at cast unsafely, as np.add.reduce(c, dtype=float32) does
    # with its ComplexWarning)
    with pytest.warns(np.exceptions.ComplexWarning):
        np.add.reduce(c, dtype=np.float32)
    calls = [
        (lambda: tl.add.reduce(c, dtype=bf16), np.add.reduce(c.real.astype(bf16))),
        (lambda: tl.add.reduce(c, 0, bf16), np.add.reduce(c.real.astype(bf16))),
        (lambda: tl.add.accumulate(c, dtype=bf16), np.add.accumulate(c.real.astype(bf16))),
        (lambda: tl.add.reduceat(c, [0, 2], dtype=bf16),
         np.add.reduceat(c.real.astype(bf16), [0, 2])),
    ]
    for call, want in calls:
        with pytest.warns(np.exceptions.ComplexWarning, match="jax.add"):
            got = call()
        assert got.dtype == bf16
        np.testing.assert_array_equal(np.asarray(got).astype(np.float32),
                                      np.asarray(want).astype(np.float32))
    out = np.zeros((), bf16)
    with pytest.warns(np.exceptions.ComplexWarning):
        tl.add.reduce(c, out=out)
    assert float(out) == float(np.add.reduce(c).real.astype(bf16))
    a = np.zeros(3, bf16)
    for v in (2.5j + 1, np.array([2.5j + 1])):
        with pytest.warns(np.exceptions.ComplexWarning, match=r"jax\.add\.at"):
            tl.add.at(a, [0], v)
    assert a.astype(np.float32).tolist() == [2, 0, 0]
    # real values and real results: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.add.at(a, [1], 1.5)
        tl.add.reduce(np.array([1.5, 2.0]), dtype=bf16)
        tl.add.reduce(c, dtype=np.complex64)


def test_warnings_as_errors_leave_the_array_untouched():
    a = np.zeros(3, ml_dtypes.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(np.exceptions.ComplexWarning):
            tl.add.at(a, [0], 1j + 1)
        out = np.full(2, 7, ml_dtypes.bfloat16)
        with pytest.raises(np.exceptions.ComplexWarning):
            tl.add(np.array([1j, 2j]), 1, out=out, casting="unsafe")
    assert a.tolist() == [0, 0, 0] and out.astype(np.float32).tolist() == [7, 7]


def _refused(call, what):
    with pytest.raises(TypeError, match=what):
        call()


def test_every_spelling_of_a_fixed_type_is_judged():
    """dtype= as a DType class or a NumPy scalar, signature='s alias sig=, 'safe' casting (which
    ml_dtypes registers float8 -> int4 under), weak operands, a unary op's Python scalar, jax32's
    canonical operands: each cast that leaves the kind is refused as NumPy refuses its own
    types' (found by fuzzing round 35)."""
    c = np.array([1 + 2j, 3 - 1j])
    bf16 = np.dtype(ml_dtypes.bfloat16)
    bad = r"from dtype\('complex128'\) to dtype\(bfloat16\)"
    _refused(lambda: tl.add(c, c, dtype=type(bf16)), bad)
    _refused(lambda: tl.add(c, c, dtype=ml_dtypes.bfloat16(0)), bad)
    _refused(lambda: tl.add(c, c, sig=(None, None, bf16)), bad)
    _refused(lambda: tl.copysign(0, np.uint16([1, 2]), dtype=np.dtypes.Float64DType,
                                 out=np.zeros(2, ml_dtypes.uint4)), r"float64'\) to dtype\(uint4")
    # (sig= names the loop as signature= does: uint8 into uint4 stays the same kind)
    got = tl.add(np.array([True, False]), 2, out=np.zeros(2, ml_dtypes.uint4),
                 sig=(np.uint8,) * 3)
    assert got.astype(np.int64).tolist() == [3, 2]
    _refused(lambda: tl.add(tl.weak(np.int8([1, 2])), c, dtype=bf16), "bfloat16")
    with pytest.warns(np.exceptions.ComplexWarning):
        tl.negative(tl.weak(c), dtype=bf16, casting="unsafe")
    _refused(lambda: tl.make_ufuncs("kernel_float")["rad2deg"](
        2.0, dtype=bf16, out=np.zeros(2, ml_dtypes.int4)), r"dtype\(bfloat16\) to dtype\(int4\)")
    _refused(lambda: tl.make_ufuncs("array_api")["sign"](
        3, dtype=np.int32, out=np.zeros(2, ml_dtypes.uint4)), r"int32'\) to dtype\(uint4\)")
    jax32 = tl.make_ufuncs("jax32")
    _refused(lambda: jax32["fmax"](np.int16([1, 2]), c, signature=(None, None, bf16)),
             r"complex64'\) to dtype\(bfloat16\)")
    _refused(lambda: jax32["multiply"](np.float32([1.5, 2.5]), np.array([1.5, 2.5]),
                                       dtype=bf16, out=np.zeros(2, ml_dtypes.int4)),
             r"dtype\(bfloat16\) to dtype\(int4\)")
    x8 = np.array([1.5, 2.5]).astype(ml_dtypes.float8_e4m3fn)
    assert not np.can_cast(np.float32, np.int8, "safe")
    _refused(lambda: tl.add(x8, x8, out=np.zeros(2, ml_dtypes.int4), casting="safe"),
             "casting rule 'safe'")
    # the refusal of the call a weak array's __array_ufunc__ makes stands, not a promotion error
    _refused(lambda: tl.make_ufuncs("tensorflow")["divmod"](
        2, tl.weak(np.array(3)), out=(np.zeros((), np.float16), np.zeros((), ml_dtypes.uint4))),
        r"int32'\) to dtype\(uint4\)")


def test_a_complex_initial_into_an_ml_dtypes_reduction_warns():
    x = np.ones(2, ml_dtypes.bfloat16)
    with pytest.warns(np.exceptions.ComplexWarning):
        np.add.reduce(np.ones(2, np.float32), initial=np.complex64(1 + 5j))   # NumPy's own
    for initial in (np.complex64(1 + 5j), np.array(1 + 5j)):
        with pytest.warns(np.exceptions.ComplexWarning, match=r"jax\.add\.reduce"):
            got = tl.add.reduce(x, initial=initial)
        assert float(got) == 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(tl.add.reduce(x, initial=1.0, dtype=ml_dtypes.bfloat16)) == 3.0


@pytest.mark.parametrize("dt", ["bfloat16", "float32", "float8_e4m3fn", "int4", "int8"])
def test_a_python_complex_initial_into_a_real_reduction_raises_naming_the_call(dt):
    """NumPy's setitem refuses a Python complex initial= for a real loop (a TypeError naming
    no call: "expected number, got complex" for ml_dtypes' types, after typelattice's
    ComplexWarning of a cast never made); it raises naming the call, the loop's dtype and the
    rule set, with no warning and out= untouched. Reference: NumPy's reduce on the same
    arguments raises a TypeError too. A NumPy complex scalar is cast, warning once (int4 sums
    in int64: the warning was given twice, once naming int4)."""
    x = np.array([1, 2], getattr(ml_dtypes, dt, None) or np.dtype(dt))
    loop = tl.add.reduce(x).dtype           # (int4 and int8 sum in int64, as jnp.sum)
    with pytest.raises(TypeError):
        np.add.reduce(x, initial=1 + 2j)
    # (out= of the loop's dtype, and of one with no join with the array's: the reduction runs
    # in the array's loop and casts into it; the error was NumPy's, naming no call)
    for out in (np.full((), 7, loop), np.full((), 7, np.uint8), np.full((), False)):
        before = out.copy()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(TypeError, match=rf"jax\.add\.reduce\({dt} array, initial=\(1\+2j"
                                                rf"\)\): .*into {loop.name}.*rule set 'jax'"):
                tl.add.reduce(x, initial=1 + 2j, out=out)
        assert out == before
    assert tl.add.reduce(x, initial=1 + 2j, dtype=np.complex64) == \
        np.add.reduce(x.astype(np.complex64), initial=1 + 2j)
    # (bool takes it, as NumPy's)
    assert tl.logical_or.reduce(x, initial=1j, dtype=bool) == \
        np.logical_or.reduce(x.astype(bool), initial=1j)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = tl.add.reduce(x, initial=np.complex128(1 + 2j))
    assert [w.category for w in seen] == [np.exceptions.ComplexWarning]
    assert got.dtype == loop and got == np.add.reduce(x.astype(loop), initial=1)


@pytest.mark.skipif(not hasattr(ml_dtypes, "bcomplex32"), reason="ml_dtypes without bcomplex32")
def test_complex_ml_dtypes_hold_every_kind():
    t = np.dtype(ml_dtypes.bcomplex32)
    assert np.can_cast(np.uint8, np.complex64, "same_kind")
    u = np.array([1, 2], np.uint8)
    got = tl.add(u, u, out=np.zeros(2, t))
    assert got.tobytes() == np.add(u, u).astype(t).tobytes()
    c = np.array([1 + 2j, 3 - 1j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = tl.add(c, c, out=np.zeros(2, t), casting="unsafe")
    assert got.tobytes() == np.add(c, c).astype(t).tobytes()


def test_round_36_spellings_and_scalars():
    """Fuzzing round 36's findings on the cast check: a signature string, a complex initial=
    beside a NumPy array, a unary op's Python int (NumPy makes it an int64, whose cast to uint4
    wraps), a Python int into a sub-byte loop dtype= fixes (ml_dtypes' setitem wraps it),
    casting='no' (NumPy does not judge a Python float there), a weak array's huge int."""
    bf16, int4, uint4 = (np.dtype(getattr(ml_dtypes, n)) for n in ("bfloat16", "int4", "uint4"))
    x = np.array([-4.0, 9.0])
    out = np.full(2, 7, bf16)
    _refused(lambda: tl.sqrt(x, out=out, signature="D->D"),
             r"output from dtype\('complex128'\) to dtype\(bfloat16\)")
    assert out.astype(np.float32).tolist() == [7, 7]
    with pytest.warns(np.exceptions.ComplexWarning):
        tl.sqrt(x, out=out, signature="D->D", casting="unsafe")
    with pytest.warns(np.exceptions.ComplexWarning):
        np.add.reduce(np.ones(3, np.float32), dtype=np.float16, initial=np.complex64(1 + 5j))
    with pytest.warns(np.exceptions.ComplexWarning, match=r"jax\.add\.reduce"):
        assert float(tl.add.reduce(np.ones(3, np.float32), dtype=bf16,
                                   initial=np.complex64(1 + 5j))) == 4.0
    # (the initial= goes into the bool loop dtype= names: no warning, as NumPy's)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = tl.logical_xor.reduce(np.array([1, 0], ml_dtypes.int2), dtype=bool,
                                    out=np.zeros((), ml_dtypes.int2), initial=1j)
    assert int(got) == 0
    _refused(lambda: np.positive(-3, dtype=np.uint8), r"int64'\) to dtype\('uint8'\)")
    _refused(lambda: tl.positive(3, dtype=uint4), r"int64'\) to dtype\(uint4\)")
    with pytest.raises(OverflowError, match=r"Python int -3\): the Python int does not fit uint4"):
        tl.positive(-3, dtype=uint4)
    for call, v, t in ((lambda: tl.add(np.int16([3, 5]), 100, dtype=int4), 100, "int4"),
                       (lambda: tl.add(2**40, True, signature=(int4, None, None)), 2**40, "int4")):
        with pytest.raises(OverflowError, match=rf"Python int {v}\b.*does not fit {t}, the dtype "
                                                r"the call's dtype=/signature= fixes"):
            call()
    assert tl.add(np.int16([3, 5]), 4, dtype=int4).astype(np.int8).tolist() == [7, -7]
    _refused(lambda: tl.left_shift(2, 1.5, signature=(None, int4, None), casting="no"),
             r"input 1 from dtype\('float64'\) to dtype\(int4\) with casting rule 'no'")
    with pytest.raises(OverflowError, match=r"jax\.maximum\(.*Python int 9223372036854775808\)"):
        tl.maximum(tl.weak(np.array([1, 2])), 2**63)
    # a DType class as a reduction's dtype=, as NumPy's reduce takes it
    for method in ("reduce", "accumulate"):
        got = getattr(tl.add, method)(np.ones(3), dtype=np.dtypes.Int32DType)
        want = getattr(np.add, method)(np.ones(3), dtype=np.int32)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_python_int_under_casting_equiv_names_its_loop_type():
    """NumPy refuses a Python int's conversion under casting='equiv' ("cannot cast Python int to
    int8 under the casting rule 'equiv'"; for an int4 loop it names timedelta64): the error names
    the call, the operand, the loop's own type and the rule set; out= is left untouched."""
    with pytest.raises(TypeError, match="cannot cast Python int"):
        np.add(np.array([1, 0], np.int8), 1, casting="equiv")
    for t in ("int8", "int4", "uint2"):
        dt = np.dtype(getattr(ml_dtypes, t, None) or t)
        x = np.array([1, 0], dt)
        out = np.full(2, 1, dt)
        with pytest.raises(TypeError, match=rf"jax\.add\({t} array, Python int 1\): "
                                            rf"casting='equiv' allows no conversion of operand 1, "
                                            rf"the Python int 1, to the loop's {t} \(rule set "
                                            r"'jax'\)"):
            tl.add(x, 1, out=out, casting="equiv")
        assert out.astype(np.int8).tolist() == [1, 1]


def test_an_array_without_a_cast_to_the_fixed_loop_is_named_before_the_int():
    """dtype= naming a sub-byte loop that an array operand has no cast to (int4 -> uint2): the
    refusal of that cast, as an in-range int gets, not NumPy's error of the int it converted
    first ("Python integer -1 out of bounds for uint8", a type the call does not name)."""
    i4 = np.array([1, 2, -3], ml_dtypes.int4)
    u2 = ml_dtypes.uint2
    for casting in ("same_kind", "unsafe"):
        want = r"input 1 from dtype\(int4\) to dtype\(uint2\) with casting rule '%s'" % casting
        _refused(lambda: tl.remainder(5, i4, dtype=u2, casting=casting), want)
        _refused(lambda: tl.remainder(-1, i4, dtype=u2, casting=casting), want)


def test_a_python_float_outside_the_fixed_int_type():
    """A Python float under casting='unsafe' into an integer loop signature= fixes: NumPy
    truncates one inside the type's range (as the reference computes) and raises a bare
    OverflowError for one outside ("Python integer 300 out of bounds for int8", or ml_dtypes'
    "out of range value cannot be converted to int4"): the error names the call, the float,
    the type's range and the rule set."""
    int4 = np.dtype(ml_dtypes.int4)
    for t, v in ((np.dtype(np.int8), 300.0), (np.dtype(np.int8), -129.0),
                 (np.dtype(np.uint8), -1.0), (np.dtype(np.int8), float("inf")), (int4, 100.0)):
        x = np.array([1, 2], t)
        if t != int4:           # (NumPy refuses it too, barely)
            with pytest.raises(OverflowError):
                np.add(x, v, signature=(t, t, t), casting="unsafe")
        lo, hi = (-8, 7) if t == int4 else (np.iinfo(t).min, np.iinfo(t).max)
        with pytest.raises(OverflowError, match=rf"jax\.add\({t} array, Python float {v!r}\): "
                                                rf"the Python float {v!r} is outside {t}'s range "
                                                rf"\[{lo}, {hi}\].*\(rule set 'jax'\)"):
            tl.add(x, v, signature=(t, t, t), casting="unsafe")
    for t, v in ((np.int8, 127.5), (np.uint8, -0.5), (np.int16, -3.9)):
        x = np.array([1, 2], t)
        got = tl.add(x, v, signature=(t, t, t), casting="unsafe")
        want = np.add(x, v, signature=(t, t, t), casting="unsafe")
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
