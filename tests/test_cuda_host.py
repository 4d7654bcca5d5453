"""(b) The generated CUDA element functions, compiled for the host, agree bit for bit with the CPU
ufuncs over edge values.

g++ compiles the very ``<ns>_apply`` functions the kernels call (operand conversion, shared element
function of kernels/tl_elem.h, rounding on store) for every (op, dtype) signature, every mixed
dtype pair of add/less/divmod/ldexp and Python scalars on both sides. Inputs: every float16 and
bfloat16 bit pattern, integer extremes, inf/nan/-0, subnormals, division by zero. Two builds:

* software halves (the shared tl_f16_to_f32/tl_f32_to_f16..., the default of typelattice.cuda);
* hardware halves (cuda_fp16.h/cuda_bf16.h conversions, ``TYPELATTICE_CUDA_HW16=1``; needs a CUDA
  include directory with crt/host_defines.h): as above for every input that is not a NaN (the
  hardware conversion quiets signaling NaNs and drops NaN signs, which powf/hypot/fmax/copysign
  then see).

Every result has identical bits, except that a NaN equals any NaN (which NaN payload an operation
propagates when both operands are NaNs depends on the compiler's operand order, and a GPU returns
its canonical NaN anyway), and that signaling-NaN float16/bfloat16 inputs are left out (the CPU
ufuncs quiet them on their F16C/AVX-512 paths only). Complex power/float_power with general
exponents: see test_complex_power_divergence_is_only_cpow.
"""
import ctypes
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import typelattice
from typelattice._cuda_codegen import module_source

from _cuda_sigs import all_sigs, dtype

GXX = shutil.which("g++") or shutil.which("c++")
pytestmark = pytest.mark.skipif(GXX is None, reason="no C++ compiler (g++) on PATH")

if not isinstance(getattr(typelattice, "add", None), np.ufunc):
    pytest.skip("typelattice's CPU ufuncs are not built in this tree", allow_module_level=True)


def _host_include():
    cands = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    try:
        from typelattice.cuda import _candidate_include_dirs
        cands += [os.path.dirname(d) for d in _candidate_include_dirs()]
    except Exception:  # noqa: BLE001
        pass
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "include", "crt", "host_defines.h")):
            return os.path.join(c, "include")
    return None


def _driver(sigs, prefix="tl"):
    out = []
    for k, s in enumerate(sigs):
        ns = f"{prefix}{k}"
        from typelattice._cuda_codegen import STORAGE
        A, B = (STORAGE[t] for t in s.ins)
        outs = s.loop[2:]
        y = ", ".join(f"&(({STORAGE[o]} *)y{i})[i]" for i, o in enumerate(outs))
        out.append(
            f'extern "C" void {ns}_host(long long n, const void *a, long long sa, const void *b, '
            f"long long sb, void *y0, void *y1, unsigned *e)\n{{\n    (void)y1;\n"
            f"    for (long long i = 0; i < n; i++)\n"
            f"        {ns}_apply(((const {A} *)a)[i * sa], ((const {B} *)b)[i * sb], {y}, e);\n}}\n")
    return "\n".join(out)


def _build(sigs, tmp, hw16):
    src, _ = module_source(sigs, hw16=hw16, kernels=())
    src += _driver(sigs)
    cpp = tmp / f"host_{int(hw16)}.cpp"
    so = tmp / f"host_{int(hw16)}.so"
    cpp.write_text(src)
    cmd = [GXX, "-std=c++17", "-O0", "-shared", "-fPIC", "-ffp-contract=off", "-fno-fast-math",
           "-w", "-o", str(so), str(cpp)]
    if hw16:
        inc = _host_include()
        cmd[1:1] = ["-DTL_HOST_HW16", f"-I{inc}"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-4000:]
    return ctypes.CDLL(str(so))


SIGS = all_sigs()
# Known, by design of tl_elem.h: general complex powers use the C library's cpow in the CPU's C
# build and exp(b*log(a)) in CUDA/C++ (CUDA has no cpow), so they are not bit-identical (up to
# NaN-vs-finite at infinities). Reported separately, never counted as agreement.
CPOW_DIVERGES = ("power", "float_power")
# the hardware conversions only change signatures that involve float16/bfloat16
HALF_SIGS = [s for s in SIGS if {"float16", "bfloat16"} & set(s.ins + s.loop)]


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    """{hw16: (library, its signatures)}."""
    tmp = tmp_path_factory.mktemp("cuda_host")
    out = {False: (_build(SIGS, tmp, False), SIGS)}
    out[True] = (_build(HALF_SIGS, tmp, True), HALF_SIGS) if _host_include() else (None, None)
    return out


