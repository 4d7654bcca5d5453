"""Micro-benchmark of the float16/bfloat16 block conversions (tl_convert.c).

    python3 benchmarks/convert_speed.py [--sizes 100000 10000000] [--repeat 21]

Builds src/typelattice/kernels/tl_convert.c with gcc into a temporary shared
library (ctypes), then for each conversion and size times, interleaved run by
run (medians reported):

* ours, on every CPU path available (avx512, avx2+f16c, scalar), writing into
  a preallocated output;
* NumPy ``np.copyto(out, x, casting="unsafe")`` (same preallocated output) and
  ``x.astype(dtype)`` (new output), which for bfloat16 run ml_dtypes' casts.

GB/s counts bytes read + bytes written.  Also reports an L1-resident figure:
a 2048-element block converted repeatedly inside C (what a ufunc loop that
converts block by block sees), without ctypes call overhead, timed in thread
CPU time.
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import ml_dtypes

ROOT = Path(__file__).resolve().parents[1]
KDIR = ROOT / "src" / "typelattice" / "kernels"
BF16 = np.dtype(ml_dtypes.bfloat16)
CONVS = [  # name, src dtype, dst dtype
    ("f16_to_f32", np.dtype(np.float16), np.dtype(np.float32)),
    ("f32_to_f16", np.dtype(np.float32), np.dtype(np.float16)),
    ("f64_to_f16", np.dtype(np.float64), np.dtype(np.float16)),
    ("f16_to_f64", np.dtype(np.float16), np.dtype(np.float64)),
    ("bf16_to_f32", BF16, np.dtype(np.float32)),
    ("f32_to_bf16", np.dtype(np.float32), BF16),
    ("f64_to_bf16", np.dtype(np.float64), BF16),
    ("bf16_to_f64", BF16, np.dtype(np.float64)),
]

BENCH_C = r"""
#define _POSIX_C_SOURCE 199309L
#include <time.h>
#include "tl_convert.h"
typedef void (*fn_t)(const void *, void *, ptrdiff_t);
static fn_t fns[] = {(fn_t)tl_convert_f16_to_f32, (fn_t)tl_convert_f32_to_f16, (fn_t)tl_convert_f64_to_f16,
    (fn_t)tl_convert_f16_to_f64, (fn_t)tl_convert_bf16_to_f32, (fn_t)tl_convert_f32_to_bf16,
    (fn_t)tl_convert_f64_to_bf16, (fn_t)tl_convert_bf16_to_f64};
/* seconds per call, converting the same L1-resident block `reps` times
 * (thread CPU time: robust when other processes share the machine) */
double bench_block(int which, const void *src, void *dst, ptrdiff_t n, long reps)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    for (long r = 0; r < reps; r++)
        fns[which](src, dst, n);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    return ((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec)) / reps;
}
"""


def build(tmp):
    cc = shutil.which(os.environ.get("CC", "gcc"))
    (Path(tmp) / "bench.c").write_text(BENCH_C)
    out = Path(tmp) / "libtlbench.so"
    subprocess.run([cc, "-O2", "-std=c99", "-fPIC", "-shared", f"-I{KDIR}",
                    str(KDIR / "tl_convert.c"), str(Path(tmp) / "bench.c"), "-o", str(out), "-lm"],
                   check=True)
    L = ctypes.CDLL(str(out))
    L.tl_convert_isa.restype = ctypes.c_char_p
    L.tl_convert_set_isa.argtypes = [ctypes.c_char_p]
    for name, _, _ in CONVS:
        getattr(L, "tl_convert_" + name).argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t]
    L.bench_block.restype = ctypes.c_double
    L.bench_block.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t,
                              ctypes.c_long]
    return L


def make_input(dt, n, rng):
    # realistic values: normal-ish data in range for every target type
    x = rng.standard_normal(n) * 100.0
    return x.astype(dt)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 10_000_000])
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--only", nargs="*", default=None, help="conversion names")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="wall: perf_counter; cpu: process_time (user+sys CPU time, less "
                         "sensitive to other load on the machine)")
    args = ap.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        L = build(tmp)
        isas = [i for i in ("avx512", "avx2+f16c", "scalar") if L.tl_convert_set_isa(i.encode()) == 0]
        print(f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, paths: {isas}; "
              f"median of {args.repeat} interleaved runs ({args.clock} clock); "
              f"GB/s = (read+write bytes)/time")
        hdr = f"{'conversion':<12} {'n':>9} " + "".join(f"{i:>18}" for i in isas) \
            + f"{'np.copyto':>18}{'astype':>18}  {'best/copyto':>11} {'best/astype':>11}"
        print(hdr)
        for idx, (name, sdt, ddt) in enumerate(CONVS):
            if args.only and name not in args.only:
                continue
            for n in args.sizes:
                x = make_input(sdt, n, rng)
                out = np.empty(n, ddt)
                fn = getattr(L, "tl_convert_" + name)
                xp, op = x.ctypes.data, out.ctypes.data
                times = {k: [] for k in isas + ["copyto", "astype"]}
                for _ in range(args.repeat):
                    for isa in isas:
                        L.tl_convert_set_isa(isa.encode())
                        t0 = clock()
                        fn(xp, op, n)
                        times[isa].append(clock() - t0)
                    t0 = clock()
                    np.copyto(out, x, casting="unsafe")
                    times["copyto"].append(clock() - t0)
                    t0 = clock()
                    r = x.astype(ddt)
                    times["astype"].append(clock() - t0)
                    del r
                L.tl_convert_set_isa(None)
                nbytes = n * (sdt.itemsize + ddt.itemsize)
                med = {k: float(np.median(v)) for k, v in times.items()}
                cells = "".join(f"{med[k]*1e6:9.0f}us{nbytes/med[k]/1e9:5.1f}GB/s"
                                for k in isas + ["copyto", "astype"])
                best = min(med[i] for i in isas)
                print(f"{name:<12} {n:>9} {cells}  {med['copyto']/best:10.1f}x {med['astype']/best:10.1f}x")
        # L1-resident blocks, timed inside C
        nb = 2048
        print(f"\nL1-resident block of {nb} elements, converted repeatedly in C (GB/s, ns/element):")
        print(f"{'conversion':<12}" + "".join(f"{i:>22}" for i in isas))
        for idx, (name, sdt, ddt) in enumerate(CONVS):
            if args.only and name not in args.only:
                continue
            x = make_input(sdt, nb, rng)
            out = np.empty(nb, ddt)
            cells = ""
            for isa in isas:
                L.tl_convert_set_isa(isa.encode())
                ts = [L.bench_block(idx, x.ctypes.data, out.ctypes.data, nb, 2000)
                      for _ in range(7)]
                t = float(np.median(ts))
                cells += f"{nb*(sdt.itemsize+ddt.itemsize)/t/1e9:12.1f}GB/s {t/nb*1e9:5.2f}ns"
            print(f"{name:<12}{cells}")
            L.tl_convert_set_isa(None)


if __name__ == "__main__":
    sys.exit(main())
