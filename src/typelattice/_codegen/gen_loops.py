"""Emit the NumPy loops of every op in _ops.py as C (instantiating kernels/tl_loops_host.h).

Usage: python gen_loops.py _loops.h _loops_0.c [_loops_1.c ...]

One loop per (op, compute dtype), about 800 in all, plus the fused mixed-input loops (emit_fused:
one per mixed operand pair the built-in rule sets resolve, for the cheap ops; printed count);
other mixed operand dtypes go through the blocked loops or are converted by NumPy to the compute
dtype the promoter chose. The loops are split into C sources of about equal size, which the build
compiles in parallel; _loops.h, included by the module, joins their tables at import. The output
is a build artefact, never committed.
"""
import argparse
import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    import _bootstrap
    _bootstrap.install()

from typelattice._ops import (  # noqa: E402
    BITS16, FIRST_INEXACT, LOOP_TYPES, OPS, OPS_BY_NAME, SUB_BYTE_UNSIGNED_ONLY, SUFFIX)
from typelattice._names import kind  # noqa: E402

STORAGE = {
    "bool": "npy_bool", "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
    "uint64": "uint64_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
    "int64": "int64_t", "bfloat16": "uint16_t", "float16": "uint16_t", "float32": "float",
    "float64": "double", "complex64": "tl_c64", "complex128": "tl_c128",
}
COMPUTE = dict(STORAGE, bool="tl_bool", bfloat16="float", float16="float")
LD = {"bool": "TL_LD_b", "bfloat16": "TL_LD_bf16", "float16": "TL_LD_f16"}
ST = {"bfloat16": "TL_ST_bf16", "float16": "TL_ST_f16"}
HALF = ("bfloat16", "float16")
# integer floor_divide/remainder/divmod through a float type (tl_idiv_*: exact for 8-32 bits;
# 64 bits where a block's values lie within 2^51 of 0)
IDIV_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
# reductions of these run tl_red_<op>_<type> (SIMD, the element loop's exact result)
MINMAX_RED = ("maximum", "minimum", "fmax", "fmin")
# bool reductions: each op's reduction of bool is one of these (tl_red_logical_<x>_b)
# (bool fmax/fmin run the maximum/minimum loops: twin_loop)
BOOL_RED = {"logical_or": "logical_or", "maximum": "logical_or", "bitwise_or": "logical_or",
            "logical_and": "logical_and", "minimum": "logical_and", "bitwise_and": "logical_and",
            "logical_xor": "logical_xor", "bitwise_xor": "logical_xor"}
# float16 reductions that NumPy accumulates in float32 (HALF_add/subtract/multiply/divide)
KEEP_F16 = ("add", "subtract", "multiply", "divide")
# error-loop slots, one per ufunc object that has raised a TypePromotionError (the built-in rule
# sets have 935 ufunc objects; past the last slot NumPy's generic no-loop error is raised)
N_ERR_SLOTS = 2048


def ld(t):
    return LD.get(t, "TL_LD_id")


def st(t):
    return ST.get(t, "TL_ST_id")


def identity_values(op, t):
    """C initializers (non-empty, empty) of the op's identity in storage type t, or None."""
    ident = op.identity
    if ident is None:
        return None
    if op.out == "bool":
        if t != "bool":
            return None
        v = "1" if ident else "0"
        return v, v
    if ident == -1:
        if t == "bool":
            return "1", "1"
        if t.startswith(("int", "uint")):
            return f"({STORAGE[t]})-1", f"({STORAGE[t]})-1"
        return None
    if ident == "-inf":
        return {"float16": ("0xfc00",) * 2, "bfloat16": ("0xff80",) * 2,
                "float32": ("-INFINITY",) * 2, "float64": ("-(double)INFINITY",) * 2,
                "complex64": ("{-INFINITY, 0.0f}",) * 2,
                "complex128": ("{-(double)INFINITY, 0.0}",) * 2}.get(t)
    one = ident == 1
    if t in ("float16", "bfloat16"):
        bits = {"float16": (0x3c00, 0x8000), "bfloat16": (0x3f80, 0x8000)}[t]
        return (hex(bits[0]), hex(bits[0])) if one else ("0x0", "0x0")
    if t in ("float32", "float64"):
        f = "f" if t == "float32" else ""
        return (f"1.0{f}", f"1.0{f}") if one else (f"0.0{f}", f"0.0{f}")
    if t.startswith("complex"):
        f = "f" if t == "complex64" else ""
        return (f"{{1.0{f}, 0.0{f}}}",) * 2 if one else (f"{{0.0{f}, 0.0{f}}}",) * 2
    return ("1", "1") if one else ("0", "0")


BLOCKED = {"float16": ("float", "tl_cvtsel_f16", "tl_store_f16"),
           "bfloat16": ("float", "tl_cvtsel_bf16", "tl_store_bf16"),
           "float32": ("float", "tl_cvtsel_float", "tl_store_f32"),
           "float64": ("double", "tl_cvtsel_double", "tl_store_f64")}


# float32/float64 element functions with host versions in tl_loops_host.h (comparisons on integer
# keys, sign (bfloat16's too) and heaviside on the bits, which gcc vectorizes; floor/ceil/trunc
# quieting signalling NaNs)
HOST_FAST = {f"tl_{c}_{s}": f"tl_h{c}_{s}" for c in ("less", "less_equal", "greater",
                                                    "greater_equal", "sign", "floor", "ceil",
                                                    "trunc", "heaviside") for s in ("f32", "f64")}
HOST_FAST.update({"tl_sign_bf_f32": "tl_hsign_bf_f32", "tl_nextafter_f16": "tl_hnextafter_f16",
                  "tl_nextafter_bf16": "tl_hnextafter_bf16",
                  "tl_spacing_f16": "tl_hspacing_f16", "tl_spacing_bf16": "tl_hspacing_bf16"})


# ... and their block versions (AVX2 quiet compares when the CPU has them)
VCMP = {h: "tl_vcmp_" + h[len("tl_h"):] for h in HOST_FAST.values() if "less" in h or "greater" in h}
VCMP.update({f"tl_{c}_{s}": f"tl_vcmp_{c}_{s}" for c in ("equal", "not_equal")
             for s in ("f32", "f64")})


# float32/float64 unary ops with SIMD block kernels in tl_loops_host.h (tl_vround_*)
VROUND = ("floor", "ceil", "trunc")


# float32/float64 bool-valued unary ops with SIMD block kernels in tl_loops_host.h (tl_vclass_*)
VCLASS = ("isnan", "isinf", "isfinite", "signbit")


# float32/float64 ops with libmvec vector loops (TL_VMATH_OPS of tl_loops_host.h)
VMATH = ("cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
         "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")
# NumPy computes float64 sin/cos with libm, not SVML (within 1 ulp): keep libm's, as fast as
# NumPy's, rather than libmvec's 4-ulp versions
VMATH_SCALAR64 = ("sin", "cos")


# float32 element functions with a fused float16/bfloat16 kernel (tl_half_binary, TL_HOP_*), and
# the comparisons
FUSED16 = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
           "maximum_h", "minimum_h", "fmax_h", "fmin_h", "copysign", "heaviside")


CMP16 = ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")
# ... and those with a float32 result of float16/bfloat16 operands (with float32 or each other)
FUSED16_F32 = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
               "copysign", "heaviside")
HK = {"float16": "TL_HK_F16", "bfloat16": "TL_HK_BF16", "float32": "TL_HK_F32"}
# the logical ops have only the same-dtype float16/bfloat16 loop on the bits (TL_LOOP_CMP16)
LOGIC16 = ("logical_and", "logical_or", "logical_xor")


# the kernel names of tl_half_binary per compute type
FUSED16_OPS = {"float16": FUSED16 + CMP16, "bfloat16": FUSED16 + CMP16,
               "float32": FUSED16_F32 + CMP16}