# ---- edge values ---------------------------------------------------------------------------------

_FEDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.0, 3.0, -2.5, 7.0, 0.1, 1e-3, 100.0, -100.0,
          1e10, np.inf, -np.inf, np.nan]


def edges(t):
    dt = dtype(t)
    if t == "bool":
        return np.array([False, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = {info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 3, 7, 8, 16, 31, 32,
                63, 64, -1, -2, -7}
        return np.array(sorted(v for v in vals if info.min <= v <= info.max), dtype=dt)
    if t in ("float16", "bfloat16"):
        with np.errstate(over="ignore"):
            return np.array(_FEDGE + [65504.0, 6e-8, 6.1e-5, 3e38, 1e-40],
                            dtype=np.float32).astype(dt)
    if dt.kind == "f":
        fi = np.finfo(dt)
        extra = [fi.max, -fi.max, fi.tiny, fi.smallest_subnormal, -fi.smallest_subnormal]
        if t == "float32":
            extra.append(1e-40)
        return np.array(_FEDGE + extra, dtype=dt)
    parts = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan])
    return np.array([complex(r, i) for r in parts for i in parts], dtype=dt)


def all_patterns(t):
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(dtype(t))


_SMALL = {"f": [0.0, -0.0, 1.0, -1.5, 0.5, np.inf, -np.inf, np.nan],
          "c": [0j, complex(-0.0, 1.0), complex(1.5, -0.5), complex(np.inf, 0.0),
                complex(np.nan, 1.0)]}


