"""jax32 reads a 64-bit operand as its 32-bit sibling (JAX with 64-bit off converts the array on
entry: int64 -> int32 wraps, float64 -> float32 rounds), on every path of every op: the fused and
blocked mixed loops, the same-dtype loop NumPy casts into, the unary functions, ldexp's exponent.

Reference: the same ufunc on the operand converted by NumPy's astype to the canonical type, and,
for a few ops, NumPy's own ufunc on the operands cast to the promoted dtype.
"""
import subprocess
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import typelattice as tl
from typelattice import _ufuncs

U = tl.make_ufuncs("jax32")
CANON = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}

# values whose 64-bit and 32-bit readings differ (int: past 32 bits; float: past float32)
VALUES = {
    "int64": [2**33 + 5, -(2**31) - 7, 2**40 + 2**31 + 3, 7, 2**32],
    "uint64": [2**33 + 5, 2**63 + 9, 2**32 - 1, 7, 2**32],
    "float64": [1e-50, 1.0 + 2.0**-40, 3e38 * 1.5, 7.0, -2.5],
    "complex128": [1e-50 + 1j, (1.0 + 2.0**-40) * 1j, 7.0 + 0j, -2.5 - 1e-60j, 1 + 2j],
}


def _partners():
    r = tl.get_rules("jax32")
    out = []
    for t, d in zip(r.types, r.dtypes):
        if d is not None and d.kind in "biufcV" and t not in CANON:
            out.append(np.dtype(d))
    return out


PARTNERS = _partners()
BINARY = sorted(n for n in tl.UFUNC_NAMES if U[n].nin == 2)
UNARY = sorted(n for n in tl.UFUNC_NAMES if U[n].nin == 1)


def _values(d, n=5):
    if d.kind == "b":
        return np.array([True, False, True, True, False][:n])
    base = np.array([3, 1, 2, 5, 4][:n])
    return base.astype(d)


def _call(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                r = f(*args)
            except (TypeError, ValueError, OverflowError, tl.TypePromotionError) as exc:
                return type(exc)
    return r if isinstance(r, tuple) else (r,)


def _same(got, want, what):
    if isinstance(want, type):
        assert got is want, what
        return
    assert not isinstance(got, type), f"{what}: raised {got.__name__}"
    for g, w in zip(got, want):
        assert g.dtype == w.dtype, what
        gb, wb = np.asarray(g), np.asarray(w)
        if g.dtype.kind in "fcV":
            assert gb.tobytes() == wb.tobytes() or np.array_equal(gb, wb, equal_nan=True), \
                f"{what}: {gb} != {wb}"
        else:
            np.testing.assert_array_equal(gb, wb, err_msg=what)


@pytest.mark.parametrize("src", list(VALUES))
@pytest.mark.parametrize("op", BINARY)
def test_binary_reads_the_canonical_operand(op, src):
    f = U[op]
    x = np.array(VALUES[src], dtype=src)
    with np.errstate(over="ignore"):
        xc = x.astype(CANON[src])
    for d in PARTNERS:
        y = _values(d)
        _same(_call(f, x, y), _call(f, xc, y), f"{op}({src}, {d})")
        if op != "ldexp":       # its exponent stays whole: test_ldexp_exponent_is_whole
            _same(_call(f, y, x), _call(f, y, xc), f"{op}({d}, {src})")
    for s in (3, 2.5, 1j):
        _same(_call(f, x, s), _call(f, xc, s), f"{op}({src}, {s!r})")


@pytest.mark.parametrize("src", list(VALUES))
@pytest.mark.parametrize("op", UNARY)
def test_unary_reads_the_canonical_operand(op, src):
    x = np.array(VALUES[src], dtype=src)
    with np.errstate(over="ignore"):
        xc = x.astype(CANON[src])
    _same(_call(U[op], x), _call(U[op], xc), f"{op}({src})")


@pytest.mark.parametrize("fast", [True, False])
def test_against_numpy_on_cast_operands(fast):
    """The JAX reading of int64 2**33 + 5 is 5: NumPy's ufunc on the wrapped value, cast."""
    x = np.array([2**33 + 5, -(2**31) - 7, 12], dtype=np.int64)
    w = x.astype(np.int32)
    before = _ufuncs.set_fastcall()
    try:
        _ufuncs.set_fastcall(fast)
        c = np.array([1 + 2j, 3, -1j], np.complex64)
        got = U["add"](x, c)
        assert got.dtype == np.complex64
        np.testing.assert_array_equal(got, np.add(w.astype(np.complex64), c))
        got = U["multiply"](c[1], x)
        np.testing.assert_array_equal(got, np.multiply(c[1], w.astype(np.complex64)))
        got = U["sin"](x)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, U["sin"](w.astype(np.float32)))
        f = np.float32(1.5)
        got = U["nextafter"](x, f)
        np.testing.assert_array_equal(got, np.nextafter(w.astype(np.float32), f))
        q, r = U["divmod"](x, f)
        np.testing.assert_array_equal(q, np.floor_divide(w.astype(np.float32), f))
        np.testing.assert_array_equal(r, np.remainder(w.astype(np.float32), f))
        h = np.array([1, 2, 3], np.float16)
        with np.errstate(over="ignore"):
            got = U["maximum"](x, h)
            np.testing.assert_array_equal(got, np.maximum(w.astype(np.float16), h))
        assert got.dtype == np.float16
        got = U["add"](x, np.array([1, 2, 3], ml_dtypes.bfloat16))
        want = (w.astype(ml_dtypes.bfloat16).astype(np.float32) + np.float32([1, 2, 3])).astype(
            ml_dtypes.bfloat16)
        assert got.dtype == ml_dtypes.bfloat16
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
        got = U["logical_and"](x, np.array([True, True, True]))
        np.testing.assert_array_equal(got, w != 0)
        got = U["ldexp"](np.array([2**33 + 5], np.int64), np.int32(1))
        assert got.tolist() == [10.0]
    finally:
        _ufuncs.set_fastcall(before)


