"""floor_divide, remainder and divmod of operands joining in another type (uint32 // int8 ->
int64, uint8 % int8 -> int16, divmod(float16, float32) -> float32, divmod(int8, float16) ->
float16): blocked loops convert each operand a block at a time and run the same-dtype loop of the
join on the blocks. Every rule set and ordered pair, against NumPy's ufunc on the operands cast
to the join first: values, the divide-by-zero, overflow and invalid warnings, layouts, out=,
reductions."""
import ml_dtypes
import numpy as np
import pytest

from typelattice import _ufuncs
from typelattice.rules import builtin
from test_ufuncs_fused_mixed import flag_bits

RULES = builtin()
INTS = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
OPS = ("floor_divide", "remainder", "divmod")


def _dt(t):
    return np.dtype(ml_dtypes.bfloat16) if t == "bfloat16" else np.dtype(t)


def _values(t, n, seed):
    """n values of t: small ones (both signs), zeros (a zero divisor), the type's extremes
    (MIN // -1; beyond 2**51 the 64-bit loops leave float division); floats with -0.0, NaN,
    infinities and quotients past float16's range."""
    d = _dt(t)
    rng = np.random.default_rng(seed)
    if d.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if t in FLOATS:
        x = (rng.standard_normal(n) * 50).astype(d)
        edge = [0.0, -0.0, np.nan, np.inf, -np.inf, 65504.0, 1e-3, 7.5, -7.5]
        with np.errstate(all="ignore"):
            x[:len(edge)] = np.array(edge[:n]).astype(d)
        return x
    ii = np.iinfo(d)
    x = rng.integers(max(ii.min, -60), min(ii.max, 60), n).astype(d)
    edge = [v for v in (0, -1, 1, ii.max, ii.min, 7, -7, 2 ** 52 + 3) if ii.min <= v <= ii.max]
    x[:len(edge)] = edge[:n]
    return x


def _pairs():
    for rname, rs in RULES.items():
        ufs = _ufuncs.make_ufuncs(rname)
        for name in OPS:
            uf = ufs[name]
            for a in INTS + FLOATS:
                for b in INTS + FLOATS:
                    if a == b or a not in rs.index or b not in rs.index:
                        continue
                    try:
                        got = uf.resolve_dtypes((_dt(a), _dt(b)) + (None,) * uf.nout)
                    except Exception:
                        continue
                    t = got[uf.nin]
                    # (a loop reading both: integer joins; float32/float64/float16 ones of
                    # divmod, the others' being test_ufuncs_values')
                    ok = t.kind in "iu" or name == "divmod" and t.name in (
                        "float16", "float32", "float64")
                    if (got[0].name, got[1].name) == (a, b) and ok:
                        yield rname, name, a, b, t


PAIRS = list(_pairs())


def _same(got, want, msg):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), msg
        for g, w in zip(got, want):
            _same(g, w, msg)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, msg
    assert got.tobytes() == want.tobytes(), msg


def test_every_integer_join_runs_a_blocked_loop():
    assert len(PAIRS) > 200
    for rname, name, a, b, t in PAIRS:
        uf = _ufuncs.make_ufuncs(rname)[name]
        x = _values(a, 8, 0)
        with np.errstate(all="ignore"):
            uf(x, _values(b, 8, 1))
        assert _ufuncs.mixed_loop_kind(uf, (_dt(a), _dt(b)) + (t,) * uf.nout) == "blocked", \
            (rname, name, a, b)


@pytest.mark.parametrize("rname", list(RULES))
def test_values_flags_and_layouts_as_numpy_on_the_cast_operands(rname):
    ufs = _ufuncs.make_ufuncs(rname)
    n = 2100                          # two whole blocks and a tail
    for r, name, a, b, t in PAIRS:
        if r != rname:
            continue
        uf, ref = ufs[name], getattr(np, name)
        x, y = _values(a, n, 2), _values(b, n, 3)
        msg = (rname, name, a, b)
        for what, xs, ys in (("contiguous", x, y), ("strided", x[::3], y[1::3]),
                             ("reversed", x[::-1], y),
                             ("0-d divisor", x, np.asarray(y[5])),
                             ("0-d dividend", np.asarray(x[6]), y),
                             ("zero divisor", x, np.zeros((), y.dtype))):
            with np.errstate(all="ignore"):
                want = ref(xs.astype(t), ys.astype(t))
                got = uf(xs, ys)
            _same(got, want, msg + (what,))
            # (NumPy's call casting inside it: uint16 65535 -> float16 raises overflow there)
            sig = (t,) * (2 + uf.nout)
            assert flag_bits(uf, xs, ys) == flag_bits(
                lambda: ref(xs, ys, signature=sig, casting="unsafe")), msg + (what,)
        outs = tuple(np.full(n, 5, t) for _ in range(uf.nout))
        strided = tuple(np.full(2 * n, 5, t) for _ in range(uf.nout))
        with np.errstate(all="ignore"):
            got = uf(x, y, out=outs)
            assert (got if uf.nout == 2 else (got,)) == outs or all(
                g is o for g, o in zip(got if uf.nout == 2 else (got,), outs)), msg
            want = ref(x.astype(t), y.astype(t))
            _same(outs if uf.nout == 2 else outs[0], want, msg + ("out=",))
            uf(x, y, out=tuple(s[::2] for s in strided))
        for s, o in zip(strided, outs):
            _same(s[::2], o, msg + ("strided out=",))
            assert (s[1::2] == 5).all(), msg


@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_reductions_fold_in_order(name):
    """reduce/accumulate with dtype= of the join (NumPy's reduce takes the (join, x) loop): in
    order, each value cast first, as NumPy's reduction of x.astype(join)."""
    uf = _ufuncs.make_ufuncs("jax")[name]
    for a, t in (("int8", "int64"), ("uint32", "int64"), ("bool", "int16"), ("uint8", "uint64")):
        x = _values(a, 300, 4)
        x[x == 0] = 1
        with np.errstate(all="ignore"):
            _same(uf.reduce(x, dtype=t), getattr(np, name).reduce(x.astype(t)), (name, a, t))
            _same(uf.accumulate(x, dtype=t), getattr(np, name).accumulate(x.astype(t)),
                  (name, a, t))