def _small(t):
    """A few edge values: what every float16/bfloat16 bit pattern is paired with."""
    dt = dtype(t)
    if t == "bool":
        return np.array([False, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array(sorted({info.min, 0, 1, 3, info.max}), dtype=dt)
    if dt.kind == "c":
        return np.array(_SMALL["c"], dtype=dt)
    return np.array(_SMALL["f"], dtype=np.float64).astype(dt)


def operand_values(s):
    """(a, b) arrays of equal length: the cartesian product of edge values, or every
    float16/bfloat16 bit pattern against a few edge values of the other side (both orders)."""
    a_t, b_t = s.ins
    ha = a_t in ("float16", "bfloat16") and not s.scalar[0]
    hb = b_t in ("float16", "bfloat16") and not s.scalar[1]
    if not (ha or hb):
        ea, eb = edges(a_t), edges(b_t)
        a, b = np.repeat(ea, len(eb)), np.tile(eb, len(ea))
    else:
        A, B = [], []
        if ha:
            pa, sb = all_patterns(a_t), _small(b_t)
            A.append(np.repeat(pa, len(sb)))
            B.append(np.tile(sb, len(pa)))
        if hb:
            sa, pb = _small(a_t), all_patterns(b_t)
            A.append(np.tile(sa, len(pb)))
            B.append(np.repeat(pb, len(sa)))
        a, b = np.concatenate(A), np.concatenate(B)
    if s.op == "power" and s.loop[0] not in ("float16", "bfloat16", "float32", "float64",
                                             "complex64", "complex128"):
        keep = ~(b.astype(np.float64) < 0)       # integer ** negative raises on the CPU
        a, b = a[keep], b[keep]
    return a, b


def _snan_halves(*xs):
    """Signaling-NaN float16/bfloat16 inputs. The CPU ufuncs quiet them on their F16C/AVX-512
    conversion paths (so powf(sNaN, 0) is 1 there) but not on the scalar path, and GPU hardware
    conversions quiet them: no single reference, so they are left out of the bit comparison."""
    m = False
    for x in xs:
        if x.dtype.name == "float16":
            u = x.view(np.uint16)
            m = m | (((u & 0x7c00) == 0x7c00) & ((u & 0x3ff) != 0) & ((u & 0x200) == 0))
        elif x.dtype.name == "bfloat16":
            u = x.view(np.uint16)
            m = m | (((u & 0x7f80) == 0x7f80) & ((u & 0x7f) != 0) & ((u & 0x40) == 0))
    return m


def _nan_inputs(*xs):
    m = False
    for x in xs:
        if x.dtype.kind == "c":
            m = m | np.isnan(x)
        elif x.dtype.kind == "f" or x.dtype.name in ("float16", "bfloat16"):
            m = m | np.isnan(x.astype(np.float32))
    return m


def bits(x):
    x = np.ascontiguousarray(x)
    return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[
        x.dtype.itemsize])


def run_host(lib, k, s, a, b):
    n = len(a)
    outs = [np.empty(n, dtype=dtype(t)) for t in s.loop[2:]]
    outs += [np.empty(1, np.uint8)] * (2 - len(outs))
    e = ctypes.c_uint(0)
    fn = getattr(lib, f"tl{k}_host")
    fn(ctypes.c_longlong(n), a.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(1),
       b.ctypes.data_as(ctypes.c_void_p), ctypes.c_longlong(1),
       outs[0].ctypes.data_as(ctypes.c_void_p), outs[1].ctypes.data_as(ctypes.c_void_p),
       ctypes.byref(e))
    return outs[: len(s.loop) - 2], e.value


def _parts(x):
    """Real views: complex as (n, 2) float parts, float16/bfloat16 as float32 (exact)."""
    if x.dtype.kind == "c":
        return x.view(np.float32 if x.dtype.itemsize == 8 else np.float64).reshape(-1, 2)
    return x.reshape(-1, 1)


def compare(s, got, want, nan_class, skip=None):
    """(output index, positions) of the first output that differs, or None.

    Bits must be equal; with ``nan_class`` a NaN equals any NaN (GPU NaNs are canonical)."""
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        gp, wp = _parts(g), _parts(w)
        same = bits(gp) == bits(wp)
        if nan_class and (g.dtype.kind in "fc" or g.dtype.name in ("float16", "bfloat16")):
            with np.errstate(invalid="ignore"):   # ml_dtypes' cast of a signalling NaN
                same |= np.isnan(gp.astype(np.float64)) & np.isnan(wp.astype(np.float64))
        same = same.all(axis=1)
        if skip is not None:
            same |= skip
        bad = np.flatnonzero(~same)
        if bad.size:
            return i, bad
    return None


@pytest.mark.parametrize("hw16", [False, True], ids=["soft16", "hw16"])
def test_element_functions_match_cpu_ufuncs(libs, hw16):
    lib, sigs = libs[hw16]
    if lib is None:
        pytest.skip("no CUDA include directory with crt/host_defines.h for a host build of "
                    "cuda_fp16.h (set CUDA_PATH)")
    failures = []
    for k, s in enumerate(sigs):
        uf = getattr(typelattice, s.op)
        if s.scalar[0] or s.scalar[1]:
            continue  # weak scalars: test_weak_scalars
        if s.op in CPOW_DIVERGES and s.loop[0].startswith("complex"):
            continue  # test_complex_power_divergence_is_only_cpow
        a, b = operand_values(s)
        got, _ = run_host(lib, k, s, a, b)
        # the CPU's element functions: its libmvec (vector) arctan2 differs in the last bits
        typelattice._ufuncs.set_vmath(False)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = uf(a, b)
        finally:
            typelattice._ufuncs.set_vmath(None)
        want = want if isinstance(want, tuple) else (want,)
        # hardware half conversions quiet signaling NaNs and drop NaN signs: NaN inputs excluded
        bad = compare(s, got, want, True, _nan_inputs(a, b) if hw16 else _snan_halves(a, b))
        if bad is not None:
            i, idx = bad
            j = idx[0]
            failures.append(f"{s.tag()}: {idx.size} of {len(a)} differ, e.g. "
                            f"{s.op}({a[j]!r}, {b[j]!r}) -> out{i} {got[i][j]!r} "
                            f"(bits {bits(got[i])[j]}), CPU {want[i][j]!r} (bits {bits(want[i])[j]})")
    assert not failures, f"{len(failures)} signatures differ:\n" + "\n".join(failures[:40])


_PY = {int: [0, 1, -1, 2, 7, 127, -128, 255, 256, 65504, 65520, 2**31 - 1, 2**53 + 1,
             2**63 - 1, -2**63, 2**64 - 1],
       float: [0.0, -0.0, 0.1, 1.5, -2.5, 1e5, 65519.0, 65520.0, 1e-8, 3e38, 3.5e38, 1e300,
               np.inf, -np.inf, np.nan],
       complex: [1j, 0.5 - 2j, complex(np.inf, np.nan), complex(0.1, -0.0)]}


@pytest.mark.parametrize("hw16", [False, True], ids=["soft16", "hw16"])
def test_weak_scalars(libs, hw16):
    """A Python scalar converted on the host (typelattice.cuda._host_scalar) and passed by value
    gives the CPU ufunc's result with that scalar, and overflows exactly where it overflows."""
    from typelattice.cuda import _host_scalar
    lib, sigs = libs[hw16]
    if lib is None:
        pytest.skip("no CUDA include directory for a host build of cuda_fp16.h")
    failures = []
    for k, s in enumerate(sigs):
        if not (s.scalar[0] or s.scalar[1]):
            continue
        uf = getattr(typelattice, s.op)
        pos = 0 if s.scalar[0] else 1
        arr_t = s.ins[1 - pos]
        arr = edges(arr_t)
        loop_t = s.loop[pos]
        for kind_ in (int, float, complex):
            for v in _PY[kind_]:
                args = (v, arr) if pos == 0 else (arr, v)
                # only the scalars whose weak type resolves to this signature's loop
                from typelattice.cuda import resolve
                try:
                    loop = resolve(s.op, *(type(x) if x is v else x.dtype for x in args))
                except Exception:  # noqa: BLE001
                    continue
                if loop != s.loop:
                    continue
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        want = uf(*args)
                        cpu_err = None
                    except Exception as exc:  # noqa: BLE001 - compared below
                        cpu_err = exc
                    try:
                        _, val = _host_scalar(v, loop_t)
                        host_err = None
                    except Exception as exc:  # noqa: BLE001
                        host_err = exc
                if type(cpu_err) is not type(host_err):
                    failures.append(f"{s.tag()} {v!r}: CPU {cpu_err!r}, host {host_err!r}")
                    continue
                if cpu_err is not None:
                    continue
                sv = np.ascontiguousarray(np.broadcast_to(val, arr.shape))
                a, b = (sv, arr) if pos == 0 else (arr, sv)
                got, _ = run_host(lib, k, s, a, b)
                bad = compare(s, got, (want,), True,
                              _nan_inputs(a, b) if hw16 else None)
                if bad is not None:
                    j = bad[1][0]
                    failures.append(f"{s.tag()} with {v!r}: {got[0][j]!r} vs CPU {want[j]!r} "
                                    f"(array value {arr[j]!r})")
    assert not failures, "\n".join(failures[:40])


def test_division_by_zero_and_negative_power_flags(libs):
    """The flags the element functions raise (what the kernels turn into errors)."""
    from typelattice._cuda_codegen import Signature
    lib = libs[False][0]
    idx = {s: k for k, s in enumerate(SIGS)}
    s = Signature("power", ("int8", "int8"), (False, False), ("int8",) * 3)
    got, e = run_host(lib, idx[s], s, np.array([2], np.int8), np.array([-1], np.int8))
    assert e & 16   # TL_ERR_NEGPOW: the kernel raises ValueError as the CPU ufunc does
    with pytest.raises(ValueError):
        typelattice.power(np.array([2], np.int8), np.array([-1], np.int8))
    s = Signature("floor_divide", ("int32", "int32"), (False, False), ("int32",) * 3)
    got, e = run_host(lib, idx[s], s, np.array([7, -7], np.int32), np.array([0, 0], np.int32))
    assert e & 1 and list(got[0]) == [0, 0]


def test_complex_power_divergence_is_only_cpow(libs):
    """Complex power through exp(b*log(a)) (what CUDA runs) vs the CPU's cpow: small integer
    exponents are exact in both (npy_cpow's repeated multiplication); elsewhere finite results
    agree to a few ulp."""
    lib, sigs = libs[False]
    for k, s in enumerate(sigs):
        if not (s.op in CPOW_DIVERGES and s.loop[0].startswith("complex") and not any(s.scalar)
                and s.ins[0] == s.ins[1]):
            continue
        d = dtype(s.loop[0])
        rng = np.random.default_rng(0)
        a = (rng.standard_normal(500) + 1j * rng.standard_normal(500)).astype(d)
        b = np.concatenate([np.arange(-5, 5), rng.standard_normal(490) * 3
                            + 1j * rng.standard_normal(490)]).astype(d)
        got, _ = run_host(lib, k, s, a, b)
        with np.errstate(all="ignore"):
            want = getattr(typelattice, s.op)(a, b)
        ints = slice(0, 10)
        assert compare(s, [got[0][ints]], [want[ints]], True) is None, s.tag()
        rtol = 1e-5 if d == np.complex64 else 1e-13
        np.testing.assert_allclose(got[0], want, rtol=rtol, err_msg=s.tag())