def test_canon_loop_methods_and_layouts():
    """Strided, broadcast, blocks past the loop's buffer, out=, where=, outer, at. (complex64
    first: int64 first takes the blocked (int32, complex64) loop after NumPy's int64 -> int32
    cast, whose wrap is jax32's reading.)"""
    rng = np.random.default_rng(5)
    x = rng.integers(-(2**40), 2**40, size=2000, dtype=np.int64)
    w = x.astype(np.int32).astype(np.complex64)
    c = (rng.standard_normal(2000) + 1j * rng.standard_normal(2000)).astype(np.complex64)
    np.testing.assert_array_equal(U["add"](c, x), c + w)
    np.testing.assert_array_equal(U["add"](c[::3], x[::3]), c[::3] + w[::3])
    np.testing.assert_array_equal(U["add"](c[:7], x[:, None][:5]), c[:7] + w[:, None][:5])
    np.testing.assert_array_equal(U["add"](c, x[7]), c + w[7])      # a broadcast int64 value
    out = np.zeros(2000, np.complex64)
    mask = np.arange(2000) % 2 == 0
    keep = out.copy()
    U["multiply"](c, x, out=out, where=mask)
    np.testing.assert_array_equal(out[mask], (c * w)[mask])
    np.testing.assert_array_equal(out[~mask], keep[~mask])
    np.testing.assert_array_equal(U["maximum"].outer(c[:3], x[:4]), np.maximum.outer(c[:3], w[:4]))
    acc = np.zeros(3, np.complex64)
    U["add"].at(acc, [0, 1, 1], x[:3])
    want = np.zeros(3, np.complex64)
    np.add.at(want, [0, 1, 1], w[:3])
    np.testing.assert_array_equal(acc, want)
    assert _ufuncs.mixed_loop_kind(U["add"], ("complex64", "int64", "complex64")) == "canon"
    np.testing.assert_array_equal(U["subtract"](x, c), w - c)
    assert _ufuncs.mixed_loop_kind(U["subtract"], ("int32", "complex64", "complex64")) \
        == "blocked"


def test_int_past_float16_warns_as_the_cast():
    """65536 as float16 overflows: NumPy's cast warns, so does the canon loop's conversion."""
    x = np.array([2**33 + 70000], dtype=np.int64)     # int32 reading: 70000
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = U["maximum"](x, np.array([1], np.float16))
    assert np.isinf(got[0]) and got.dtype == np.float16


