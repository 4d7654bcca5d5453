"""Bit-exactness of the C block conversions in src/typelattice/kernels/tl_convert.c.

The test compiles tl_convert.c (plus tests/tl_convert_testlib.c) with gcc into a
throw-away shared library, loads it with ctypes and checks, for every CPU path
the machine has (scalar, avx2+f16c, avx512):

* every float16 / bfloat16 bit pattern -> float32 / float64 equals NumPy's /
  ml_dtypes' ``astype`` (compared as bits);
* float32 / float64 -> float16 / bfloat16 on all rounding boundaries plus
  millions of random bit patterns (NaN, inf, subnormal, overflow included)
  equals ``astype``;
* the floating-point exception flags (overflow, underflow, invalid) are those
  NumPy / ml_dtypes' casts raise, element by element;
* strided variants, tails and unaligned starts.
"""
import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)

ROOT = Path(__file__).resolve().parents[1]
KDIR = ROOT / "src" / "typelattice" / "kernels"
HELPER = Path(__file__).resolve().parent / "tl_convert_testlib.c"

# name -> (index in tl_test_flags, src dtype, dst dtype)
CONVS = {
    "f16_to_f32": (0, F16, F32),
    "f16_to_f64": (1, F16, F64),
    "f32_to_f16": (2, F32, F16),
    "f64_to_f16": (3, F64, F16),
    "bf16_to_f32": (4, BF16, F32),
    "bf16_to_f64": (5, BF16, F64),
    "f32_to_bf16": (6, F32, BF16),
    "f64_to_bf16": (7, F64, BF16),
}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
RNG_SEED = 20261122


def bits(a):
    return np.ascontiguousarray(a).view(UINT[a.dtype.itemsize])


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    cc = shutil.which(os.environ.get("CC", "gcc"))
    if cc is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("tlconv") / "libtlconv.so"
    opt = os.environ.get("TL_TEST_CFLAGS", "-O2").split()   # e.g. "-O0" or "-O3 -ffp-contract=off"
    cmd = [cc, *opt, "-std=c99", "-Wall", "-Werror", "-fPIC", "-shared",
           f"-I{KDIR}", str(KDIR / "tl_convert.c"), str(HELPER), "-o", str(out), "-lm"]
    subprocess.run(cmd, check=True)
    L = ctypes.CDLL(str(out))
    L.tl_convert_isa.restype = ctypes.c_char_p
    L.tl_convert_set_isa.argtypes = [ctypes.c_char_p]
    L.tl_convert_set_isa.restype = ctypes.c_int
    vp, sz = ctypes.c_void_p, ctypes.c_ssize_t
    for name in CONVS:
        getattr(L, "tl_convert_" + name).argtypes = [vp, vp, sz]
        getattr(L, "tl_convert_" + name).restype = None
        getattr(L, "tl_convert_" + name + "_strided").argtypes = [vp, sz, vp, sz, sz]
        getattr(L, "tl_convert_" + name + "_strided").restype = None
    L.tl_test_flags.argtypes = [ctypes.c_int, vp, sz, ctypes.c_int, vp, ctypes.c_int]
    L.tl_test_convert.argtypes = [ctypes.c_int, vp, vp, sz, ctypes.c_int]
    L.tl_test_block_flags.argtypes = [ctypes.c_int, vp, vp, sz]
    yield L
    L.tl_convert_set_isa(None)


def available_isas(L):
    out = []
    for name in ("scalar", "avx2+f16c", "avx512", "avx512+bf16"):
        if L.tl_convert_set_isa(name.encode()) == 0:
            out.append(name)
    L.tl_convert_set_isa(None)
    return out


@pytest.fixture(scope="module")
def isas(lib):
    return available_isas(lib)


def convert(L, isa, name, x):
    """Run tl_<name> on x with the given path; returns the output array."""
    _, sdt, ddt = CONVS[name]
    assert x.dtype == sdt and x.flags.c_contiguous
    assert L.tl_convert_set_isa(isa.encode()) == 0
    out = np.empty(x.shape, ddt)
    with np.errstate(all="ignore"):
        getattr(L, "tl_convert_" + name)(x.ctypes.data, out.ctypes.data, x.size)
    return out


