"""typelattice's ufuncs against NumPy (and ml_dtypes' loops, which NumPy runs for bfloat16).

Every benchmark has an ``impl`` parameter so that asv shows the columns side by side:
  tl         typelattice
  tl_same    typelattice on operands already of the promoted dtype (what promotion must not cost)
  np         NumPy with the same operands (for bfloat16 operands: ml_dtypes' loops)
  np_dtype   NumPy forced to typelattice's promoted dtype (signature= / dtype=)
  np_astype  NumPy on operands cast with astype to the promoted dtype (casts included)
Combinations an op does not define raise NotImplementedError in setup (asv shows them as n/a).
From 1e5 elements on, every column writes into a preallocated, page-placed out= array (see _out).
"""
import functools
import time

import numpy as np

from .common import (BIG, DTYPES, MIXED_OPS, MIXED_PAIRS, OPS, SIZES, UFUNCS, WEAK, array, dtype,
                     forced_kwargs, np_ufunc, operands, placed, probe, result_dtype, tl_ufunc,
                     typelattice)

# The guard: a typelattice ufunc without an OPS entry has no benchmark. Fail loudly.
_missing = sorted(set(UFUNCS) - set(OPS))
if _missing:
    raise RuntimeError(f"typelattice ufuncs without a benchmark: {', '.join(_missing)}; add them "
                       "to OPS in benchmarks/benchmarks/common.py")


OUT_MIN_SIZE = 10**5


def _out(r, args):
    """From 1e5 elements on, a preallocated out= (page offset 3072) for a result like r: where
    malloc puts a fresh result changed NumPy's speed by up to 2x through 4K aliasing with an
    input, an accident the suite should not measure (allocation costs both sides the same)."""
    n = max((x.size for x in args if isinstance(x, np.ndarray)), default=0)
    if n < OUT_MIN_SIZE or r is None:
        return {}
    rs = r if isinstance(r, tuple) else (r,)
    o = tuple(placed(np.zeros(n, x.dtype), 3072 + 64 * i) for i, x in enumerate(rs))
    return {"out": o if len(o) > 1 else o[0]}


def _columns(op, args, impl, weak=False):
    """A zero-argument callable for the given column, or NotImplementedError."""
    tl_f = tl_ufunc(op)
    r = probe(tl_f, args)
    if r is None:
        raise NotImplementedError(f"{op} not defined for these operands")
    if impl == "tl":
        return functools.partial(tl_f, *args, **_out(r, args))
    R = result_dtype(r)
    C = typelattice.result_type(*args)
    if impl == "tl_same":
        conv = [placed(x.astype(C), 1024 * (1 + i)) if isinstance(x, np.ndarray) and x.ndim
                else x.astype(C) if isinstance(x, np.ndarray) else C.type(x)
                for i, x in enumerate(args)]
        return functools.partial(tl_f, *conv, **_out(r, args))
    np_f = np_ufunc(op)
    if impl == "np":
        rn = probe(np_f, args)
        if rn is None:
            raise NotImplementedError("numpy rejects these operands")
        return functools.partial(np_f, *args, **_out(rn, args))
    if impl == "np_dtype":
        kw = forced_kwargs(np_f, args, C, R)
        if kw is None:
            raise NotImplementedError("numpy cannot be forced to this dtype")
        return functools.partial(np_f, *args, **kw, **_out(r, args))
    if impl == "np_astype":
        rn = probe(np_f, [x.astype(C) if isinstance(x, np.ndarray) else x for x in args])
        if rn is None:
            raise NotImplementedError("numpy rejects the promoted operands")
        out = _out(rn, args)
        if len(args) == 1:
            a, = args
            return lambda: np_f(a.astype(C, copy=False), **out)
        a, b = args
        if isinstance(b, np.ndarray):
            return lambda: np_f(a.astype(C, copy=False), b.astype(C, copy=False), **out)
        return lambda: np_f(a.astype(C, copy=False), b, **out)
    raise NotImplementedError(impl)


