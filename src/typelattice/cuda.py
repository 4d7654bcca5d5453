"""typelattice ops on CuPy arrays: the CPU ufuncs' dtypes, computed by generated CUDA kernels.

``typelattice.cuda.add(x, y, out=None)`` etc., one callable per binary op of ``typelattice._ops``
(aliases included). The result dtypes are the CPU ufuncs' (asked from ``ufunc.resolve_dtypes`` with
Python int/float/complex as weak types, or from the same op description when the CPU ufuncs are not
built); the values come from the same element functions (``kernels/tl_elem.h``) compiled by NVRTC.

* Broadcasting as NumPy, ``out=`` (an array, or a tuple for divmod); an ``out`` of another dtype
  gets the result through CuPy's cast when NumPy's ``same_kind`` rule allows it.
* Python scalars are weak and become kernel arguments of the loop dtype, converted on the host
  exactly as NumPy converts them for the CPU ufunc (``int8_array + 1000`` raises OverflowError).
  NumPy scalars and 0-d arrays are strong. NumPy arrays are refused, as CuPy refuses them.
* One kernel per (op, operand dtypes, scalar positions, loop dtypes): operands are read in their own
  dtype and converted inline (int8 + float16 reads int8 and float16 and writes float16). Compiled
  with ``--fmad=false -ftz=false`` (NumPy contracts nothing and keeps subnormals), cached on disk
  (``$TYPELATTICE_CUDA_CACHE`` or ``~/.cache/typelattice/cuda``) and per device in memory.
* Differences from the CPU ufuncs: no floating-point warnings (as CuPy), NaN payloads are the GPU's
  canonical NaN; integer ``power`` to a negative exponent raises ValueError as on the CPU.

Without CuPy, without NVRTC or without a device, importing this module works; calling an op raises
``CudaUnavailableError`` naming what is missing.

The CPU ufuncs handed CuPy arrays: CuPy's ``ndarray.__array_ufunc__`` looks the ufunc up as
``getattr(cupy, ufunc.__name__)``. The CPU ufuncs are named ``'<rules>.<op>'`` (``'jax.add'``),
which CuPy does not define, so importing this module registers ``cupy.'jax.add'`` etc. and
``typelattice.add(cupy_x, 1)`` runs here; before that import it raises NumPy's TypeError (never
CuPy's own ``add`` with NumPy's rules). ``route(ufunc)`` does the same for ``make_ufuncs(rules)``.
"""
import functools
import hashlib
import math
import os
import threading

import numpy as np

from . import _cuda_codegen as cg
from ._dtypes import materialized_name, name_of_dtype
from ._errors import python_int_overflow
from ._ops import ALIASES, FIRST_INEXACT, OPS, OPS_BY_NAME, _NoPromotion

__all__ = ["CudaUnavailableError", "available", "why_unavailable", "kernel_source",
           "cupy_routes", "route"]


class CudaUnavailableError(RuntimeError):
    """The CUDA path cannot run here (no CuPy, no NVRTC, no CUDA headers or no device)."""


_INSTALL_HINT = ("install the extra: pip install 'typelattice[cuda]' (cupy-cuda12x, "
                 "nvidia-cuda-nvrtc-cu12, nvidia-cuda-runtime-cu12)")


def _cupy():
    try:
        import cupy
    except ImportError as exc:
        raise CudaUnavailableError(f"typelattice.cuda needs CuPy, which is not installed: "
                                   f"{_INSTALL_HINT}") from exc
    return cupy


def why_unavailable():
    """None when kernels can run here, else the reason (a sentence)."""
    try:
        cupy = _cupy()
    except CudaUnavailableError as exc:
        return str(exc)
    try:
        ok = cupy.is_available()
    except Exception as exc:  # noqa: BLE001 - any driver failure means "not available"
        return f"CuPy cannot reach a CUDA device: {exc}"
    if not ok:
        return ("no usable CUDA device: cupy.is_available() is False (no GPU, or no NVIDIA driver "
                "matching CuPy's CUDA runtime)")
    try:
        nvrtc_version()
    except CudaUnavailableError as exc:
        return str(exc)
    return None