# Loops that would run exactly another loop's instructions: their table rows name that loop, which
# spares the build compiling them (a sixth of the loops' code was such twins). In two's complement
# intN and uintN add, multiply, compare for equality... alike; on integers and bool, which have no
# NaN, fmax/fmin are maximum/minimum.
SIGN_AGNOSTIC = ("add", "subtract", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor",
                 "equal", "not_equal", "logical_and", "logical_or", "logical_xor", "negative",
                 "positive", "invert", "square", "conjugate", "logical_not", "floor", "ceil",
                 "trunc", "isnan", "isinf", "isfinite")
NAN_FREE_TWIN = {"fmax": "maximum", "fmin": "minimum"}


def twin_loop(op, t):
    """(op name, type) of the loop that also computes op on type t, or None (a loop of its own).
    The twin is emitted in the same unit (op_units), so its static loop is in scope."""
    if op.name in NAN_FREE_TWIN and (t == "bool" or kind(t) in "iu"):
        return NAN_FREE_TWIN[op.name], t
    if op.name in SIGN_AGNOSTIC and t.startswith("uint"):
        return op.name, t[1:]
    return None


def initial_fn(name, t, iv):
    """The C get_reduction_initial function `name` giving identity values iv in type t."""
    S = STORAGE[t]
    return (f"static int {name}(PyArrayMethod_Context *ctx, npy_bool empty, char *initial)\n"
            f"{{\n    {S} v = {iv[0]}, ve = {iv[1]};\n    (void)ctx;\n"
            f"    memcpy(initial, empty ? &ve : &v, sizeof({S}));\n    return 1;\n}}")


def twin_row(op, t, twin, out):
    """The table row of op on t naming its twin's loop and indexed loop (its own identity
    function, appended to ``out``)."""
    tname, tt = twin
    name = f"tl_loop_{tname}_{SUFFIX[tt]}"
    types = [LOOP_TYPES.index(x) for x in op.loop_signature(t)]
    types += [-1] * (4 - len(types))
    indexed = "NULL" if op.out == "bool" or op.nin == 1 else name + "_at"
    init = "NULL"
    iv = identity_values(op, t)
    if iv is not None and op.nin == 2:
        init = f"tl_loop_{op.name}_{SUFFIX[t]}_initial"
        out.append(initial_fn(init, t, iv))
        init = "(void *)" + init
    return f'    {{"{op.name}", {{{", ".join(map(str, types))}}}, {name}, {indexed}, {init}}},'


# Loops no clone speeds up: every element a libm call or a long scalar routine. Their AVX2 and
# AVX-512 clones' code (objdump) had no instruction beyond SSE2's but their VEX forms, so they are
# compiled once, in the baseline version (a tenth of the loops' code was such clones).
LIBM_ALWAYS = ("modf", "nextafter", "spacing", "hypot", "logaddexp", "logaddexp2")
LIBM_COMPLEX = VMATH + ("sqrt", "divide", "reciprocal", "logaddexp", "logaddexp2")
NO_CLONES = ("#undef TL_LOOP_CLONES", "#define TL_LOOP_CLONES")
ALL_CLONES = ("#undef TL_LOOP_CLONES", "#define TL_LOOP_CLONES TL_CLONES_ALL")


def single_version(op, t):
    """Is op's loop on type t compiled in the baseline version only?"""
    if t in ("complex64", "complex128"):
        return op.kernel in LIBM_COMPLEX
    if op.name == "frexp":
        # (float32/float64 frexp work on the bits: AVX-512 kernels, elsewhere the bit loop that
        # gcc vectorizes in the clones, the baseline one 6x NumPy's time; bfloat16's calls libm)
        return t == "bfloat16"
    if t in ("float32", "float64", "bfloat16") and op.name in LIBM_ALWAYS:
        # (bfloat16's nextafter and spacing work on the bits)
        return t != "bfloat16" or op.name not in ("nextafter", "spacing")
    if op.name in ("fmod", "remainder") and t in ("float64", "bfloat16"):
        return True
    return (op.name == "fmod" and kind(t) in "iu"
            or t == "float64" and op.kernel in VMATH_SCALAR64)


def wrap_single_version(op, t, out, start):
    """Enclose the lines out[start:] of op's loop on t in NO_CLONES if single_version."""
    if single_version(op, t) and len(out) > start:
        out[start:] = [*NO_CLONES, *out[start:], *ALL_CLONES]


def fused_name(op, t):
    """The fused float16/bfloat16 loop (tl_half_binary) of op for compute type t, or None."""
    if blocked_ok(op, t) and kernel_name(op, t) in FUSED16_OPS.get(t, ()):
        return f"tl_fused_{op.name}_{SUFFIX[t]}"
    return None


def host(fn):
    return HOST_FAST.get(fn, fn)


def kernel_name(op, t):
    return {"float16": op.kernel16, "bfloat16": op.kernel_bf16}.get(t, op.kernel)


# blocked loops that run the float32/float64 same-type loop on their converted blocks (that loop
# is vectorized by hand: libmvec's atan2 and pow, TL_LOOP2_VFMOD32), not the element function
BLOCKED_VIA_SAME = ("arctan2", "power", "float_power", "fmod", "remainder", "floor_divide")
# integer floor_divide and remainder (and divmod: TL_LOOP_BLOCKED_SAME2, for float32/float64
# joins too) of mixed operands: blocks converted to the integer compute type, run by its
# same-dtype loop (vectorized through float division where the operands allow); element by
# element, as fused loops would run them, they took 3-20x the same-dtype call
BLOCKED_INT_OPS = ("floor_divide", "remainder")
# integer compute type -> (C type, converter selector, block store), as BLOCKED's
BLOCKED_INT = {t: (STORAGE[t], f"tl_cvtsel_{SUFFIX[t]}", f"tl_store_{SUFFIX[t]}")
               for t in LOOP_TYPES if kind(t) in "iu"}
# float32/float64 binary ops with libmvec loops (TL_LOOP2_VMBIN): op -> libm name
VMATH_BINARY = {"arctan2": "atan2", "power": "pow", "float_power": "pow"}


def blocked_ok(op, t):
    """Ops with a blocked (mixed-input) loop for compute type t (a float16 op of its own, as
    nextafter's, has none for the half types: the blocks are float32)."""
    return (t in BLOCKED and op.nin == 2 and op.nout == 1 and op.rule != FIRST_INEXACT
            and not (op.native16 and t in HALF))


def cblocked_ok(op, t):
    """Ops with a blocked loop for complex compute type t (TL_LOOP_BLOCKED_CPLX): the binary
    ones with a complex result or a comparison's (the logical ops read truth values instead)."""
    return (t in ("complex64", "complex128") and op.nin == 2 and op.nout == 1
            and op.rule != FIRST_INEXACT and op.name not in LOGIC16 and twin_loop(op, t) is None)


def real_operand_loop(op, t):
    """(loop macro, its K argument) of op's complex join t with one real operand, which reads the
    complex operand's parts in place (the blocked loop is its fallback), or None."""
    cmp = f"{op.name}_{SUFFIX[t]}"
    return {"equal": ("TL_LOOP_CEQ_REAL", 0), "not_equal": ("TL_LOOP_CEQ_REAL", 1),
            "add": ("TL_LOOP_CADD_REAL", 0), "subtract": ("TL_LOOP_CADD_REAL", 1),
            "multiply": ("TL_LOOP_CMUL_REAL", SUFFIX[t]),
            "less": ("TL_LOOP_CCMP_REAL", cmp), "less_equal": ("TL_LOOP_CCMP_REAL", cmp),
            "greater": ("TL_LOOP_CCMP_REAL", cmp),
            "greater_equal": ("TL_LOOP_CCMP_REAL", cmp),
            "maximum": ("TL_LOOP_CELEM_REAL", cmp), "minimum": ("TL_LOOP_CELEM_REAL", cmp),
            "fmax": ("TL_LOOP_CELEM_REAL", cmp), "fmin": ("TL_LOOP_CELEM_REAL", cmp)}.get(op.name)