@pytest.mark.parametrize("op", ["less", "greater_equal", "equal", "maximum"])
@pytest.mark.parametrize("src", ["int64", "uint64", "float64"])
def test_complex_ordering_of_a_canonical_operand_flags_invalid_as_numpy(op, src):
    """An ordering comparison with a complex NaN raises 'invalid' in NumPy's complex loops; the
    canon loop around them checked no FP flags when its first operand was not complex (the
    flags were decided by the operand's DType, not the loop's compute type)."""
    x = np.array([1, 2, 3], src)
    nan = np.array([complex("nan")] * 3, np.complex64)
    ref_x = x.astype(CANON[src]).astype(np.complex64)
    for a, b, ra, rb in ((x, nan, ref_x, nan), (nan, x, nan, ref_x)):
        with warnings.catch_warnings(record=True) as want_w:
            warnings.simplefilter("always")
            want = getattr(np, op)(ra, rb)
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = U[op](a, b)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
        assert [str(w.message).split()[0] for w in got_w] == \
            [str(w.message).split()[0] for w in want_w], (got_w, want_w)


def test_other_rule_sets_keep_64_bits():
    x = np.array([2**33 + 5], dtype=np.int64)
    got = tl.add(x, np.int32(1))
    assert got.dtype == np.int64 and got[0] == 2**33 + 6
    got = tl.multiply(x, np.complex128(1))
    assert got.dtype == np.complex128 and got[0] == 2**33 + 5


def test_ldexp_exponent_is_whole():
    """The one input read whole: ldexp's exponent is NumPy's int64 (JAX would wrap 2**32 + 3 to
    3; past int32's range every exponent gives inf or 0 for a finite nonzero x)."""
    with np.errstate(over="ignore"):
        for e in (np.int64(2**32 + 3), np.uint64(2**32 + 3)):
            assert U["ldexp"](np.float32(1), np.array([e])).tolist() == [np.inf]
        assert U["ldexp"](np.float32(1), np.array([2**32 - 1], np.uint32)).tolist() == [np.inf]


def test_ldexp_uint64_exponent_is_whole_for_every_mantissa():
    """A uint64 exponent of 2**63 and up is taken whole for every mantissa, as a float32
    mantissa's call took it; a float64 or integer one (read as float32) took it through NumPy's
    int64 cast, which wrapped it negative (ldexp(1.0, 2**63) was 0, 2**64 - 1 gave 0.5).
    Reference: NumPy's ldexp of the mantissa as float32 with the exponent clipped to int64 (past
    int32's range every exponent gives inf, or 0 for a zero mantissa)."""
    e = np.array([2**63, 2**64 - 1, 2**63 + 7, 5, 0], np.uint64)
    want_e = np.minimum(e, np.uint64(2**63 - 1)).astype(np.int64)
    with np.errstate(over="ignore"):
        for m, dt in [([1.0, -2.5, 0.0, 3.0, 1e300], np.float64), ([1.0, -2.5, 0.0, 3.0, 1e30],
                      np.float32), ([1, -3, 0, 7, 2**40], np.int64), ([1, -3, 0, 7, 9], np.int32)]:
            x = np.array(m, dt)
            got = U["ldexp"](x, e)
            want = np.ldexp(U["add"](x, 0).astype(np.float32), want_e)
            assert got.dtype == np.float32 and got.tolist() == want.tolist(), dt


def test_dtype_and_signature_calls():
    """dtype= naming the plain call's own dtype reads the operand as the plain call does, from
    the first call; a dtype= that fails leaves later plain calls alone (no loop registered for
    the dtype= combination answers them); a signature forcing the input type reads the
    operand as its 32-bit sibling too (it was NumPy's cast of the whole operand)."""
    x = np.array([2**33 + 5, 3], np.int64)
    U2 = tl.make_ufuncs("jax32")
    for _ in range(2):
        got = U2["add"](x, np.array([1j, 2], np.complex64), dtype=np.complex64)
        np.testing.assert_array_equal(got, np.array([5 + 1j, 5], np.complex64))
        np.testing.assert_array_equal(U2["sqrt"](x, dtype=np.float32),
                                      np.sqrt(np.float32([5, 3])))
    f = np.array([1.5, 2.5])
    with pytest.raises(TypeError):
        U2["trunc"](f, dtype=np.int8)
    assert U2["trunc"](f).dtype == np.float32
    with pytest.raises(TypeError):
        U2["add"](f, np.int32(1), dtype=np.int32)
    assert U2["add"](f, np.int32(1)).dtype == np.float32
    got = U2["add"](x, np.int32(2), signature=(np.float32, np.float32, None))
    np.testing.assert_array_equal(got, x.astype(np.int32).astype(np.float32) + np.float32(2))


