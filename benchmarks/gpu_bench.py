"""GPU benchmark of typelattice.cuda: kernel time vs CuPy's own ufunc and vs the memory bound.

    python benchmarks/gpu_bench.py [--sizes 1e6 1e7 1e8] [--repeat 50] [--csv out.csv]

For each case (op, operand dtypes, layout) and size it prints the median GPU time of
typelattice.cuda (kernel only: out= preallocated, kernel compiled and cached by a warm-up call),
the same for CuPy's own ufunc on the same operands (NumPy's promotion: its result dtype is shown
when it differs), the bytes the operation must move (each input read once, the output written once)
and the fraction of the device's memory bandwidth that achieves. The bandwidth is measured with a
device-to-device copy (and the theoretical peak from the device attributes is printed).
Needs CuPy and a CUDA device; exits with status 2 and the reason otherwise.
"""
import argparse
import sys

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7, 1e8])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--csv", default=None)
    args = ap.parse_args(argv)

    import typelattice.cuda as tc
    reason = tc.why_unavailable()
    if reason is not None:
        print(f"gpu_bench: cannot run: {reason}", file=sys.stderr)
        return 2
    import cupy
    from cupyx.profiler import benchmark

    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    peak = 2 * props["memoryClockRate"] * 1e3 * props["memoryBusWidth"] / 8 / 1e9
    copy_bw = _copy_bandwidth(cupy, benchmark)
    print(f"device {dev.id}: {name}, sm_{dev.compute_capability}, theoretical {peak:.0f} GB/s, "
          f"measured copy {copy_bw:.0f} GB/s; NVRTC {tc.nvrtc_version()}")

    def gpu_ms(fn):
        r = benchmark(fn, n_repeat=args.repeat, n_warmup=3)
        return float(np.median(r.gpu_times)) * 1e3

    import ml_dtypes
    bf16 = np.dtype(ml_dtypes.bfloat16)
    cases = [
        ("add", "float32", "float32", "contiguous"),
        ("add", "int8", "float16", "contiguous"),       # fused conversion: reads int8 + float16
        ("add", "float16", "py-float", "contiguous"),   # weak scalar as a kernel argument
        ("multiply", "bfloat16", "bfloat16", "contiguous"),
        ("divide", "int16", "int16", "contiguous"),     # JAX: float32 (NumPy/CuPy: float64)
        ("floor_divide", "int32", "int32", "contiguous"),
        ("multiply", "complex64", "complex64", "contiguous"),
        ("less", "uint8", "int8", "contiguous"),
        ("add", "float32", "float32", "strided"),       # x[::2] + y[::2]
        ("add", "float32", "float32", "broadcast2d"),   # (n/1024, 1024) + (1024,)
        ("add", "float32", "float32", "transposed"),    # N-d kernel
    ]
    rows = []
    hdr = (f"{'case':44s} {'n':>10s} {'tl ms':>9s} {'cupy ms':>9s} {'tl/cupy':>8s} "
           f"{'GB moved':>9s} {'tl GB/s':>8s} {'% copy bw':>9s}")
    print(hdr)
    rng = np.random.default_rng(0)
    for size in args.sizes:
        n = int(size)
        for op, ta, tb, layout in cases:
            def make(t, shape):
                if t == "py-float":
                    return 0.1
                d = bf16 if t == "bfloat16" else np.dtype(t)
                if d.kind in "iu":
                    v = rng.integers(1, 100, int(np.prod(shape))).astype(d)
                elif d.kind == "c":
                    v = (rng.standard_normal(int(np.prod(shape))) * (1 + 1j)).astype(d)
                else:
                    v = rng.standard_normal(int(np.prod(shape))).astype(
                        np.float32 if d == bf16 else d).astype(d)
                return cupy.asarray(v.reshape(shape))

            if layout == "contiguous":
                a, b = make(ta, (n,)), make(tb, (n,))
            elif layout == "strided":
                a, b = make(ta, (2 * n,))[::2], make(tb, (2 * n,))[::2]
            elif layout == "broadcast2d":
                a, b = make(ta, (max(1, n // 1024), 1024)), make(tb, (1024,))
            else:
                a, b = make(ta, (1024, max(1, n // 1024))).T, make(tb, (max(1, n // 1024), 1024))
            fn = getattr(tc, op)
            res = fn(a, b)                          # compiles (once per signature and device)
            out = cupy.empty_like(res)
            t_tl = gpu_ms(lambda: fn(a, b, out=out))
            cp_fn = getattr(cupy, op)
            note = ""
            try:
                cres = cp_fn(a, b)
                t_cp = gpu_ms(lambda: cp_fn(a, b))
                if cres.dtype != res.dtype:
                    note = f" (cupy gives {cres.dtype})"
            except Exception as exc:  # noqa: BLE001 - e.g. a dtype CuPy has no loop for
                t_cp = float("nan")
                note = f" (cupy: {type(exc).__name__})"
            nbytes = sum(x.nbytes for x in (a, b) if hasattr(x, "nbytes")) + res.nbytes
            gbs = nbytes / (t_tl * 1e-3) / 1e9
            label = f"{op}({ta}, {tb}) {layout}{note}"
            print(f"{label:44s} {res.size:10d} {t_tl:9.4f} {t_cp:9.4f} {t_tl / t_cp:8.2f} "
                  f"{nbytes / 1e9:9.4f} {gbs:8.1f} {100 * gbs / copy_bw:8.1f}%")
            rows.append((op, ta, tb, layout, res.size, t_tl, t_cp, nbytes, gbs, copy_bw))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("op,a,b,layout,n,tl_ms,cupy_ms,bytes,tl_GBps,copy_GBps\n")
            for r in rows:
                f.write(",".join(map(str, r)) + "\n")
    return 0


def _copy_bandwidth(cupy, benchmark):
    x = cupy.ones(1 << 28, dtype=np.uint8)    # 256 MiB
    y = cupy.empty_like(x)
    r = benchmark(lambda: cupy.copyto(y, x), n_repeat=20, n_warmup=3)
    return 2 * x.nbytes / float(np.median(r.gpu_times)) / 1e9


if __name__ == "__main__":
    sys.exit(main())