class Binary:
    """Every op x same-dtype operands at 1e5 elements (cache-resident: the kernels' own speed):
    typelattice vs NumPy (ml_dtypes for bfloat16)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [list(OPS), DTYPES, [10**5], ["tl", "np"]]
    param_names = ["op", "dtype", "size", "impl"]
    timeout = 120

    def setup(self, op, dt, n, impl):
        f = tl_ufunc(op)
        self.call = _columns(op, operands(op, [dt] * f.nin, n), impl)

    def time_call(self, op, dt, n, impl):
        self.call()


class BinarySizes(Binary):
    """Every op at the other sizes (call overhead at 1 and 1e3, memory bound at 1e7), for
    float32 and the two 16-bit floats NumPy is slow at."""
    params = [list(OPS), ["float32", "float16", "bfloat16"], [1, 10**3, 10**7], ["tl", "np"]]


class Mixed:
    """Mixed-dtype operands: the promoted call must cost no more than the same-dtype one."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [MIXED_OPS, MIXED_PAIRS, SIZES, ["tl", "tl_same", "np", "np_dtype", "np_astype"]]
    param_names = ["op", "dtypes", "size", "impl"]
    timeout = 120

    def setup(self, op, pair, n, impl):
        self.call = _columns(op, operands(op, pair.split("+"), n), impl)

    def time_call(self, op, pair, n, impl):
        self.call()


class MixedMasked:
    """Mixed-dtype calls with where= (and out=), which NumPy's machinery runs, not typelattice's
    call path: bool < float16 and int64 + int8, whose loops NumPy's dispatch does not hold for
    that order, run the mirrored op's loop on the swapped operands there. The mask alternates
    runs of 64 elements (a random mask makes NumPy's masked iteration itself the cost)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [MIXED_OPS, ["bool+float16", "int64+int8", "float16+float32"], [10**5],
              ["tl", "tl_same", "np"]]
    param_names = ["op", "dtypes", "size", "impl"]

    def setup(self, op, pair, n, impl):
        args = operands(op, pair.split("+"), n)
        r = probe(tl_ufunc(op), args)
        if r is None:
            raise NotImplementedError(f"{op} not defined for these operands")
        if impl == "tl_same":
            C = typelattice.result_type(*args)
            args = [x.astype(C) for x in args]
        f = tl_ufunc(op) if impl != "np" else np_ufunc(op)
        if impl == "np" and probe(f, args) is None:
            raise NotImplementedError("numpy rejects these operands")
        out = placed(np.zeros(n, (probe(f, args)).dtype), 3072)
        where = (np.arange(n) // 64) % 2 == 0
        self.call = functools.partial(f, *args, out=out, where=where)

    def time_call(self, op, pair, n, impl):
        self.call()


class WeakScalar:
    """Array with a Python scalar (weak): tl_same is the call with a NumPy scalar of the result
    dtype."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [MIXED_OPS, WEAK, SIZES, ["tl", "tl_same", "np", "np_dtype"]]
    param_names = ["op", "case", "size", "impl"]
    timeout = 120

    def setup(self, op, case, n, impl):
        dt, s = case.split("+")
        s = float(s) if "." in s else int(s)
        a = operands(op, [dt], n)[0]
        self.call = _columns(op, [a, s], impl)

    def time_call(self, op, case, n, impl):
        self.call()