def test_dtype_call_before_any_plain_call():
    """In a fresh process (no loop registered yet), the dtype= call itself: NumPy gives up on a
    promoter answering its own DTypes unless the loop it registers is found on the next lookup."""
    code = (
        "import numpy as np, typelattice as tl\n"
        "U = tl.make_ufuncs('jax32'); x = np.array([2**33 + 5, 3], np.int64)\n"
        "print((U['add'](x, np.array([1j, 2], np.complex64), dtype=np.complex64).tolist(),\n"
        "       U['sin'](x, dtype=np.float32).tolist()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    c, s = eval(out.stdout)
    assert c == [5 + 1j, 5 + 0j]
    assert s == np.sin(np.float32([5, 3])).tolist()


@pytest.mark.parametrize("byteorder", ["=", ">"])
@pytest.mark.parametrize("src", sorted(CANON))
def test_reductions_read_the_canonical_operand(src, byteorder):
    """reduce/accumulate/reduceat of a 64-bit array (with dtype=, out= and where=) read it as
    its 32-bit sibling, as the plain calls do: divide.reduce(int64) divided the whole int64
    values (JAX x32: 5 / 3, not 8589934597 / 3); a byte-swapped one too (it was read whole).
    Reference: the same method on the operand converted by astype to the canonical type."""
    x = np.array(VALUES[src] * 2, dtype=np.dtype(src).newbyteorder(byteorder))
    c = x.astype(CANON[src])
    bad = []
    for name, uf in sorted(U.items()):
        if uf.nin != 2 or uf.nout != 1 or name in ("true_divide", "mod"):
            continue
        for method, args, kw in (("reduce", (), {}), ("accumulate", (), {}),
                                 ("reduceat", ([0, 3, 4],), {}),
                                 ("reduce", (), {"dtype": np.float32}),
                                 ("accumulate", (), {"out": np.zeros(x.size, np.complex64)}),
                                 ("reduce", (), {"where": np.arange(x.size) % 3 != 0,
                                                 "initial": 1})):
            def run(a):
                kw2 = {k: (v.copy() if isinstance(v, np.ndarray) and k == "out" else v)
                       for k, v in kw.items()}
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        return getattr(uf, method)(a, *args, **kw2)
                    except (TypeError, ValueError) as e:
                        return type(e)
            got, want = run(x), run(c)
            if isinstance(want, type) or isinstance(got, type):
                if got is not want:
                    bad.append((name, method, kw, got, want))
                continue
            if np.asarray(got).dtype != np.asarray(want).dtype or not np.array_equal(
                    got, want, equal_nan=np.asarray(want).dtype.kind in "fc"):
                bad.append((name, method, list(kw), got, want))
    assert not bad, bad[:5]


def test_only_aliasing_rule_sets_convert_reduction_operands():
    """jax keeps 64 bits in its reductions (reference: NumPy's sum of the int64 values)."""
    x = np.array([2**33 + 5, 3], np.int64)
    assert tl.add.reduce(x) == np.add.reduce(x) == 2**33 + 8
    assert tl.divide.reduce(x) == np.float64(2**33 + 5) / 3


@pytest.mark.parametrize("byteorder", ["=", ">"])
@pytest.mark.parametrize("src", sorted(CANON))
def test_dtype_and_signature_calls_read_the_canonical_operand(src, byteorder):
    """Plain calls whose dtype=/signature= choose another loop than the plain call's
    (sin(x, dtype=bfloat16), a signature fixing float32 inputs) read a 64-bit operand, in
    either byte order, as its 32-bit sibling, as every other path does (NumPy cast it whole).
    Reference: the same call on the operand converted by astype; the other operand and the
    output are not converted."""
    x = np.array(VALUES[src], dtype=np.dtype(src).newbyteorder(byteorder))
    c = x.astype(CANON[src])
    bf16 = np.dtype(ml_dtypes.bfloat16)
    calls = [("sin", (x,), {"dtype": bf16}), ("sqrt", (x,), {"dtype": np.float32}),
             ("negative", (x,), {"signature": (np.complex64, None)}),
             ("add", (x, np.float32(2)), {"signature": (np.float32, np.float32, None)}),
             ("multiply", (x, x), {"dtype": np.complex64}),
             ("maximum", (np.float16(3), x), {"dtype": np.float32})]
    for name, args, kw in calls:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = U[name](*[c if a is x else a for a in args], **kw)
            except TypeError:
                continue                # (no such loop for this source type: not the point)
            got = U[name](*args, **kw)
        assert got.dtype == want.dtype, (name, kw)
        assert np.array_equal(got, want, equal_nan=True), (name, kw, got, want)
    out = np.zeros(x.size, np.float64)      # an output of a 64-bit type is not converted
    with np.errstate(all="ignore"):
        got = U["sqrt"](np.abs(c), dtype=np.float32, out=out, casting="unsafe")
    assert got is out


def test_numpy_scalars_and_casting_read_the_canonical_operand():
    """A 64-bit NumPy scalar under dtype=/signature=, and a 64-bit array under casting=, are read
    as their 32-bit sibling too (the scalar was read whole; casting='safe' refused float64 ->
    float32, a cast jax32 does on entry). Reference: the same call on the converted operand."""
    s = np.int64(2**33 + 5)
    f32 = np.float32
    assert U["sqrt"](s, signature=(f32, None)) == np.sqrt(f32(5))
    assert U["add"](s, f32(1), signature=(f32, f32, None)) == f32(6)
    assert U["negative"](s, dtype=f32) == f32(-5)
    got = U["maximum"](np.int16([3]), np.uint64(2**32), signature=(np.float16, np.float16, None))
    assert got.tolist() == [3.0]
    x = np.array([1.5, 2.5, 1e-50])
    for call in (lambda a: U["add"](a, a, casting="safe"), lambda a: U["ceil"](a, casting="no"),
                 lambda a: U["add"](a, f32(1), out=np.zeros(3), casting="safe")):
        want = call(x.astype(f32))
        got = call(x)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_dtype_call_first_leaves_the_plain_call_reading_canonically():
    """In a fresh process, add(int64, float64, dtype=float32) as the op's first call made every
    later plain add(int64, float64) read the int64 whole: NumPy cached the dtype= call's loop
    under the DTypes the plain call's promoter answer is looked up with. Reference: the plain
    call on the converted operands, in the same process."""
    code = """if 1:
        import numpy as np, typelattice as tl
        U = tl.make_ufuncs("jax32")
        a = np.array([2**33 + 5, -(2**31) - 7], np.int64)
        b = np.array([0.5, 1.0])
        for name, kw in (("add", {"dtype": np.float32}), ("less", {"dtype": bool}),
                         ("hypot", {"dtype": np.float32})):
            first = U[name](a, b, **kw)
            plain = U[name](a, b)
            want = U[name](a.astype(np.int32), b.astype(np.float32))
            print(name, first.tolist() == want.tolist(), plain.tolist() == want.tolist(),
                  plain.dtype == want.dtype)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.split("\n")
    assert lines[:3] == [f"{n} True True True" for n in ("add", "less", "hypot")], out.stdout


def test_ldexp_exponent_is_whole_under_dtype_and_signature_too():
    """dtype=/signature= calls convert their 64-bit inputs, but ldexp's exponent stays whole
    there too, as in its plain call (it was wrapped to 5). Reference: the plain call."""
    x = np.array([0.1, 1.0], np.float32)
    e = np.array([2**33 + 5, 3], np.int64)
    with np.errstate(over="ignore"):
        want = U["ldexp"](x, e)
        for kw in ({"dtype": np.float32}, {"signature": (np.float32, np.int64, None)}):
            got = U["ldexp"](x, e, **kw)
            assert got.dtype == want.dtype and np.array_equal(got, want), kw


def test_a_signature_of_the_operands_own_64_bit_types_raises_and_leaves_plain_calls_alone():
    """ldexp(float64, int64, signature=(float64, int64, None)) asks for a loop jax32 does not
    have; NumPy keeps the promoter's answer for the plain call of those arrays too, so its
    canonical (float32, int32) loop made later plain calls wrap the exponent (2**33 + 3 read as
    3). It raises now, naming the rule set. Reference: the plain call in a fresh process."""
    code = """if True:
        import sys, numpy as np, typelattice as tl
        u = tl.make_ufuncs("jax32")["ldexp"]
        x, e = np.array([1.0, 2.0]), np.array([2**33 + 3, 2], np.int64)
        if sys.argv[1] == "signature":
            try:
                u(x, e, signature=(np.float64, np.int64, None))
            except TypeError as exc:
                print("raised", "jax32" in str(exc))
        with np.errstate(over="ignore"):
            r = u(x, e)
        print(r.dtype, r.tolist(), [str(d) for d in u.resolve_dtypes((x.dtype, e.dtype, None))])
    """
    outs = [subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True,
                           check=True).stdout.splitlines() for arg in ("plain", "signature")]
    assert outs[0] == ["float32 [inf, 8.0] ['float32', 'int64', 'float32']"], outs
    assert outs[1] == ["raised True"] + outs[0], outs


def test_dtype_none_and_a_signature_of_nones_leave_the_call_plain():
    """NumPy takes dtype=None and signature=(None, None, None) as not given: the call converts
    nothing first, so an OverflowError names the operand the caller passed (it named the
    converted "uint32 array"). Reference: the plain call's error."""
    a = np.array([1, 2], np.uint64)
    with pytest.raises(OverflowError) as plain:
        U["add"](a, 2**40)
    assert "uint64 array" in str(plain.value)
    for kw in ({"dtype": None}, {"signature": (None, None, None)}, {"casting": "same_kind"}):
        with pytest.raises(OverflowError) as got:       # (casting= converts, but names a)
            U["add"](a, 2**40, **kw)
        assert str(got.value) == str(plain.value), kw


def test_dtype_of_a_64_bit_type_names_the_loop_jax32_computes_in():
    """dtype=int64 / float64 under jax32 (which reads them as their 32-bit siblings) raised
    NumPy's generic no-loop error, naming no rule set; now a TypeError naming the rule set and
    the loop it computes in, on every call. Reference: the plain call's dtype."""
    a = np.arange(3, dtype=np.int32)
    for name, args, kw in (("add", (a, a), {"dtype": np.int64}),
                           ("add", (a, a), {"signature": (None, None, np.int64)}),
                           ("sqrt", (a.astype(np.float32),), {"dtype": np.float64})):
        plain = U[name](*args).dtype
        for _ in range(2):
            with pytest.raises(TypeError) as exc:
                U[name](*args, **kw)
            msg = str(exc.value)
            assert msg.startswith(f"jax32.{name}: dtype=/signature=(") and "'jax32'" in msg, msg
            assert f"in ({plain}, " in msg and "did not contain a loop" not in msg, msg


@pytest.mark.parametrize("method,dtype", [("reduce", np.float64), ("accumulate", np.complex128),
                                          ("reduceat", np.int64), ("reduce", np.uint64)])
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_a_method_with_dtype_of_a_64_bit_type_names_the_rule_set(method, dtype, src):
    """reduce/accumulate/reduceat with dtype= of a type jax32 reads as its 32-bit sibling raised
    NumPy's generic no-loop error (helper's finding); now a TypeError naming the method, the
    array, the dtype and the rule set, as the plain call's dtype= does. The
    method without dtype= computes in the sibling (reference: NumPy's method on the operand cast
    to it)."""
    x = np.array([1.5, 2.0, 3.0], src)
    args = (x, [0, 2]) if method == "reduceat" else (x,)
    for _ in range(2):
        with pytest.raises(TypeError) as exc:
            getattr(U["add"], method)(*args, dtype=dtype)
        msg = str(exc.value)
        name = np.dtype(dtype).name
        read = CANON.get(src, src)      # (the operand as jax32 reads it, as the plain call)
        assert msg.startswith(f"jax32.add.{method}({read} array, dtype={name}): rule set "
                              f"'jax32' has no {name} loop"), msg
    want = getattr(np.add, method)(x.astype(np.float32), *args[1:])
    got = getattr(U["add"], method)(*args)
    assert got.dtype == np.float32 and np.array_equal(got, want)


def test_outer_with_dtype_of_a_64_bit_type_names_the_method_and_rule_set():
    """outer under jax32 with dtype=float64 raised NumPy's generic no-loop error; now the plain
    call's TypeError, naming outer. Reference: the plain call's error and outer's result
    without dtype=, NumPy's outer of the float32 operands."""
    a, b = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)
    with pytest.raises(TypeError) as plain:
        U["add"](a[:, None], b, dtype=np.float64)
    with pytest.raises(TypeError) as exc:
        U["add"].outer(a, b, dtype=np.float64)
    assert str(exc.value) == str(plain.value).replace("jax32.add:", "jax32.add.outer:", 1)
    got = U["add"].outer(a, b)
    assert got.dtype == np.float32 and np.array_equal(got, np.add.outer(a, b))