def ext_ok(op):
    """Ops with a loop for ml_dtypes' small floats (computed in float32)."""
    if op.nin == 1:
        # unary: outputs of the operand's type or bool (not signbit: JAX raises there)
        return (all(o in ("same", "real", "bool") for o in op.outs()) and not op.native16
                and "f" in op.kinds and op.name != "signbit")
    return (op.nin == 2 and op.rule != FIRST_INEXACT and not op.native16 and "f" in op.kinds
            and (op.nout == 1 or all(o == "same" for o in op.outs())))


def emit_unary(op, out):
    """Append the loops of a unary op to ``out``; return its loop-table rows."""
    rows = []
    for t in op.loop_types():
        twin = twin_loop(op, t)
        if twin:
            rows.append(twin_row(op, t, twin, out))
            continue
        start = len(out)
        sig = op.loop_signature(t)
        name = f"tl_loop_{op.name}_{SUFFIX[t]}"
        native = op.native16 or op.bits16
        half = t in HALF and not native
        fn = f"tl_{kernel_name(op, t)}_{'f32' if half else SUFFIX[t]}"
        if native and t in HALF:
            fn = f"tl_{op.kernel}_{SUFFIX[t]}"
        lo = ld(t) if not (native and t in HALF) else "TL_LD_id"
        outs = sig[1:]

        def store(o):
            if o == "bool" or (native and o in HALF):
                return "TL_ST_id"
            return st(o)
        fn = host(fn)
        if op.kernel in VROUND and t in ("float32", "float64"):
            out.append(f"TL_LOOP1_CONTIG({name}, {STORAGE[t]}, "
                       f"tl_vround_{op.kernel}_{SUFFIX[t]}, {fn})")
        elif op.kernel == "bitwise_count" and t in ("int32", "uint32", "int64", "uint64"):
            out.append(f"TL_LOOP1_POPCNT({name}, {STORAGE[t]}, {t[-2:]}, "
                       f"{int(t[0] == 'i')}, {fn})")
        elif (op.kernel == "square" and t in ("int8", "uint8", "complex64", "complex128")
                or op.kernel == "conjugate" and t in ("complex64", "complex128")):
            out.append(f"TL_LOOP1_CONTIG({name}, {STORAGE[t]}, tl_v{op.kernel}_{SUFFIX[t]}, {fn})")
        elif op.kernel in VCLASS and t in ("float32", "float64"):
            out.append(f"TL_LOOP1_BOOL({name}, {STORAGE[t]}, "
                       f"tl_vclass_{op.kernel}_{SUFFIX[t]}, {fn})")
        elif op.kernel == "absolute" and t in ("complex64", "complex128"):
            out.append(f"TL_LOOP1_CABS({name}, {STORAGE[t]}, {STORAGE[outs[0]]}, "
                       f"{64 if t == 'complex128' else 32}, {fn})")
        elif (len(outs) == 1 and op.kernel in VMATH and t in ("float32", "float64")
                and not (t == "float64" and op.kernel in VMATH_SCALAR64)):
            out.append(f"TL_LOOP1_VEC({name}, {STORAGE[t]}, {t[-2:]}, {op.kernel}, {fn})")
        elif len(outs) == 1 and op.kernel in VMATH and half and outs[0] == t:
            out.append(f"TL_LOOP1_VEC16({name}, {SUFFIX[t]}, {op.kernel}, {fn})")
        elif len(outs) == 1 and half and outs[0] == t and op.kernel in VROUND:
            out.append(f"TL_LOOP1_BLOCK16_STEP({name}, {SUFFIX[t]}, "
                       f"TL_VROUND_STEP_{op.kernel}, {fn})")
        elif len(outs) == 1 and half and outs[0] == t and t == "float16":
            out.append(f"TL_LOOP1_BLOCK16({name}, {SUFFIX[t]}, {fn})")
        elif len(outs) == 1:
            out.append(f"TL_LOOP1({name}, {STORAGE[t]}, {STORAGE[outs[0]]}, {lo}, "
                       f"{store(outs[0])}, {fn})")
        else:
            o1, o2 = outs
            ct2 = COMPUTE[o2] if o2 in HALF and not op.native16 else STORAGE[o2]
            ct2 = "int32_t" if o2 == "int32" else ct2
            vec = (f"tl_vfrexp_{SUFFIX[t]}" if op.kernel == "frexp" and t in ("float32", "float64")
                   else "TL_NO_VEC1_2")
            out.append(f"TL_LOOP1_2({name}, {STORAGE[t]}, {STORAGE[o1]}, {STORAGE[o2]}, {ct2}, "
                       f"{lo}, {store(o1)}, {store(o2)}, {fn}, {vec})")
        wrap_single_version(op, t, out, start)
        types = [LOOP_TYPES.index(x) for x in sig] + [-1] * (4 - len(sig))
        rows.append(f'    {{"{op.name}", {{{", ".join(map(str, types))}}}, {name}, NULL, NULL}},')
    return rows


# ---- fused mixed-input loops (TL_FUSED_* of tl_loops_host.h) -------------------------------------
# Cheap ops, where converting an operand in a separate pass (NumPy's cast, the blocked loops) costs
# as much as the op itself; divide only where it computes in a float.
FUSED_OPS = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "fmin",
             "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "equal",
             "not_equal", "less", "less_equal", "greater", "greater_equal", "copysign",
             "heaviside")
FUSED_COMPUTE = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                 "float32", "float64")
FUSED_INPUTS = ("bool",) + FUSED_COMPUTE + HALF
# float16/bfloat16 with float64, by half type: converted in registers (vcvtph2ps / a shift,
# then vcvtps2pd; blocked, float16 + float64 ran at 1.35-1.55x the float64 call): arithmetic
# and the quiet comparisons, whose result is the same whether a signalling NaN is quieted by
# that conversion or by the op, and the ops that return an operand's bits (HALF_F64_PICK): for
# bfloat16 as they are (ml_dtypes' cast quiets it as vcvtps2pd does), for float16 through
# exact conversions (TL_FUSED_KERNEL_H64X: NumPy's cast keeps it signalling)
_HALF_F64_ARITH_CMP = ("add", "subtract", "multiply", "divide", "equal", "not_equal", "less",
                       "less_equal", "greater", "greater_equal")
HALF_F64_PICK = ("maximum", "minimum", "copysign", "fmax", "fmin", "heaviside")
HALF_F64_OPS = {h: _HALF_F64_ARITH_CMP + HALF_F64_PICK for h in HALF}
# their arithmetic's AVX-512 intrinsics (TL_FUSED_KERNEL_H64)
H64_VOP = {"add": "_mm512_add_pd", "subtract": "_mm512_sub_pd", "multiply": "_mm512_mul_pd",
           "divide": "_mm512_div_pd"}
# float comparisons of the fused loops: one-pass SIMD kernels (TL_FUSED_KERNEL_FCMP), quiet
# predicates
FCMP_PRED = {"less": "_CMP_LT_OQ", "less_equal": "_CMP_LE_OQ", "greater": "_CMP_GT_OQ",
             "greater_equal": "_CMP_GE_OQ", "equal": "_CMP_EQ_OQ"}
# integer comparisons of the fused loops (the others negate these): AVX-512BW kernels
ICMP_PRED = {"less": "_MM_CMPINT_LT", "greater": "_MM_CMPINT_NLE", "equal": "_MM_CMPINT_EQ"}
SWAPPED = {"less": "greater", "greater": "less", "less_equal": "greater_equal",
           "greater_equal": "less_equal"}