class LogicalWithScalar:
    """A logical op of a bool array and a scalar of another type, or of an array and a Python
    bool: typelattice reads the scalar's truth once (its (bool, x) loop's stride-0 paths)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [["logical_and", "logical_xor"], ["bool+2.5", "bool+3", "float64+True",
                                               "int8+False"],
              [10**3, 10**5], ["tl", "np"]]
    param_names = ["op", "case", "size", "impl"]
    timeout = 120

    def setup(self, op, case, n, impl):
        dt, s = case.split("+")
        s = {"True": True, "False": False}.get(s) if s in ("True", "False") else \
            float(s) if "." in s else int(s)
        a = operands(op, [dt], n)[0]
        self.call = _columns(op, [a, s], impl)

    def time_call(self, op, case, n, impl):
        self.call()


class DivideByScalar:
    """Integer floor_divide / remainder / divmod of an array by one Python int (NumPy's loops
    multiply by a magic number for it, as typelattice's do)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [["floor_divide", "remainder", "divmod"],
              ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"],
              [10**3, 10**5], ["tl", "np"]]
    param_names = ["op", "dtype", "size", "impl"]
    timeout = 120

    def setup(self, op, dt, n, impl):
        a = operands(op, [dt], n)[0]
        self.call = _columns(op, [a, 7], impl)

    def time_call(self, op, dt, n, impl):
        self.call()


SMALL = {
    "0d_f32+0d_f32": (("float32", 0), ("float32", 0)),
    "1_f32+1_f32": (("float32", 1), ("float32", 1)),
    "1_f32+pyfloat": (("float32", 1), 1.5),
    "0d_f32+pyfloat": (("float32", 0), 1.5),
    "1_i8+pyint": (("int8", 1), 1),
    "1_bf16+pyfloat": (("bfloat16", 1), 1.0),
    "1_i8+1_f16": (("int8", 1), ("float16", 1)),
    "0d_i32+0d_f32": (("int32", 0), ("float32", 0)),
    "1_u8+1_i8": (("uint8", 1), ("int8", 1)),
    "1_i64+1_bf16": (("int64", 1), ("bfloat16", 1)),
    "1_f32+npf32": (("float32", 1), np.float32(1.5)),
    "npf64+npf64": (np.float64(1.5), np.float64(2.5)),
}


class SmallCalls:
    """Call overhead: 0-d, 1 element, with a Python scalar, mixed. np_same: NumPy with operands
    already of the promoted dtype (the target for mixed calls)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [MIXED_OPS, list(SMALL), ["tl", "np", "np_same"]]
    param_names = ["op", "case", "impl"]

    def setup(self, op, case, impl):
        args = [array(x[0], x[1], role=i) if isinstance(x, tuple) else x
                for i, x in enumerate(SMALL[case])]
        if impl == "np_same":
            if not all(isinstance(x, np.ndarray) for x in args):
                raise NotImplementedError("same as np for a Python scalar")
            tl_ufunc(op)
            C = typelattice.result_type(*args)
            args = [placed(x.astype(C), 1024 * (1 + i)) if x.ndim else x.astype(C)
                    for i, x in enumerate(args)]
            impl = "np"
        self.call = _columns(op, args, impl)

    def time_call(self, op, case, impl):
        self.call()


class InPlace:
    """In place on small arrays (out= the first operand): the keyword path of the call."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [MIXED_OPS, [1, 100, 10**3], ["tl", "np"]]
    param_names = ["op", "size", "impl"]

    def setup(self, op, n, impl):
        f = tl_ufunc(op) if impl == "tl" else np_ufunc(op)
        # its own copy (the operand cache is shared), ones: repeated calls stay finite
        a, b = array(np.float32, n).copy(), np.ones(n, np.float32)
        r = probe(tl_ufunc(op), [a, b])
        if r is None or f is None or r.dtype != a.dtype:
            raise NotImplementedError("no float32 result")
        self.call = functools.partial(f, a, b, out=a)

    def time_call(self, op, n, impl):
        self.call()


OUT_CASES = ["float32+float32", "float64+float64", "float16+float16", "bfloat16+bfloat16",
             "int8+float16"]