def reference(name, x):
    _, _, ddt = CONVS[name]
    with np.errstate(all="ignore"):
        return x.astype(ddt)


def assert_bits_equal(got, want, x, what):
    gb, wb = bits(got), bits(want)
    bad = np.flatnonzero(gb != wb)
    if bad.size:
        i = bad[:8]
        xs = [hex(v) for v in bits(x)[i]]
        raise AssertionError(
            f"{what}: {bad.size} mismatches, first inputs {xs}: got "
            f"{[hex(v) for v in gb[i]]}, want {[hex(v) for v in wb[i]]}")


def check_all_paths(L, isas, name, x):
    want = reference(name, x)
    for isa in isas:
        assert_bits_equal(convert(L, isa, name, x), want, x, f"{name} [{isa}]")
        # odd start and odd length: unaligned loads and every tail length
        for off in (1, 7):
            xs = x[off:off + 1000 + off]
            assert_bits_equal(convert(L, isa, name, np.ascontiguousarray(xs)),
                              want[off:off + 1000 + off], xs, f"{name} [{isa}] offset {off}")


# ---------------------------------------------------------------- inputs
ALL16 = np.arange(65536, dtype=np.uint32).astype(np.uint16)


def f32_inputs():
    rng = np.random.default_rng(RNG_SEED)
    parts = []
    # every float16 value as float32, its neighbours and the midpoints to the
    # next float16 value (+-2 float32 ulps): all rounding decisions
    h = np.arange(0x7c00, dtype=np.uint16).view(np.float16).astype(np.float64)
    nxt = np.append(h[1:], 65536.0)
    mids = ((h + nxt) / 2).astype(np.float32).view(np.uint32)
    hb = h.astype(np.float32).view(np.uint32)
    for base in (hb, mids):
        for d in (-2, -1, 0, 1, 2):
            parts.append((base.astype(np.int64) + d).clip(0, 0x7f800000).astype(np.uint32))
    # every bfloat16 value and its midpoints (+-1 ulp)
    b = np.arange(0x7f81, dtype=np.uint32) << 16
    for d in (-1, 0, 1, 0x7fff, 0x8000, 0x8001):
        parts.append((b.astype(np.int64) + d).clip(0, 0xffffffff).astype(np.uint32))
    # the underflow boundary region, all of it
    parts.append(np.arange(0x387F0000, 0x38810000, dtype=np.uint32))
    # NaNs (quiet, signalling, payloads lost by truncation), inf, max, min
    parts.append(np.array([0x7f800000, 0x7f800001, 0x7f801fff, 0x7f802000, 0x7fa00000, 0x7fbfffff,
                           0x7fc00000, 0x7fc00001, 0x7fffffff, 0x7f7fffff, 0x00000001, 0x007fffff,
                           0x00800000, 0x33000000, 0x33000001, 0x32ffffff, 0x477fefff, 0x477ff000,
                           0x477ff001, 0x47800000], dtype=np.uint32))
    # several million random bit patterns, and random values of f16 range
    u = np.concatenate(parts)
    u = np.concatenate([u, u | np.uint32(0x80000000)])   # both signs
    rng.shuffle(u)      # mix classes inside each vector
    e = rng.integers(96, 145, 1_000_000, dtype=np.uint32)
    u = np.concatenate([u, rng.integers(0, 2**32, 3_000_000, dtype=np.uint64).astype(np.uint32),
                        (e << 23) | rng.integers(0, 2**23, 1_000_000, dtype=np.uint32)
                        | (rng.integers(0, 2, 1_000_000, dtype=np.uint32) << 31)])
    return u.view(np.float32)