# integer arithmetic of the fused loops in 16- to 64-bit compute types: AVX-512 kernels, the
# intrinsic of each op ({s}: i or u, {b}: bits)
IARITH_VOP = {"add": "_mm512_add_epi{b}", "subtract": "_mm512_sub_epi{b}",
              "multiply": "_mm512_mullo_epi{b}", "maximum": "_mm512_max_ep{s}{b}",
              "minimum": "_mm512_min_ep{s}{b}", "bitwise_and": "_mm512_and_si512",
              "bitwise_or": "_mm512_or_si512", "bitwise_xor": "_mm512_xor_si512",
              # (counts past the width, negative ones too, give 0 or the sign: NumPy's shifts)
              "left_shift": "_mm512_sllv_epi{b}", "right_shift": "_mm512_sr{ra}v_epi{b}"}

# float arithmetic with a (u)int64 operand: AVX2 kernels (TL_FUSED_KERNEL_F64I) with vectorized
# conversions (AVX2 has no instruction for them), each op's element function in vector form
FARITH_VOP = {"add": "TL_FV_add", "subtract": "TL_FV_subtract", "multiply": "TL_FV_multiply",
              "divide": "TL_FV_divide", "maximum": "TL_FV_maximum", "minimum": "TL_FV_minimum",
              "fmax": "TL_FV_fmax", "fmin": "TL_FV_fmin", "heaviside": "TL_FV_heaviside"}


def fused_converts(a, t):
    """Does operand type a convert to compute type t inline (a C cast, as NumPy's cast)?

    Integers and bool to any integer or float, float32 and the half types to float64."""
    if a == t:
        return True
    if a in HALF:
        return t == "float64"
    if kind(t) == "f":
        return kind(a) in "bui" or (a, t) == ("float32", "float64")
    return kind(a) in "bui"


def fused_pairs(registry=None):
    """{(op, a, b, t)}: the mixed operand pairs the built-in rule sets' promoters resolve to a
    non-half real compute type t that both operands convert to: one operand already of type t, or
    two integers/bool joining to a wider integer (uint8 + int8 -> int16) or two integers joining
    in float64 (int64 + uint64)."""
    if registry is None:
        from typelattice.rules import builtin
        registry = builtin()
    keys = set()
    for rs in registry.values():
        def materialize(t, rs=rs):
            return rs.weak.get(t, t)
        for name in FUSED_OPS:
            op = OPS_BY_NAME[name]
            for a in FUSED_INPUTS:
                for b in FUSED_INPUTS:
                    if a == b or a not in rs.index or b not in rs.index:
                        continue
                    try:
                        res = op.resolve(a, b, rs.join, materialize)
                    except (LookupError, TypeError, ValueError):
                        continue
                    t = res[0]
                    if t not in FUSED_COMPUTE or res[1] != t or (name == "divide" and kind(t) != "f"):
                        continue
                    if a != t and b != t and kind(t) == "f" and not (
                            t == "float64" and kind(a) in "iu" and kind(b) in "iu"):
                        # both converting to a float: the blocked loops (but for two ints
                        # joining in float64, JAX's int64 + uint64: 1.8-2x the float64 call)
                        continue
                    if name in ("add", "multiply") and a == t and kind(t) in "ui":
                        # (t, small int) -> t is the loop NumPy's dispatch picks for add/multiply
                        # reduce/accumulate of the small int in the default int (jnp.sum); they
                        # need one dtype (accumulate) and a fast reduction: not a mixed loop
                        continue
                    if a == "bool" and res[2] == "bool" and t != "bool":
                        continue       # NumPy's reduce(x, dtype=bool) would take it (_ufuncs)
                    if any(h in (a, b) and name not in HALF_F64_OPS[h] for h in HALF):
                        continue
                    if fused_converts(a, t) and fused_converts(b, t):
                        keys.add((name, a, b, t))
    return keys