def available():
    return why_unavailable() is None


_ready = False


def _ensure_ready():
    """Raise CudaUnavailableError (naming what is missing) unless kernels can run."""
    global _ready
    if _ready:
        return
    reason = why_unavailable()
    if reason is not None:
        raise CudaUnavailableError(f"typelattice.cuda cannot run: {reason}")
    _ready = True


# ---- compiling ------------------------------------------------------------------------------------

def nvrtc_version():
    cupy = _cupy()
    try:
        return tuple(cupy.cuda.nvrtc.getVersion())
    except Exception as exc:  # noqa: BLE001
        raise CudaUnavailableError(f"NVRTC (CUDA's run-time compiler) cannot be loaded: {exc}; "
                                   f"{_INSTALL_HINT}") from exc


def _candidate_include_dirs():
    dirs = []
    try:
        import nvidia.cuda_runtime  # CUDA 12 wheels
        for p in nvidia.cuda_runtime.__path__:
            dirs.append(os.path.join(p, "include"))
    except ImportError:
        pass
    try:
        import nvidia  # CUDA 13 wheels: nvidia/cu13/include
        for p in getattr(nvidia, "__path__", []):
            for sub in sorted(os.listdir(p)):
                if sub.startswith("cu1") and sub[2:].isdigit():
                    dirs.append(os.path.join(p, sub, "include"))
    except (ImportError, OSError):
        pass
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            dirs.append(os.path.join(os.environ[env], "include"))
    try:
        from cupy import _environment
        root = _environment.get_cuda_path()
        if root:
            dirs.append(os.path.join(root, "include"))
    except Exception:  # noqa: BLE001
        pass
    dirs.append("/usr/local/cuda/include")
    return [d for d in dict.fromkeys(dirs) if os.path.isfile(os.path.join(d, "cuda_fp16.h"))]


def _cudart_major(include_dir):
    try:
        with open(os.path.join(include_dir, "cuda_runtime_api.h"), encoding="utf-8",
                  errors="replace") as f:
            for line in f:
                if line.startswith("#define CUDART_VERSION"):
                    return int(line.split()[2]) // 1000
    except (OSError, ValueError, IndexError):
        pass
    return None


def cuda_include_dir(major=None):
    """A directory with cuda_fp16.h/cuda_bf16.h, preferring CUDA ``major`` (NVRTC's)."""
    dirs = _candidate_include_dirs()
    if not dirs:
        raise CudaUnavailableError("no CUDA headers (cuda_fp16.h) found for NVRTC: pip install "
                                   "nvidia-cuda-runtime-cu12, or set CUDA_PATH")
    if major is not None:
        for d in dirs:
            if _cudart_major(d) == major:
                return d
    return dirs[0]


def compile_options(include_dir=None):
    # NumPy neither contracts a*b+c into an FMA nor flushes subnormals; CuPy's own RawModule(code=)
    # appends -ftz=true, which is why we compile here and load the binary with RawModule(path=).
    inc = (f"-I{include_dir}",) if include_dir else ()
    return ("--std=c++17",) + inc + ("--fmad=false", "-ftz=false", "-prec-div=true",
                                     "-prec-sqrt=true", "-default-device")


def nvrtc_compile(source, arch, name="typelattice.cu"):
    """Compile with NVRTC for compute capability ``arch`` (e.g. 80): (binary, 'cubin' | 'ptx').

    Needs no device (the tests use it for sm_80/sm_90 here). An arch newer than this NVRTC gets
    PTX for the newest one it knows, which the driver compiles on load."""
    cupy = _cupy()
    nvrtc = cupy.cuda.nvrtc
    major = nvrtc_version()[0]
    # cuda_fp16.h/cuda_bf16.h are only needed by TYPELATTICE_CUDA_HW16 sources
    opts = compile_options(cuda_include_dir(major) if "#include <cuda_fp16.h>" in source
                           and "#define TL_NO_HW16" not in source else None)
    supported = tuple(nvrtc.getSupportedArchs())
    arch = int(arch)
    if arch in supported:
        opts += (f"-arch=sm_{arch}",)
        kind = "cubin"
    else:
        older = [a for a in supported if a <= arch] or [min(supported)]
        opts += (f"-arch=compute_{max(older)}",)
        kind = "ptx"
    prog = nvrtc.createProgram(source, name, (), ())
    try:
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as exc:
            log = nvrtc.getProgramLog(prog)
            raise RuntimeError(f"NVRTC failed on generated typelattice kernel ({exc}):\n{log}"
                               ) from None
        binary = nvrtc.getCUBIN(prog) if kind == "cubin" else nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    if isinstance(binary, str):
        binary = binary.encode()
    return binary, kind