def _out_setup(pair):
    tl_add = tl_ufunc("add")
    a, b = (array(dtype(d), BIG, role=i) for i, d in enumerate(pair.split("+")))
    R = result_dtype(probe(tl_add, [a, b]))
    if R is None:
        raise NotImplementedError
    return tl_add, a, b, placed(np.zeros(BIG, R), 3072)


class OutBandwidth:
    """add with out= at 1e7 elements, and np.copyto of 1e7 float64 (the machine's copy
    bandwidth). track_fraction: (bytes read + written by add) / time, over copy bandwidth
    (2 x 80 MB / copy time), from interleaved medians."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [OUT_CASES, ["tl", "np", "copy"]]
    param_names = ["dtypes", "impl"]
    timeout = 180

    def setup(self, pair, impl):
        tl_add, a, b, o = _out_setup(pair)
        if impl == "copy":
            src, dst = array(np.float64, BIG), placed(np.zeros(BIG), 3072)
            self.call = functools.partial(np.copyto, dst, src)
        else:
            f = tl_add if impl == "tl" else np.add
            self.call = functools.partial(f, a, b, out=o)

    def time_add_out(self, pair, impl):
        self.call()


class OutBandwidthFraction:
    params = [OUT_CASES]
    param_names = ["dtypes"]
    timeout = 180
    unit = "fraction of copy bandwidth"

    def setup(self, pair):
        self.tl_add, self.a, self.b, self.o = _out_setup(pair)
        self.src, self.dst = array(np.float64, BIG), placed(np.zeros(BIG), 3072)

    def track_fraction(self, pair):
        ta, tc = [], []
        for _ in range(7):
            t0 = time.perf_counter()
            self.tl_add(self.a, self.b, out=self.o)
            t1 = time.perf_counter()
            np.copyto(self.dst, self.src)
            t2 = time.perf_counter()
            ta.append(t1 - t0)
            tc.append(t2 - t1)
        bw = (self.src.nbytes + self.dst.nbytes) / np.median(tc)
        return (self.a.nbytes + self.b.nbytes + self.o.nbytes) / np.median(ta) / bw


class Reduce:
    """add.reduce (pairwise summation) against np.add.reduce (ml_dtypes' loop for bfloat16)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [["float32", "float64", "float16", "bfloat16"], [10**3, 10**5, 10**7], ["tl", "np"]]
    param_names = ["dtype", "size", "impl"]
    timeout = 120

    def setup(self, dt, n, impl):
        f = tl_ufunc("add") if impl == "tl" else np.add
        self.call = functools.partial(f.reduce, array(dtype(dt), n))

    def time_reduce(self, dt, n, impl):
        self.call()


class Jax32Canonical:
    """make_ufuncs("jax32") on an int64 array, which it reads as int32 (wrapped, as JAX with
    64-bit off): the canon loops' conversion against the same call on the int32 array (tl_same)
    and NumPy on the operands cast to the promoted dtype (np_astype)."""
    timer = time.process_time  # CPU time: robust to a shared, loaded machine
    params = [["add+complex64", "multiply+float16", "nextafter+float32", "sqrt"],
              [10**3, 10**5], ["tl", "tl_same", "np_astype"]]
    param_names = ["case", "size", "impl"]
    timeout = 120

    def setup(self, case, n, impl):
        op, _, other = case.partition("+")
        f = typelattice.make_ufuncs("jax32")[op]
        x = array(np.dtype(np.int64), n)
        if impl == "tl_same":
            x = x.astype(np.int32)
        args = [x] + ([array(dtype(other), n, role=1)] if other else [])
        if impl == "np_astype":
            c = f(*args).dtype
            npf = np_ufunc(op)
            y = args[1] if other else None
            self.call = (lambda: npf(x.astype(np.int32).astype(c), y.astype(c))) if other else \
                (lambda: npf(x.astype(np.int32).astype(c)))
        else:
            self.call = functools.partial(f, *args)
        self.call()     # the first call registers the loop: not what is timed

    def time_call(self, case, n, impl):
        self.call()