def fused_kernel(name, a, b, t):
    """(kernel op, first, second, xor, swapped) computing op(a, b) in t: not_equal (and integer
    less_equal/greater_equal) negate equal (greater/less); operands go in a canonical order (the
    compute type first) where the op commutes or has a mirrored comparison."""
    flt = kind(t) == "f"
    neg = {"not_equal": "equal"}
    if not flt:
        neg.update({"greater_equal": "less", "less_equal": "greater"})
    x = int(name in neg)
    kop = neg.get(name, name)
    if kop in ("fmax", "fmin") and flt and a != t and b != t:
        # two integers joining in a float: no NaN, no -0.0, so maximum/minimum's kernel
        kop = {"fmax": "maximum", "fmin": "minimum"}[kop]
    commutes = kop in ("add", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor", "equal") \
        or (kop in ("maximum", "minimum", "fmax", "fmin") and not flt)  # (floats: -0.0/NaN order)
    if (b == t and a != t) or (a != t and b != t and a > b):
        if commutes:
            return kop, b, a, x, 1
        if kop in SWAPPED:
            return SWAPPED[kop], b, a, x, 1
    return kop, a, b, x, 0


def emit_fused():
    """The fused mixed-input loops: one unit (see emit) per kernel, with the loops that run it."""
    keys = sorted(fused_pairs())
    units = {}

    def cvt(a, t, kop=None):
        if a == t:
            return "TL_LD_id"
        if a == "float16" and kop in HALF_F64_PICK:
            return "TL_CVHX_f16"
        if a in HALF:
            return f"TL_CVH_{SUFFIX[a]}"
        return f"TL_CVB_{SUFFIX[t]}" if a == "bool" else f"TL_CV_{SUFFIX[t]}"

    def fn(name, t):
        return host(f"tl_{kernel_name(OPS_BY_NAME[name], t)}_{SUFFIX[t]}")

    def bits(t):
        return t.replace("uint", "").replace("int", "")

    for name, a, b, t in keys:
        bool_out = OPS_BY_NAME[name].out == "bool"
        SO = "npy_bool" if bool_out else STORAGE[t]
        kop, ka, kb, x, swap = fused_kernel(name, a, b, t)
        kname = f"tl_fk_{kop}_{SUFFIX[ka]}_{SUFFIX[kb]}_{SUFFIX[t]}"
        if kname not in units:
            units[kname] = new_unit()
            out = units[kname]["lines"]
            post = "TL_FUSED_XOR" if bool_out else "TL_FUSED_ID"
            if kind(t) == "f" and kop in FCMP_PRED:
                out.append(f"TL_FUSED_KERNEL_FCMP({kname}, {STORAGE[ka]}, {STORAGE[kb]}, "
                           f"{SUFFIX[t]}, {SUFFIX[ka]}, {SUFFIX[kb]}, {cvt(ka, t)}, {cvt(kb, t)}, "
                           f"{FCMP_PRED[kop]}, {fn(kop, t)})")
            elif kind(t) in "iu" and kop in ICMP_PRED:
                # int and uint of one width, a wider compute type: compared in their width
                su = (kind(ka) == "i" and kb == "u" + ka and int(bits(t)) > int(bits(ka)))
                lds = ("TL_LD_id", "TL_LD_id", f"tl_su_{kop}_{SUFFIX[ka]}_{SUFFIX[kb]}") if su \
                    else (cvt(ka, t), cvt(kb, t), fn(kop, t))
                out.append(f"TL_FUSED_KERNEL_ICMP({kname}, {STORAGE[ka]}, {STORAGE[kb]}, "
                           f"{', '.join(lds)}, {SUFFIX[t]}, {bits(t)}, "
                           f"{SUFFIX[ka]}, {SUFFIX[kb]}, {ICMP_PRED[kop]})")
            elif kind(t) in "iu" and kop in IARITH_VOP and bits(t) != "8":
                vop = IARITH_VOP[kop].format(s=kind(t), b=bits(t),
                                             ra="a" if kind(t) == "i" else "l")
                out.append(f"TL_FUSED_KERNEL_IARITH({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {bits(t)}, "
                           f"{SUFFIX[ka]}, {SUFFIX[kb]}, {vop})")
            elif kind(t) == "f" and {ka, kb} & {"int64", "uint64"} and kop in FARITH_VOP:
                out.append(f"TL_FUSED_KERNEL_F64I({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {post}, {SUFFIX[t]}, "
                           f"{SUFFIX[ka]}, {SUFFIX[kb]}, {'ps' if t == 'float32' else 'pd'}, "
                           f"{FARITH_VOP[kop]})")
            elif "float16" in (ka, kb) and kop in HALF_F64_PICK:
                # (f16x: the exact float16 loads)
                sfx = [SUFFIX[k] + ("x" if k == "float16" else "") for k in (ka, kb)]
                out.append(f"TL_FUSED_KERNEL_H64X({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t, kop)}, {cvt(kb, t, kop)}, {fn(kop, t)}, {post}, "
                           f"{sfx[0]}, {sfx[1]}, {kop})")
            elif {ka, kb} & set(HALF) and kop in H64_VOP:
                out.append(f"TL_FUSED_KERNEL_H64({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {post}, {SUFFIX[ka]}, "
                           f"{SUFFIX[kb]}, {H64_VOP[kop]})")
            elif t == "float64" and "bool" in (ka, kb):
                # gcc 12 leaves bool -> float64 scalar in the AVX-512 body, a branch per element
                # (float64 + random bools: 16x the float64 call); its AVX2 body is vectorized
                out.append(f"TL_FUSED_KERNEL({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {post})")
            else:
                out.append(f"TL_FUSED_KERNEL_512({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                           f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {post})")
            out.append(f"TL_FUSED_SCALAR({kname}, {STORAGE[ka]}, {STORAGE[kb]}, {SO}, "
                       f"{cvt(ka, t)}, {cvt(kb, t)}, {fn(kop, t)}, {post})")
        lname = f"tl_fused_{name}_{SUFFIX[a]}_{SUFFIX[b]}_{SUFFIX[t]}"
        idx = ", ".join(str(LOOP_TYPES.index(y)) for y in (a, b, t))
        unit = units[kname]
        if name == "add" and a == t and kind(t) == "f":
            # a reduction into float32/float64 of another dtype (NumPy's pairwise sum)
            pw, sel = ("f32", "tl_cvtsel_float") if t == "float32" else ("f64", "tl_cvtsel_double")
            unit["lines"].append(f"TL_FUSED_LOOP_PW({lname}, {kname}, {swap}, {x}, {STORAGE[a]}, "
                                 f"{STORAGE[b]}, {SO}, {pw}, {sel})")
        else:
            unit["lines"].append(f"TL_FUSED_LOOP({lname}, {kname}, {swap}, {x}, {STORAGE[a]}, "
                                 f"{STORAGE[b]}, {SO})")
        unit["fused"].append(f'    {{"{name}", {{{idx}}}, {lname}}},')
    print(f"gen_loops: {len(keys)} fused mixed-input loops, {len(units)} kernels",
          file=sys.stderr)
    return list(units.values())


# The loops' tables: each one's C entry type and size macro
TABLES = (("loop", "tl_loop_entry", "TL_N_LOOPS"), ("mixed", "tl_mixed_entry", "TL_N_MIXED"),
          ("fused", "tl_fused_entry", "TL_N_FUSED"), ("ext", "tl_mixed_entry", "TL_N_EXT_LOOPS"),
          ("exti", "tl_mixed_entry", "TL_N_EXTI_LOOPS"))


def new_unit(weight=1):
    """Loops emitted together: their C lines and their rows of each table; weight: the compile
    time of one of its lines, relative to a fused loop's."""
    return {"lines": [], "weight": weight, **{key: [] for key, _, _ in TABLES}}


def unit_weight(u):
    """A guess of the unit's compile time, to balance the parts."""
    return u["weight"] * len(u["lines"])


HEADLINE = ("/* autogenerated by typelattice/_codegen/gen_loops.py from typelattice/_ops.py:"
            " edit the op descriptions or the kernels/ headers, not this file */")
# helpers every part may use (static: unused ones cost nothing)
PART_PREAMBLE = ["TL_PAIRWISE(f32, float, float, TL_LD_id)",
                 "TL_PAIRWISE(f64, double, double, TL_LD_id)",
                 "TL_CPAIRWISE(c64, float)", "TL_CPAIRWISE(c128, double)",
                 "TL_PAIRWISE_CVT(f32, float, tl_cvt_float)",
                 "TL_PAIRWISE_CVT(f64, double, tl_cvt_double)", "TL_PAIRWISE_F16"]


def op_units():
    """One unit per op: its loops of every dtype."""
    units = []
    unit_of = {}
    for op in OPS:
        # (measured with gcc 12: a line of these ~0.2 s, of the fused loops ~0.02 s)
        unit = unit_of.get(NAN_FREE_TWIN.get(op.name))
        if unit is None:
            unit = new_unit(weight=10)
            units.append(unit)
        unit_of[op.name] = unit
        out, table, mixed = unit["lines"], unit["loop"], unit["mixed"]
        for t in op.loop_types():
            if cblocked_ok(op, t):
                F = "float" if t == "complex64" else "double"
                bname = f"tl_cblocked_{op.name}_{SUFFIX[t]}"
                cnum = "NPY_CFLOAT" if t == "complex64" else "NPY_CDOUBLE"
                out.append(f"TL_LOOP_BLOCKED_CPLX({bname}, {F}, {STORAGE[t]}, {cnum}, "
                           f"tl_loop_{op.name}_{SUFFIX[t]}, tl_cvtsel_{F})")
                real = real_operand_loop(op, t)
                if real:
                    out.append(f"{real[0]}({bname}_real, {F}, {cnum}, tl_cvtsel_{F}, {real[1]}, "
                               f"{bname})")
                    bname += "_real"
                if op.name in ("equal", "not_equal") and t == "complex128":
                    out.append(f"TL_LOOP_CEQ_WIDE({bname}_wide, {int(op.name == 'not_equal')}, "
                               f"{bname})")
                    bname += "_wide"
                mixed.append(f'    {{"{op.name}", {LOOP_TYPES.index(t)}, {bname}}},')
            if op.name == "divmod" and (t in BLOCKED_INT or t in ("float32", "float64")):
                C, sel, store = BLOCKED_INT[t] if t in BLOCKED_INT else BLOCKED[t]
                bname = f"tl_blocked_divmod_{SUFFIX[t]}"
                out.append(f"TL_LOOP_BLOCKED_SAME2({bname}, {C}, tl_loop_divmod_{SUFFIX[t]}, "
                           f"{sel}, {store})")
                mixed.append(f'    {{"divmod", {LOOP_TYPES.index(t)}, {bname}}},')
            elif op.name == "divmod" and t == "float16":
                # (the same-dtype loop, TL_LOOP_BLOCKED_SAME2 below, reads any operand dtype)
                mixed.append(f'    {{"divmod", {LOOP_TYPES.index(t)}, tl_loop_divmod_{SUFFIX[t]}}},')
            if op.name in BLOCKED_INT_OPS and t in BLOCKED_INT:
                C, sel, store = BLOCKED_INT[t]
                bname = f"tl_blocked_{op.name}_{SUFFIX[t]}"
                out.append(f"TL_LOOP_BLOCKED_SAME({bname}, {C}, {C}, tl_loop_{op.name}_{SUFFIX[t]}, "
                           f"{sel}, {store})")
                mixed.append(f'    {{"{op.name}", {LOOP_TYPES.index(t)}, {bname}}},')
            if blocked_ok(op, t):
                C, sel, store = BLOCKED[t]
                fn = host(f"tl_{kernel_name(op, t)}_{SUFFIX['float64' if C == 'double' else 'float32']}")
                oc, store = ("tl_bool", "tl_store_bool") if op.out == "bool" else (C, store)
                bname = f"tl_blocked_{op.name}_{SUFFIX[t]}"
                if fn in VCMP:
                    out.append(f"TL_LOOP_BLOCKED_CMP({bname}, {C}, {VCMP[fn]}, {sel})")
                elif op.name in BLOCKED_VIA_SAME:
                    same = f"tl_loop_{op.name}_{'f64' if C == 'double' else 'f32'}"
                    out.append(f"TL_LOOP_BLOCKED_SAME({bname}, {C}, {oc}, {same}, {sel}, {store})")
                elif op.name == "add" and t != "bfloat16":
                    # (ml_dtypes' bfloat16 add reduces in order, rounding every step)
                    pw = "f64" if C == "double" else "f32"
                    out.append(f"TL_LOOP_BLOCKED_RED({bname}, {C}, {oc}, {fn}, {sel}, {store}, "
                               f"{pw}, TL_FOLD_PAIRWISE)")
                elif op.name in ("subtract", "multiply", "divide") and t == "float16":
                    # (NumPy's half loops reduce these in float32, rounding once per call)
                    out.append(f"TL_LOOP_BLOCKED_RED({bname}, {C}, {oc}, {fn}, {sel}, {store}, "
                               "f32, TL_FOLD_IN_ORDER)")
                else:
                    out.append(f"TL_LOOP_BLOCKED({bname}, {C}, {oc}, {fn}, {sel}, {store})")
                if t in HALF and op.name in BITS16:
                    # (defined after the bit loop it runs, TL_LOOP_BLOCKED_BITS16 below)
                    out.append(f"static int tl_bblocked_{op.name}_{SUFFIX[t]}(TL_LOOP_ARGS);")
                    bname = f"tl_bblocked_{op.name}_{SUFFIX[t]}"
                fused = fused_name(op, t)
                if fused:
                    hop = "TL_HOP_" + kernel_name(op, t).upper()
                    # (none for the bit ops of half results: their kernels never call it, and
                    # the calls of a few elements keep the bit loops' NaN bits)
                    efn = ("NULL" if op.out == "bool"
                           or (t in HALF and op.name in ("copysign", "heaviside")) else fn)
                    out.append(f"TL_LOOP_FUSED16({fused}, {hop}, {HK[t]}, {efn}, {bname})")
                    bname = fused
                mixed.append(f'    {{"{op.name}", {LOOP_TYPES.index(t)}, {bname}}},')
        if op.nin == 1:
            table.extend(emit_unary(op, out))
            continue
        for t in op.loop_types():
            twin = twin_loop(op, t)
            if twin:
                table.append(twin_row(op, t, twin, out))
                continue
            start = len(out)
            sig = op.loop_signature(t)
            name = f"tl_loop_{op.name}_{SUFFIX[t]}"
            S = STORAGE[t]
            sfx = SUFFIX[t]
            if t in HALF and not op.native16:
                sfx = "f32"
            fn = f"tl_{kernel_name(op, t)}_{sfx}"
            lo, so = ld(t), st(t)
            if op.native16 and t in HALF:
                lo, so = "TL_LD_id", "TL_ST_id"
            indexed = "NULL"
            if op.nout == 2:
                if t in IDIV_TYPES:
                    out.append(f"TL_LOOP_DIVMOD_IDIV({name}, {SUFFIX[t]}, {S}, {fn})")
                elif op.name == "divmod" and t == "float32":
                    out.append(f"TL_LOOP_DIVMOD_VF32({name}, {fn})")
                elif op.name == "divmod" and t == "float64":
                    out.append(f"TL_LOOP_DIVMOD_VF64({name}, {fn})")
                elif op.name == "divmod" and t == "float16":
                    # NumPy's half divmod is float32's rounded once (npy_divmodf): float32 blocks
                    # through the vectorized float32 loop (element by element: NumPy's speed).
                    # (Not bfloat16: ml_dtypes' x % 0 is a NaN of the other sign, and its FP
                    # flags are others: none for x / 0, invalid for a NaN divisor.)
                    out.append(f"TL_LOOP_BLOCKED_SAME2({name}, float, tl_loop_divmod_f32, "
                               f"{BLOCKED[t][1]}, {BLOCKED[t][2]})")
                else:
                    out.append(f"TL_LOOP_DIVMOD({name}, {S}, {COMPUTE[t]}, {lo}, {so}, {fn})")
            elif op.rule == FIRST_INEXACT:
                if op.name == "ldexp" and t in ("float32", "float64"):
                    # and one reading int32 exponents, as NumPy's (np.frexp gives int32)
                    sfx_up = SUFFIX[t].upper()
                    out.append(f"TL_LOOP2_LDEXP({name}, {sfx_up}, {S}, int64_t, E64, {fn})")
                    out.append(f"TL_LOOP2_LDEXP({name}_e32, {sfx_up}, {S}, int32_t, E32, {fn})")
                    i32 = [LOOP_TYPES.index(x) for x in (t, "int32", t)] + [-1]
                    table.append(f'    {{"{op.name}", {{{", ".join(map(str, i32))}}}, '
                                 f"{name}_e32, NULL, NULL}},")
                else:
                    out.append(f"TL_LOOP2({name}, {S}, int64_t, {S}, {lo}, TL_LD_id, {so}, {fn})")
                # uint64 exponents as they are (NumPy's cast to int64 would wrap 2**63 and up)
                out.append(f"TL_LOOP2({name}_eu64, {S}, uint64_t, {S}, {lo}, TL_LD_u64_sat, "
                           f"{so}, {fn})")
                u64 = [LOOP_TYPES.index(x) for x in (t, "uint64", t)] + [-1]
                table.append(f'    {{"{op.name}", {{{", ".join(map(str, u64))}}}, {name}_eu64, '
                             "NULL, NULL},")
            elif op.out == "bool":
                if op.name in BOOL_RED and t == "bool":
                    out.append(f"TL_LOOP2_REDFN({name}, {S}, {lo}, {host(fn)}, "
                               f"tl_red_{BOOL_RED[op.name]}_b)")
                elif host(fn) in VCMP and t in ("float32", "float64"):
                    out.append(f"TL_LOOP2_CMP({name}, {S}, {VCMP[host(fn)]}, {host(fn)})")
                elif op.name in ("less", "less_equal", "greater", "greater_equal") \
                        and t in ("complex64", "complex128"):
                    F = "float" if t == "complex64" else "double"
                    out.append(f"TL_LOOP2_CCMP({name}, {op.name}, {SUFFIX[t]}, {S}, {F}, "
                               f"{host(fn)})")
                elif op.name in ("less", "less_equal", "greater", "greater_equal", "equal",
                                 "not_equal") and t in ("int64", "uint64"):
                    out.append(f"TL_LOOP2_ICMP64({name}, {op.name}, {SUFFIX[t]}, {S}, "
                               f"{host(fn)})")
                else:
                    out.append(f"TL_LOOP2({name}, {S}, {S}, npy_bool, {lo}, {lo}, TL_ST_id, "
                               f"{host(fn)})")
            else:
                if op.name == "add" and t in ("complex64", "complex128"):
                    F = "float" if t == "complex64" else "double"
                    out.append(f"TL_LOOP2_CPW({name}, {SUFFIX[t]}, {S}, {F}, {fn})")
                elif op.name == "add" and t in ("float32", "float64", "float16"):
                    pw = {"float32": "f32", "float64": "f64", "float16": "f16"}[t]
                    out.append(f"TL_LOOP2_PW({name}, {pw}, {S}, {lo}, {so}, {fn})")
                elif op.name in ("fmod", "remainder", "floor_divide") and t == "float32":
                    out.append(f"TL_LOOP2_VFMOD32({name}, {op.name}, {fn})")
                elif op.name in ("fmod", "remainder", "floor_divide") and t == "float64":
                    out.append(f"TL_LOOP2_VFMOD64({name}, {op.name}, {fn})")
                elif op.name in ("floor_divide", "remainder") and t in IDIV_TYPES:
                    out.append(f"TL_LOOP2_IDIV({name}, {op.name}, {SUFFIX[t]}, {S}, {fn})")
                elif op.name == "multiply" and t in ("int8", "uint8"):
                    out.append(f"TL_LOOP2_MUL8({name}, {S}, {fn})")
                elif op.name in ("left_shift", "right_shift") \
                        and t in ("int8", "uint8", "int16", "uint16"):
                    ut = STORAGE["u" + t.lstrip("u")]
                    out.append(f"TL_LOOP2_SHIFT({name}, {SUFFIX[t]}, {S}, {ut}, "
                               f"{int(op.name == 'left_shift')}, {fn})")
                elif op.name == "multiply" and t in ("complex64", "complex128"):
                    F = "float" if t == "complex64" else "double"
                    out.append(f"TL_LOOP2_CMUL({name}, {SUFFIX[t]}, {S}, {F}, {fn})")
                elif op.name in VMATH_BINARY and t in ("float32", "float64"):
                    out.append(f"TL_LOOP2_VMBIN({name}, {VMATH_BINARY[op.name]}, {SUFFIX[t]}, "
                               f"{S}, {t[-2:]}, {fn})")
                elif op.name in ("gcd", "lcm") and t in ("int8", "uint8"):
                    out.append(f"TL_LOOP2_TAB8({name}, {S}, {lo}, {so}, {fn})")
                elif op.name in ("gcd", "lcm") and kind(t) in "iu":
                    ut = STORAGE["u" + t.lstrip("u")]
                    sign = "U" if t.startswith("u") else "S"
                    w = 64 if t.endswith("64") else 32
                    out.append(f"TL_LOOP2_VGCD({name}, {op.name}, {w}, {S}, {ut}, {sign}, {lo}, "
                               f"{so}, {fn})")
                elif op.name == "power" and kind(t) in "iu":
                    # 8-bit in uint16 (the low byte is the same): gcc has no 8-bit multiply
                    ut = "uint16_t" if t in ("int8", "uint8") else STORAGE["u" + t.lstrip("u")]
                    out.append(f"TL_LOOP2_IPOW({name}, {S}, {ut}, {fn})")
                elif op.name in BOOL_RED and t == "bool":
                    out.append(f"TL_LOOP2_REDFN({name}, {S}, {lo}, {fn}, "
                               f"tl_red_{BOOL_RED[op.name]}_b)")
                elif op.name in MINMAX_RED and t in ("float32", "float64"):
                    out.append(f"TL_LOOP2_REDFN_VMM({name}, {S}, TL_LD_id, {fn}, "
                               f"tl_red_{op.name}_{SUFFIX[t]}, tl_vmm_{op.name}_{SUFFIX[t]})")
                elif op.name in MINMAX_RED and kind(t) in "iu":
                    out.append(f"TL_LOOP2_REDFN({name}, {S}, TL_LD_id, {fn}, "
                               f"tl_red_{op.name}_{SUFFIX[t]})")
                elif op.name == "divide" and t in ("complex64", "complex128"):
                    out.append(f"TL_LOOP2_CDIV({name}, {SUFFIX[t]}, {S}, "
                               f"{'float' if t == 'complex64' else 'double'}, {fn})")
                elif t == "complex64":
                    out.append(f"TL_LOOP2_RED_SEQ({name}, {S}, {lo}, {so}, {fn})")
                elif t not in HALF or (t == "float16" and op.name in KEEP_F16):
                    out.append(f"TL_LOOP2_RED({name}, {S}, {lo}, {so}, {fn})")
                else:
                    out.append(f"TL_LOOP2_RED16({name}, {S}, {lo}, {so}, {host(fn)})")
                if t in HALF and blocked_ok(op, t) and op.name not in BITS16:
                    # fused (or F16C blocks) for everything but reductions and accumulate's
                    # chain (the element loop's: the blocked loops went one element a block,
                    # float16 add.accumulate 3x NumPy's time, bfloat16 4.4x ml_dtypes')
                    other = fused_name(op, t) or f"tl_blocked_{op.name}_{SUFFIX[t]}"
                    out.append(f"static int {name}_h(TL_LOOP_ARGS) {{ "
                               f"if (TL_CHAIN_SHAPE(data, st, dims[0])) "
                               f"return {name}(ctx, data, dims, st, aux); "
                               f"return {other}(ctx, data, dims, st, aux); }}")
                indexed = name + "_at"
                out.append(f"TL_INDEXED({indexed}, {S}, {lo}, {so}, {fn})")
            init = "NULL"
            iv = identity_values(op, t)
            if iv is not None:
                init = name + "_initial"
                out.append(initial_fn(init, t, iv))
            types = [LOOP_TYPES.index(x) for x in sig] + [-1] * (4 - len(sig))
            if t in HALF and op.native16 and op.nout == 1:
                # mixed inputs cast to the bits a block at a time (no float32 form to fuse)
                bname = f"tl_hblocked_{op.name}_{SUFFIX[t]}"
                out.append(f"TL_LOOP_BLOCKED_HALF_BITS({bname}, {SUFFIX[t]}, {name})")
                mixed.append(f'    {{"{op.name}", {LOOP_TYPES.index(t)}, {bname}}},')
            if t in HALF and op.name in BITS16:
                name = f"tl_bits16_{op.name}_{SUFFIX[t]}"
                out.append(f"TL_LOOP_BITS16({name}, {SUFFIX[t]}, {op.name})")
                if blocked_ok(op, t):
                    out.append(f"TL_LOOP_BLOCKED_BITS16(tl_bblocked_{op.name}_{SUFFIX[t]}, "
                               f"{SUFFIX[t]}, {op.name}, {name}, tl_blocked_{op.name}_{SUFFIX[t]})")
            elif t in HALF and blocked_ok(op, t) and op.out != "bool":
                name = name + "_h"
            elif t in HALF and blocked_ok(op, t) and op.name in CMP16 + LOGIC16:
                # same-dtype float16/bfloat16 comparisons on the bits (no conversion)
                name = f"tl_cmp16_{op.name}_{SUFFIX[t]}"
                out.append(f"TL_LOOP_CMP16({name}, {SUFFIX[t]}, {op.name}, "
                           f"tl_blocked_{op.name}_{SUFFIX[t]})")
            elif t in HALF and blocked_ok(op, t):
                name = f"tl_blocked_{op.name}_{SUFFIX[t]}"
            wrap_single_version(op, t, out, start)
            table.append(f'    {{"{op.name}", {{{", ".join(map(str, types))}}}, {name}, '
                         f"{indexed}, (void *){init}}},")
    return units


def ext_units():
    """ml_dtypes' small floats: one float32-computing loop per op, for every such dtype."""
    units = []
    for op in OPS:
        if ext_ok(op):
            unit = new_unit()
            name = f"tl_ext_{op.name}"
            if op.nout == 2:
                mac = "TL_LOOP_EXT1_2" if op.nin == 1 else "TL_LOOP_EXT2_2"
                unit["lines"].append(f"{mac}({name}, tl_{op.kernel_bf16}_f32)")
            else:
                mac = "TL_LOOP_EXT1" if op.nin == 1 else "TL_LOOP_EXT"
                unit["lines"].append(f"{mac}({name}, tl_{op.kernel_bf16}_f32, "
                                     f"{int(op.out == 'bool')})")
            unit["ext"].append(f'    {{"{op.name}", -1, {name}}},')
            units.append(unit)
    # nextafter works on the codes (kernels/tl_loops_host.h), not in float32
    unit = new_unit()
    unit["lines"].append("TL_LOOP_EXT_NEXTAFTER(tl_ext_nextafter)")
    unit["ext"].append('    {"nextafter", -1, tl_ext_nextafter},')
    units.append(unit)
    return units


# ml_dtypes' sub-byte integers: the ops jax.numpy runs on them in their own type, to bool or
# (bitwise_count) to uint8 (its power raises; absolute, bitwise_count, gcd and lcm take the
# unsigned ones only: SUB_BYTE_UNSIGNED_ONLY, checked by the promoter), computed by the int8
# element function and wrapped (TL_LOOP_EXTI; divmod's two outputs: TL_LOOP_EXTI2_2)
EXTI_OPS = ("add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "maximum",
            "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
            "right_shift", "logical_and", "logical_or", "logical_xor", "equal", "not_equal", "less",
            "less_equal", "greater", "greater_equal", "negative", "positive", "sign", "square",
            "invert", "floor", "ceil", "trunc", "conjugate", "logical_not", "isnan", "isinf",
            "isfinite", "signbit", "divmod") + SUB_BYTE_UNSIGNED_ONLY


def exti_units():
    """One loop per op of EXTI_OPS serving every sub-byte integer dtype."""
    unit = new_unit()
    for name in EXTI_OPS:
        op = OPS_BY_NAME[name]
        outs = op.outs() if op.nin == 1 else (op.out,)
        fn = f"tl_{kernel_name(op, 'int8')}_{SUFFIX['int8']}"
        if op.nout == 2:
            unit["lines"].append(f"TL_LOOP_EXTI2_2(tl_exti_{name}, {fn})")
        else:
            mac = "TL_LOOP_EXTI1" if op.nin == 1 else "TL_LOOP_EXTI"
            out = {("bool",): "TL_EXTI_OUT_BOOL", ("uint8",): "TL_EXTI_OUT_U8"}.get(
                outs, "TL_EXTI_OUT_SAME")
            unit["lines"].append(f"{mac}(tl_exti_{name}, {fn}, {out})")
        unit["exti"].append(f'    {{"{name}", -1, tl_exti_{name}}},')
        if op.nin == 2:     # a Python int operand first (0) or second (1), taken as int64
            for side in (0, 1):
                unit["lines"].append(f"TL_LOOP_EXTI_PYINT(tl_exti_{name}_pyint{side}, "
                                     f"tl_exti_{name}, {side}, {op.nout})")
                unit["exti"].append(f'    {{"{name}@pyint{side}", -1, tl_exti_{name}_pyint{side}}},')
    return [unit]


def split(units, n):
    """n lists of units of about equal weight (heaviest first to the lightest list), each in the
    units' order."""
    load = [0] * n
    parts = [[] for _ in range(n)]
    for i in sorted(range(len(units)), key=lambda i: -unit_weight(units[i])):
        k = load.index(min(load))
        parts[k].append(i)
        load[k] += unit_weight(units[i])
    return [[units[i] for i in sorted(p)] for p in parts]


def emit_part(k, units):
    """The C source of part k: its units' loops and its slices of the tables."""
    out = [HEADLINE, '#include "tl_loops_host.h"', ""] + PART_PREAMBLE + [""]
    for u in units:
        out.extend(u["lines"])
    out.append("")
    for key, ctype, _ in TABLES:
        rows = [r for u in units for r in u[key]]
        out.append(f"TL_HIDDEN const {ctype} tl_{key}_part{k}[] = {{")
        out.extend(rows or ["    {0}"])
        out.append("};")
    return "\n".join(out) + "\n"


def emit_header(parts):
    """The module's _loops.h: the shared state, the error loops, and the tables joined from the
    parts' slices at import (tl_loops_join)."""
    out = [HEADLINE, "#ifndef TYPELATTICE_LOOPS_H", "#define TYPELATTICE_LOOPS_H",
           "#define TL_DEFINE_SHARED", '#include "tl_loops_host.h"', "#include <string.h>", "",
           f"#define TL_N_LOOP_TYPES {len(LOOP_TYPES)}"]
    # Error loops: registered on the fly for operand DTypes that have no promotion, so that the
    # user sees TypePromotionError (NumPy turns an error raised by a promoter into its generic
    # no-loop error). Their resolve_descriptors raises through a callback; one trampoline per
    # ufunc (slot) tells the callback which ufunc it is.
    out.append("typedef NPY_CASTING (*tl_err_cb_t)(int slot, PyArray_DTypeMeta *const *dtypes);")
    out.append("static tl_err_cb_t tl_err_cb = NULL;")
    # NumPy's scalar fast path (one input, one output of its type) may skip resolve_descriptors:
    # the loop's getter raises the same error, so no error loop ever runs
    out.append("typedef int (*tl_err_loop_cb_t)(PyObject *caller, PyArray_Descr *const *descrs);")
    out.append("static tl_err_loop_cb_t tl_err_loop_cb = NULL;")
    out.append("static int tl_err_get_loop(PyArrayMethod_Context *ctx, int aligned, int move_refs, "
               "const npy_intp *strides, PyArrayMethod_StridedLoop **out_loop, "
               "NpyAuxData **out_aux, NPY_ARRAYMETHOD_FLAGS *flags) { (void)aligned; "
               "(void)move_refs; (void)strides; (void)out_loop; (void)out_aux; (void)flags; "
               "return tl_err_loop_cb(ctx->caller, ctx->descriptors); }")
    for k in range(N_ERR_SLOTS):
        out.append(f"static NPY_CASTING tl_err_resolve_{k}(struct PyArrayMethodObject_tag *m, "
                   "PyArray_DTypeMeta *const *dt, PyArray_Descr *const *g, PyArray_Descr **l, "
                   f"npy_intp *v) {{ (void)m; (void)g; (void)l; (void)v; return tl_err_cb({k}, dt); }}")
    out.append(f"#define TL_N_ERR_SLOTS {N_ERR_SLOTS}")
    out.append("static void *const tl_err_resolvers[TL_N_ERR_SLOTS] = {"
               + ", ".join(f"(void *)tl_err_resolve_{k}" for k in range(N_ERR_SLOTS)) + "};")
    out.append("")
    join = ["static void tl_loops_join(void)", "{"]
    for key, ctype, n in TABLES:
        counts = [sum(len(u[key]) for u in part) for part in parts]
        out.append(f"#define {n} {sum(counts)}")
        out.append(f"static {ctype} tl_{key}_table[{max(1, sum(counts))}];")
        at = 0
        for k, c in enumerate(counts):
            out.append(f"extern TL_HIDDEN const {ctype} tl_{key}_part{k}[];")
            if c:
                join.append(f"    memcpy(tl_{key}_table + {at}, tl_{key}_part{k}, "
                            f"{c} * sizeof({ctype}));")
            at += c
    out.extend(join + ["}", "#endif"])
    return "\n".join(out) + "\n"


def emit(n_parts):
    """(_loops.h, [part sources])"""
    parts = split(op_units() + emit_fused() + ext_units() + exti_units(), n_parts)
    return emit_header(parts), [emit_part(k, units) for k, units in enumerate(parts)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("header", help="the module's _loops.h")
    ap.add_argument("parts", nargs="+", help="the C sources the loops are split into")
    args = ap.parse_args(argv)
    header, parts = emit(len(args.parts))
    for path, text in zip([args.header] + args.parts, [header] + parts):
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