def _cache_dir():
    d = os.environ.get("TYPELATTICE_CUDA_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "typelattice", "cuda")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:     # read-only home: a per-user temporary directory
        import tempfile
        d = os.path.join(tempfile.gettempdir(), f"typelattice-cuda-{os.getuid()}")
        os.makedirs(d, exist_ok=True)
    return d


HW16 = os.environ.get("TYPELATTICE_CUDA_HW16") == "1"


def kernel_source(sig, hw16=None):
    """(source, namespace) of the module for one ``_cuda_codegen.Signature``.

    ``hw16`` (default: ``TYPELATTICE_CUDA_HW16=1``): float16/bfloat16 conversions by the hardware
    (cuda_fp16.h/cuda_bf16.h) instead of the shared software ones; equal for non-NaN values."""
    if hw16 is None:
        hw16 = HW16
    src, names = cg.module_source([sig], hw16=hw16)
    return src, names[0]


_modules = {}
_lock = threading.Lock()


def _module(sig, device_id, arch):
    key = (sig, device_id)
    mod = _modules.get(key)
    if mod is not None:
        return mod
    with _lock:
        mod = _modules.get(key)
        if mod is not None:
            return mod
        cupy = _cupy()
        src, ns = kernel_source(sig)
        opts_key = repr((nvrtc_version(), arch, compile_options()))
        digest = hashlib.sha256((src + opts_key).encode()).hexdigest()[:32]
        path = None
        for ext in ("cubin", "ptx"):
            p = os.path.join(_cache_dir(), f"{digest}.{ext}")
            if os.path.exists(p):
                path = p
        if path is None:
            binary, kind = nvrtc_compile(src, arch)
            path = os.path.join(_cache_dir(), f"{digest}.{kind}")
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(binary)
            os.replace(tmp, path)
        with cupy.cuda.Device(device_id):
            raw = cupy.RawModule(path=path)
            mod = (raw, {k: raw.get_function(f"{ns}_{k}") for k in ("k1_i32", "k1_i64", "kn")})
        _modules[key] = mod
        return mod


# ---- dtype resolution -------------------------------------------------------------------------------

_PY_WEAK = (int, float, complex)
_resolved = {}


def _is_weak(t):
    # identity, not ==: np.dtype('int64') == int is True
    return t is int or t is float or t is complex


def _type_key(t):
    return t.__name__ if _is_weak(t) else name_of_dtype(t)


def _cpu_ufunc(name):
    import typelattice
    uf = getattr(typelattice, name, None)
    return uf if isinstance(uf, np.ufunc) else None


def _rules_of(uf):
    """The rule set of a typelattice CPU ufunc (a rule set made at run time has no name to look
    up: a set named 'torch' is not torch)."""
    import typelattice
    info = typelattice.ufunc_info(uf) if uf is not None else None
    return info[1] if info is not None else typelattice.get_rules()


def resolve(opname, t1, t2, ufunc=None):
    """Kernel dtypes (compute in0, compute in1, out0[, out1]) of ``opname`` for operand types
    ``t1``, ``t2`` (np.dtype, or the Python types int/float/complex for weak scalars).

    The CPU ufunc (``ufunc``, default ``typelattice.<opname>``) decides: its ``resolve_dtypes``
    gives the output dtypes and raises its errors. Its loops may read operands in their own dtype
    (blocked loops), so the compute dtypes come from the op description and rule set the CPU
    promoter applies (``_ops.Op.resolve`` with the compiled join), checked against its outputs."""
    key = (opname, _type_key(t1), _type_key(t2), ufunc)    # (a user set may share a name)
    hit = _resolved.get(key)
    if hit is not None:
        return hit
    import typelattice
    op = OPS_BY_NAME[opname]
    uf = ufunc if ufunc is not None else _cpu_ufunc(opname)
    rules = _rules_of(uf)
    outs = None
    if uf is not None:
        dts = uf.resolve_dtypes((t1, t2) + (None,) * op.nout)
        outs = tuple(name_of_dtype(d) for d in dts[2:])

    def name(t):
        if _is_weak(t):
            return rules.python_scalars[t.__name__]
        n = name_of_dtype(t)
        # (a type the rule set reads as another, as the CPU promoter names it: jax32's uint64
        # is uint32, so ldexp of it computes in float32)
        canon = rules.aliases.get(n)
        return canon if canon is not None and canon in rules.index else n

    materialize = functools.partial(materialized_name, rules)

    try:
        # (ldexp's exponent is taken whole, jax32's uint64 too, as the CPU ufunc takes it)
        exponent = op.rule == FIRST_INEXACT and not _is_weak(t2)
        res = tuple(op.resolve(name(t1), name_of_dtype(t2) if exponent else name(t2),
                               rules.join_names, materialize))
    except _NoPromotion as exc:
        if outs is not None:
            raise TypeError(f"typelattice.cuda.{opname} has no CUDA kernel for operands "
                            f"({t1}, {t2}) (the CPU ufunc gives {outs})") from None
        raise typelattice.TypePromotionError(exc.operands, rules) from None
    if outs is not None and res[2:] != outs:
        raise RuntimeError(f"typelattice.{opname}{(t1, t2)}: the CPU ufunc gives {outs}, the op "
                           f"description {res[2:]}: they must agree")
    for t in res:
        if t not in cg.STORAGE:
            raise TypeError(f"typelattice.cuda.{opname} has no CUDA kernel for {t} "
                            f"(operands {t1}, {t2})")
    _resolved[key] = res
    return res


# ---- the ops ----------------------------------------------------------------------------------------

def _host_scalar(value, loop_t):
    """A by-value operand converted to the loop dtype as NumPy converts it for the CPU ufunc:
    returns (kernel arguments, the 0-d NumPy value)."""
    dt = cg_dtype(loop_t)
    if isinstance(value, (np.generic, np.ndarray)):
        v = np.asarray(value).astype(dt)
    else:
        v = np.asarray(value, dtype=dt)   # OverflowError for out-of-range Python ints
    if loop_t in cg.HALF:
        return (v.view(np.uint16)[()],), v
    if loop_t == "bool":
        return (np.uint8(v[()]),), v
    if loop_t.startswith("complex"):
        part = np.float32 if loop_t == "complex64" else np.float64
        return (part(v.real[()]), part(v.imag[()])), v
    return (v[()],), v


def cg_dtype(name):
    if name in ("bfloat16",):
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _elem_strides(a, shape):
    """Element strides of cupy array ``a`` broadcast to ``shape`` (None: needs a copy)."""
    nd = len(shape)
    pad = nd - a.ndim
    item = a.itemsize
    out = []
    for d in range(nd):
        if d < pad:
            out.append(0)
            continue
        n, s = a.shape[d - pad], a.strides[d - pad]
        if n == 1:
            out.append(0)
        elif s % item:
            return None
        else:
            out.append(s // item)
    return out


def _collapse(shape, strides):
    """Drop unit dims and merge dims contiguous for every operand."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    shp = [shape[d] for d in dims]
    sts = [[s[d] for d in dims] for s in strides]
    i = len(shp) - 2
    while i >= 0:
        if all(s[i] == s[i + 1] * shp[i + 1] for s in sts):
            shp[i] *= shp[i + 1]
            for s in sts:
                s[i] = s[i + 1]
                del s[i + 1]
            del shp[i + 1]
        i -= 1
    return shp, sts


_sm_count = {}


def _launch_geometry(n, device_id, cupy):
    block = 256
    sms = _sm_count.get(device_id)
    if sms is None:
        sms = cupy.cuda.Device(device_id).attributes["MultiProcessorCount"]
        _sm_count[device_id] = sms
    return min(max(1, -(-n // block)), sms * 32), block


def _kernel_1d(n, strides, threads):
    """The 1-D kernel for n elements at these element strides on ``threads`` threads: the 32-bit
    index one where every offset and the grid-stride index itself stay below 2**31 (the loop's
    last ``i += step`` reaches n - 1 + threads; past INT_MAX it wraps negative)."""
    reach = max([abs(v) for v in strides] + [1]) * n
    return "k1_i32" if reach < 2**31 and n + threads <= 2**31 else "k1_i64"


def _arch(device_id, cupy):
    return int(cupy.cuda.Device(device_id).compute_capability)


class CudaOp:
    """A typelattice op on CuPy arrays (``typelattice.cuda.<name>``)."""

    def __init__(self, op, name=None, ufunc=None):
        self._op = op
        self._ufunc = ufunc          # the CPU ufunc whose dtypes to follow (None: typelattice.<op>)
        self.__name__ = name or op.name
        self.__qualname__ = self.__name__
        self.nin = op.nin
        self.nout = op.nout
        self.__doc__ = (f"{self.__name__}(x1, x2, /, out=None): typelattice.{op.name} on CuPy "
                        f"arrays (same result dtypes and element semantics as the CPU ufunc).")

    def __repr__(self):
        return f"<typelattice.cuda op {self.__name__!r}>"

    def __reduce__(self):
        if self._ufunc is not None:
            return route, (self._ufunc,)
        return self.__name__

    def __call__(self, x1, x2, /, out=None, **kwargs):
        if kwargs:
            raise TypeError(f"typelattice.cuda.{self.__name__} supports only out=, not "
                            + ", ".join(sorted(kwargs)))
        cupy = _cupy()
        _ensure_ready()
        op = self._op
        operands = (x1, x2)
        types, arrays = [], []
        for x in operands:
            if isinstance(x, cupy.ndarray):
                types.append(x.dtype)
                arrays.append(x)
            elif _is_weak(type(x)):
                types.append(type(x))
            elif isinstance(x, (bool, np.bool_)) or (isinstance(x, (np.generic, np.ndarray))
                                                     and np.ndim(x) == 0):
                types.append(np.asarray(x).dtype)
            elif isinstance(x, np.ndarray):
                raise TypeError(f"typelattice.cuda.{self.__name__}: a NumPy array operand would "
                                "need an implicit host-to-device copy; use cupy.asarray(x)")
            else:
                raise TypeError(f"typelattice.cuda.{self.__name__}: unsupported operand type "
                                f"{type(x).__name__}")
        outs = self._outs(out, cupy)
        if not arrays and not any(o is not None for o in outs):
            raise TypeError(f"typelattice.cuda.{self.__name__} needs at least one CuPy array; "
                            f"use typelattice.{self._op.name} for host values")
        loop = resolve(op.name, types[0], types[1], self._ufunc)
        n_in = 2
        res_types = loop[n_in:]
        # shape and device
        shapes = [a.shape for a in arrays] + [o.shape for o in outs if o is not None]
        try:
            shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise ValueError(f"operands could not be broadcast together with shapes "
                             + " ".join(str(s) for s in shapes)) from None
        devs = {a.device.id for a in arrays} | {o.device.id for o in outs if o is not None}
        if len(devs) > 1:
            raise ValueError(f"typelattice.cuda.{self.__name__}: operands on different devices "
                             f"{sorted(devs)}")
        dev = devs.pop()
        with cupy.cuda.Device(dev):
            return self._run(cupy, operands, loop, res_types, shape, outs, dev)

    def _outs(self, out, cupy):
        nout = self._op.nout
        if out is None:
            return [None] * nout
        if not isinstance(out, tuple):
            out = (out,)
        if len(out) != nout:
            raise ValueError(f"typelattice.cuda.{self.__name__} has {nout} output(s), got "
                             f"{len(out)}")
        for o in out:
            if o is not None and not isinstance(o, cupy.ndarray):
                raise TypeError("out must be a CuPy array")
        return list(out)

    def _run(self, cupy, operands, loop, res_types, shape, outs, dev):
        op = self._op
        # outputs: the given ones if their dtype is the result's, else a temporary + cast
        finals, targets = [], []
        for o, t in zip(outs, res_types):
            dt = cg_dtype(t)
            if o is not None and tuple(o.shape) != shape:
                raise ValueError(f"non-broadcastable output operand with shape {o.shape} "
                                 f"doesn't match the broadcast shape {shape}")
            if o is None:
                finals.append(None)
                targets.append(cupy.empty(shape, dtype=dt))
            elif o.dtype == dt:
                finals.append(None)
                targets.append(o)
            else:
                if not np.can_cast(dt, o.dtype, casting="same_kind"):
                    raise TypeError(f"Cannot cast typelattice.cuda.{self.__name__} output from "
                                    f"{dt!r} to {o.dtype!r} with casting rule 'same_kind'")
                finals.append(o)
                targets.append(cupy.empty(shape, dtype=dt))
        # operands: arrays read in place (copied if an output overlaps them differently)
        ins, scal, args_in, arrays = [], [], [], []
        rules = _rules_of(self._ufunc or _cpu_ufunc(op.name))
        for k, x in enumerate(operands):
            canon = rules.aliases.get(name_of_dtype(x.dtype)) if isinstance(
                x, (cupy.ndarray, np.generic, np.ndarray)) and x.dtype.kind in "biufc" else None
            if canon is not None and canon in rules.index and not (
                    op.rule == FIRST_INEXACT and k == 1):
                # a type the rule set reads as another (jax32: int64 is int32, wrapped), as the
                # CPU ufunc's canon loops read it; ldexp's exponent stays whole there too
                x = x.astype(cg_dtype(canon))
            if isinstance(x, cupy.ndarray):
                for t in targets:
                    if x is not t and cupy.may_share_memory(x, t) and not (
                            x.data.ptr == t.data.ptr and x.shape == t.shape
                            and x.strides == t.strides):
                        x = x.copy()
                        break
                if _elem_strides(x, shape) is None:
                    x = cupy.ascontiguousarray(x)
                ins.append(name_of_dtype(x.dtype))
                scal.append(False)
                args_in.append(x)
                arrays.append(x)
            else:
                try:
                    a, _ = _host_scalar(x, loop[k])
                except OverflowError as e:
                    new = (python_int_overflow(f"typelattice.cuda.{self.__name__}", operands, x,
                                               cg_dtype(loop[k]), rules.name)
                           if type(x) is int else None)
                    if new is None:
                        raise
                    raise new from e
                ins.append(loop[k])
                scal.append(True)
                args_in.extend(a)
        sig = cg.Signature(op.name, tuple(ins), tuple(scal), tuple(loop))
        n = math.prod(shape)
        if n:
            self._launch(cupy, sig, args_in, arrays, targets, shape, n, dev)
        for f, t in zip(finals, targets):
            if f is not None:
                f[...] = t
        results = [f if f is not None else t for f, t in zip(finals, targets)]
        return results[0] if op.nout == 1 else tuple(results)

    def _launch(self, cupy, sig, args_in, arrays, targets, shape, n, dev):
        all_ops = arrays + targets
        strides = [_elem_strides(a, shape) for a in all_ops]
        for t, s in zip(targets, strides[len(arrays):]):
            if s is None:
                raise ValueError("out has strides that are not a multiple of its itemsize")
        shp, sts = _collapse(list(shape), strides)
        _, fns = _module(sig, dev, _arch(dev, cupy))
        negpow = sig.op == "power" and sig.loop[0] not in ("float16", "bfloat16", "float32",
                                                            "float64", "complex64", "complex128")
        err = cupy.zeros(1, dtype=np.uint32) if negpow else np.uintp(0)
        grid, block = _launch_geometry(n, dev, cupy)
        if len(shp) <= 1:
            s = [st[0] if st else 0 for st in sts]
            fn = fns[_kernel_1d(n, s, grid * block)]
            args = (np.int64(n), *args_in, *targets, *(np.int64(v) for v in s), err)
            fn((grid,), (block,), args)
        else:
            if len(shp) > cg.MAXDIM:
                raise ValueError(f"typelattice.cuda supports at most {cg.MAXDIM} dimensions "
                                 "after merging contiguous ones")
            meta = cupy.asarray(np.array(shp + [v for st in sts for v in st], dtype=np.int64))
            args = (np.int64(n), np.int32(len(shp)), meta, *args_in, *targets, err)
            fns["kn"]((grid,), (block,), args)
        if negpow and int(err.get()[0]):
            raise ValueError("Integers to negative integer powers are not allowed.")


_BINARY = [op for op in OPS if op.nin == 2]
OPS_CUDA = {}
for _op in _BINARY:
    OPS_CUDA[_op.name] = globals()[_op.name] = CudaOp(_op)
    __all__.append(_op.name)
for _alias, _target in ALIASES.items():
    if _target in OPS_CUDA:
        OPS_CUDA[_alias] = globals()[_alias] = CudaOp(OPS_BY_NAME[_target], _alias)
        __all__.append(_alias)
del _op


# ---- CPU ufuncs handed CuPy arrays -------------------------------------------------------------------

def cupy_routes():
    """How CuPy dispatches each typelattice CPU ufunc called with CuPy arrays.

    CuPy's ``ndarray.__array_ufunc__`` runs ``getattr(cupy, ufunc.__name__)``. Returns
    {op name: 'typelattice.cuda' | 'cupy (NumPy rules!)' | 'TypeError (no route)'}."""
    cupy = _cupy()
    report = {}
    for name in OPS_CUDA:
        uf = _cpu_ufunc(name)
        if uf is None:
            continue
        target = getattr(cupy, uf.__name__, None)
        if isinstance(target, CudaOp):
            report[name] = "typelattice.cuda"
        elif target is None:
            report[name] = "TypeError (no route)"
        else:
            report[name] = "cupy (NumPy rules!)"
    return report


def route(ufunc):
    """The typelattice.cuda op computing ``ufunc`` (a typelattice CPU ufunc, of any rule set) on
    CuPy arrays, with that ufunc's dtypes; registered with CuPy under the ufunc's ``__name__`` so
    that ``ufunc(cupy_array, ...)`` runs it. Refuses a name CuPy already uses for its own function
    (CuPy would call that one, with NumPy's rules)."""
    import typelattice
    cupy = _cupy()
    name = ufunc.__name__
    opname = name.rsplit(".", 1)[-1]
    opname = ALIASES.get(opname, opname)
    if opname not in OPS_CUDA or not isinstance(ufunc, np.ufunc):
        raise TypeError(f"{ufunc!r} is not a typelattice binary ufunc")
    current = getattr(cupy, name, None)
    if isinstance(current, CudaOp) and current._ufunc in (None, ufunc):
        return current
    if current is not None:
        raise RuntimeError(f"CuPy defines cupy.{name}: it would run that function, with NumPy's "
                           f"rules, for {ufunc!r} on CuPy arrays; give the ufunc another name")
    default = getattr(typelattice, opname, None) is ufunc
    cop = OPS_CUDA[opname] if default else CudaOp(OPS_BY_NAME[opname], name, ufunc)
    setattr(cupy, name, cop)
    return cop


def _install_cupy_routes():
    """Point CuPy's by-name lookup at our ops for every default CPU ufunc (``jax.add``...).

    A CPU ufunc whose ``__name__`` is a CuPy function (``add``) cannot be routed: CuPy would run
    its own function with NumPy's rules. ``cupy_routes()`` reports which case applies."""
    try:
        import cupy
    except ImportError:
        return
    for name in OPS_CUDA:
        uf = _cpu_ufunc(name)
        if uf is None or hasattr(cupy, uf.__name__):
            continue
        route(uf)


_install_cupy_routes()