def f64_inputs():
    rng = np.random.default_rng(RNG_SEED + 1)
    parts = []
    h = np.arange(0x7c00, dtype=np.uint16).view(np.float16).astype(np.float64)
    nxt = np.append(h[1:], 65536.0)
    mids = ((h + nxt) / 2).view(np.uint64)
    # +-1 double ulp, and +-1 float32 ulp (2^29 double ulps): catches double rounding
    for base in (h.view(np.uint64), mids):
        for d in (-(1 << 29), -1, 0, 1, 1 << 29, (1 << 29) + 1):
            parts.append((base.astype(np.int64) + d).clip(0, 0x7ff0000000000000).astype(np.uint64))
    # bfloat16 midpoints in double, +- a double ulp, +- below float32 precision
    b = (np.arange(0x7f81, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
    bm = (b + 2.0 ** (np.floor(np.log2(np.maximum(b, 1e-45))) - 8)).view(np.uint64)
    for d in (-1, 0, 1, 1 << 20, 1 << 28, -(1 << 28)):
        parts.append((bm.astype(np.int64) + d).clip(0, 0x7ff0000000000000).astype(np.uint64))
    # every float32 value near the f16 underflow boundary, widened, +-1 ulp
    bnd = np.arange(0x387F0000, 0x38810000, dtype=np.uint32).view(np.float32).astype(np.float64)
    for d in (-1, 0, 1):
        parts.append((bnd.view(np.uint64).astype(np.int64) + d).astype(np.uint64))
    parts.append(np.array([0x7ff0000000000000, 0x7ff0000000000001, 0x7ff0000003ffffff,
                           0x7ff0040000000000, 0x7ff4000000000000, 0x7ff8000000000000,
                           0x7ff8000000000001, 0x7fffffffffffffff, 0x7fefffffffffffff,
                           0x0000000000000001, 0x000fffffffffffff, 0x0010000000000000,
                           0x47efffffe0000000, 0x47efffffe0000001, 0x47effffff0000000,
                           0x3e60000000000000, 0x3e5fffffffffffff, 0x3e60000000000001,
                           0x36a0000000000000, 0x369fffffffffffff, 0x36a0000000000001,
                           0x40effc0000000000, 0x40effbffffffffff, 0x40effc0000000001],
                          dtype=np.uint64))
    u = np.concatenate(parts)
    u = np.concatenate([u, u | np.uint64(0x8000000000000000)])
    rng.shuffle(u)
    e = rng.integers(850, 1160, 1_000_000, dtype=np.uint64)
    u = np.concatenate([u, rng.integers(0, 2**64, 2_000_000, dtype=np.uint64),
                        (e << np.uint64(52)) | rng.integers(0, 2**52, 1_000_000, dtype=np.uint64)
                        | (rng.integers(0, 2, 1_000_000, dtype=np.uint64) << np.uint64(63))])
    return u.view(np.float64)


@pytest.fixture(scope="module")
def x32():
    return f32_inputs()


@pytest.fixture(scope="module")
def x64():
    return f64_inputs()


# ---------------------------------------------------------------- values
def test_paths_exist(lib, isas):
    assert "scalar" in isas
    assert lib.tl_convert_isa().decode() in ("avx512+bf16", "avx512", "avx2+f16c", "scalar")
    if sys.platform.startswith("linux") and os.uname().machine == "x86_64":
        flags = Path("/proc/cpuinfo").read_text()
        if " avx2 " in flags and " f16c " in flags:
            assert "avx2+f16c" in isas
        if all(f" {f} " in flags for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
            assert "avx512" in isas
        if "avx512+bf16" in isas:           # (a compiler that does not know it leaves it out)
            assert " avx512_bf16 " in flags
    # the default is the best path the CPU and the build have (isas in that order)
    if os.environ.get("TYPELATTICE_DISABLE_SIMD", "0") in ("", "0"):
        assert lib.tl_convert_isa().decode() == isas[-1]


@pytest.mark.parametrize("name", ["f16_to_f32", "f16_to_f64"])
def test_every_float16(lib, isas, name):
    check_all_paths(lib, isas, name, ALL16.view(np.float16))


@pytest.mark.parametrize("name", ["bf16_to_f32", "bf16_to_f64"])
def test_every_bfloat16(lib, isas, name):
    check_all_paths(lib, isas, name, ALL16.view(BF16))


@pytest.mark.parametrize("name", ["f32_to_f16", "f32_to_bf16"])
def test_from_float32(lib, isas, x32, name):
    check_all_paths(lib, isas, name, x32)


@pytest.mark.parametrize("name", ["f64_to_f16", "f64_to_bf16"])
def test_from_float64(lib, isas, x64, name):
    check_all_paths(lib, isas, name, x64)


def test_float64_to_float16_rounds_once(lib, isas):
    # 1 + 2^-11 + 2^-40 rounds up to 1 + 2^-10 in one step; via float32 it
    # would be a tie rounded to even (1.0).  NumPy rounds once.
    x = np.array([1 + 2.0**-11 + 2.0**-40] * 20)
    for isa in isas:
        assert (bits(convert(lib, isa, "f64_to_f16", x)) == 0x3c01).all()


def test_float64_to_bfloat16_via_float32(lib, isas):
    # ml_dtypes goes through float32: the same input is a tie there -> even
    x = np.array([1 + 2.0**-8 + 2.0**-30] * 20)
    for isa in isas:
        assert (bits(convert(lib, isa, "f64_to_bf16", x)) == 0x3f80).all()


@pytest.mark.parametrize("name", list(CONVS))
def test_strided(lib, isas, x32, x64, name):
    _, sdt, ddt = CONVS[name]
    src = {F32: x32[:3001], F64: x64[:3001]}.get(sdt)
    if src is None:
        src = np.ascontiguousarray(ALL16[::21]).view(sdt)
    want = reference(name, src)
    big = np.zeros(src.size * 3, sdt)
    big[::3] = src
    for isa in isas:
        lib.tl_convert_set_isa(isa.encode())
        fn = getattr(lib, "tl_convert_" + name + "_strided")
        out = np.zeros(src.size * 2, ddt)
        with np.errstate(all="ignore"):
            fn(big.ctypes.data, 3 * sdt.itemsize, out.ctypes.data, 2 * ddt.itemsize, src.size)
        assert_bits_equal(out[::2], want, src, f"{name} strided [{isa}]")
        # negative destination stride, contiguous source
        out = np.zeros(src.size, ddt)
        with np.errstate(all="ignore"):
            fn(src.ctypes.data, sdt.itemsize, out[-1:].ctypes.data, -ddt.itemsize, src.size)
        assert_bits_equal(out[::-1], want, src, f"{name} reversed [{isa}]")
        # zero source stride (a scalar operand)
        out = np.zeros(700, ddt)
        with np.errstate(all="ignore"):
            fn(src[5:].ctypes.data, 0, out.ctypes.data, ddt.itemsize, 700)
        assert_bits_equal(out, reference(name, np.repeat(src[5:6], 700)), src[5:6],
                          f"{name} stride 0 [{isa}]")
    lib.tl_convert_set_isa(None)


# ---------------------------------------------------------------- flags
def numpy_flags(x, dtype):
    """Per element: the FP flags NumPy's / ml_dtypes' astype raises (NumPy's bits)."""
    seen = []
    out = np.zeros(x.size, np.uint8)
    old = np.seterrcall(lambda kind, flag: seen.append(flag))
    try:
        with np.errstate(all="call"):
            for i in range(x.size):
                seen.clear()
                x[i:i + 1].astype(dtype)
                out[i] = 0 if not seen else seen[-1]
    finally:
        np.seterrcall(old)
    return out


def kernel_flags(L, isa, name, x, rep=16, csr=0):
    idx = CONVS[name][0]
    assert L.tl_convert_set_isa(isa.encode()) == 0
    x = np.ascontiguousarray(x)
    out = np.zeros(x.size, np.uint8)
    assert L.tl_test_flags(idx, x.ctypes.data, x.size, rep, out.ctypes.data, csr) == 0
    return out


def flag_sample(x, k, seed):
    """k inputs: every class of special values plus random ones."""
    rng = np.random.default_rng(seed)
    return x[rng.choice(x.size, k, replace=False)]


FLAG_SPECIALS32 = np.array([0x7f800001, 0x7fa00000, 0x7fc00000, 0x7f800000, 0x7f7fffff, 0x477ff000,
                            0x477fefff, 0x47800000, 0x387FE000, 0x387FEFFF, 0x387FF000, 0x387FFFFF,
                            0x38800000, 0x387FC000, 0x33000000, 0x33000001, 0x00000001, 0x0,
                            0x3f800000, 0x33800000, 0x337fffff, 0x38000000, 0x38000001],
                           dtype=np.uint32).view(np.float32)
FLAG_SPECIALS64 = np.concatenate([
    FLAG_SPECIALS32[FLAG_SPECIALS32 == FLAG_SPECIALS32].astype(np.float64),
    np.array([0x7ff0000000000001, 0x7ff4000000000000, 0x7ff8000000000001, 0x7fefffffffffffff,
              0x47efffffe0000000, 0x47efffffe0000001, 0x47effffff0000000, 0x0000000000000001,
              0x36a0000000000000, 0x369fffffffffffff, 0x3810000000000000, 0x380fffffffffffff,
              0x3f0ffc0000000000, 0x3f0ffc0000000001, 0x3f0ffbffffffffff, 0x3f0ffe0000000000,
              0x3f0fffffffffffff, 0x40effc0000000000, 0x40effbffffffffff],
             dtype=np.uint64).view(np.float64)])


@pytest.mark.parametrize("name", list(CONVS))
def test_flags_match_numpy(lib, isas, x32, x64, name):
    _, sdt, ddt = CONVS[name]
    x = flag_inputs(name, x32, x64)
    want = numpy_flags(x, ddt)
    assert want.any() or sdt in (F16,) or name == "bf16_to_f32"
    for isa in isas:
        for rep in (16, 5):       # vector bodies; tails
            got = kernel_flags(lib, isa, name, x, rep)
            bad = np.flatnonzero(got != want)
            assert bad.size == 0, (
                f"{name} [{isa}] rep={rep}: inputs {[hex(v) for v in bits(x)[bad[:8]]]} "
                f"flags {got[bad[:8]]} want {want[bad[:8]]}")
    lib.tl_convert_set_isa(None)


@pytest.mark.parametrize("name", ["f32_to_f16", "f64_to_f16", "f32_to_bf16", "f64_to_bf16",
                                  "bf16_to_f64"])
def test_flags_simd_equal_scalar(lib, isas, x32, x64, name):
    """Per-element flags on a large sample: every SIMD path == the scalar path."""
    _, sdt, _ = CONVS[name]
    x = {F32: x32, F64: x64}.get(sdt)
    x = ALL16.view(sdt) if x is None else flag_sample(x, 300_000, 4)
    want = kernel_flags(lib, "scalar", name, x)
    for isa in isas:
        got = kernel_flags(lib, isa, name, x)
        assert (got == want).all(), f"{name} [{isa}]"
    lib.tl_convert_set_isa(None)


def flag_inputs(name, x32, x64):
    _, sdt, _ = CONVS[name]
    if sdt == F32:
        return np.concatenate([FLAG_SPECIALS32, -FLAG_SPECIALS32, flag_sample(x32, 1500, 1)])
    if sdt == F64:
        return np.concatenate([FLAG_SPECIALS64, -FLAG_SPECIALS64, flag_sample(x64, 1500, 2)])
    return np.concatenate([ALL16[0x7c00:0x7c00 + 1024], ALL16[0x7f80:0x8000],
                           flag_sample(ALL16, 1000, 3)]).view(sdt)


_NP_FLAGS_CACHE = {}


@pytest.mark.parametrize("csr", [0x8040, 0x2000, 0x4000, 0x6000],
                         ids=["daz+ftz", "round-down", "round-up", "round-to-zero"])
@pytest.mark.parametrize("name", ["f32_to_f16", "f64_to_f16", "f16_to_f32", "f16_to_f64"])
def test_float16_independent_of_mxcsr(lib, isas, x32, x64, name, csr):
    """NumPy's float16 casts are software: unaffected by the rounding mode and
    by MXCSR.DAZ/FTZ (which a -ffast-math library sets for the whole process).
    Ours must not be affected either, values or flags."""
    if not lib.tl_test_have_mxcsr():
        pytest.skip("x86 only")
    idx, sdt, ddt = CONVS[name]
    x = {F32: x32, F64: x64}.get(sdt)
    x = ALL16.view(sdt) if x is None else np.ascontiguousarray(x[::3])
    want = reference(name, x)
    fx = flag_inputs(name, x32, x64)
    if name not in _NP_FLAGS_CACHE:
        _NP_FLAGS_CACHE[name] = numpy_flags(fx, ddt)
    fwant = _NP_FLAGS_CACHE[name]
    for isa in isas:
        lib.tl_convert_set_isa(isa.encode())
        out = np.empty(x.size, ddt)
        assert lib.tl_test_convert(idx, x.ctypes.data, out.ctypes.data, x.size, csr) == 0
        assert_bits_equal(out, want, x, f"{name} [{isa}] MXCSR {csr:#x}")
        got = kernel_flags(lib, isa, name, fx, 16, csr=csr)
        bad = np.flatnonzero(got != fwant)
        assert bad.size == 0, (f"{name} [{isa}] MXCSR {csr:#x}: inputs "
                               f"{[hex(v) for v in bits(fx)[bad[:8]]]}"
                               f" flags {got[bad[:8]]} want {fwant[bad[:8]]}")
    lib.tl_convert_set_isa(None)


def test_block_flags_and_errstate(lib, isas):
    """One block call raises what one NumPy astype raises for the whole block."""
    cases = [
        ("f32_to_f16", np.array([1.0, 1e5, 2.0] * 11, np.float32), 2),
        ("f32_to_f16", np.array([1.0, 1e-6, 2.0] * 11, np.float32), 4),
        ("f32_to_f16", np.array([1.0, np.nan, np.inf, 65519.0] * 11, np.float32), 0),
        ("f64_to_f16", np.array([1.0, 1e300, 1e-300] * 11), 6),
        ("f32_to_bf16", np.array([3.4e38, 1e-45, np.nan] * 11, np.float32), 0),
        ("f64_to_bf16", np.array([1.0, 1e39, 3.0] * 11), 2),
    ]
    for name, x, expect in cases:
        idx, _, ddt = CONVS[name]
        seen = []
        old = np.seterrcall(lambda kind, flag: seen.append(flag))
        try:
            with np.errstate(all="call"):
                x.astype(ddt)
        finally:
            np.seterrcall(old)
        assert (seen[-1] if seen else 0) == expect, name
        for isa in isas:
            lib.tl_convert_set_isa(isa.encode())
            out = np.empty(x.size, ddt)
            assert lib.tl_test_block_flags(idx, x.ctypes.data, out.ctypes.data, x.size) == expect, \
                (name, isa)
    lib.tl_convert_set_isa(None)


def test_disable_simd_env(lib, tmp_path):
    """TYPELATTICE_DISABLE_SIMD=1 selects the scalar path at first use."""
    path = lib._name
    code = ("import ctypes,sys; L=ctypes.CDLL(sys.argv[1]); "
            "L.tl_convert_isa.restype=ctypes.c_char_p; print(L.tl_convert_isa().decode())")
    env = dict(os.environ, TYPELATTICE_DISABLE_SIMD="1")
    r = subprocess.run([sys.executable, "-c", code, path], env=env, capture_output=True,
                       text=True, check=True)
    assert r.stdout.strip() == "scalar"
    env["TYPELATTICE_DISABLE_SIMD"] = "0"
    r = subprocess.run([sys.executable, "-c", code, path], env=env, capture_output=True,
                       text=True, check=True)
    assert r.stdout.strip() == available_isas(lib)[-1]
