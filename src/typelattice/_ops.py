"""One declarative description of every typelattice ufunc.

Pure Python with no NumPy: the build-time loop generator (``_codegen/gen_loops.py``) imports it to
emit the C loops, ``_ufuncs.pyx`` reads it to create the ufuncs and to resolve dtypes in the
promoter, and the docstrings are written from it. Nothing here names a rule set: every rule is
stated in terms of a rule set's join (``join(a, b)`` over canonical type names, None when there is
no promotion), so the same description serves JAX's lattice and any other rule set.

Rules (``Op.rule``), observed from jax.numpy (x64) in ../shared/reference/jax_ops_rules.md:

* ``JOIN``: the result is the join of the operands (add, maximum, ...).
* ``INEXACT``: the join made inexact through JAX's table (bool and (u)int8..32 -> float32,
  (u)int64 -> float64, Python int -> weak float; floats and complex unchanged): divide, arctan2...
* ``FIRST_INEXACT``: the first operand made inexact; the second only has to be an integer (ldexp).
* ``DEFAULT_FLOAT`` (unary): bool and integers become the rule set's default float (the
  materialized weak float: float64 under JAX x64, even for int8); floats and complex unchanged (rint).

Unary ops (``nin=1``) use the same rules on their single operand: ``JOIN`` keeps the operand's
type, ``INEXACT`` makes it inexact through JAX's table. Their ``special`` keys are 1-tuples
(``("bool",): "TypeError"``).

``out`` is ``"same"`` (the loop computes in the result type and returns it) or ``"bool"`` (the
operands are converted to the join and compared: comparisons and logical ops); unary ops may also
use ``"real"`` (complex -> its real component type: absolute) or a tuple with one entry per output
(each ``"same"``, ``"bool"``, ``"real"`` or a fixed type name: frexp's ``("same", "int32")``).

``kinds`` are the kinds of compute type the op accepts (b: bool, u, i: integers, f: floats incl.
bfloat16/float16, c: complex); a compute type of another kind raises ``kind_error`` (TypeError or
ValueError, as JAX raises). ``special`` maps operand-name pairs to a fixed result type name or to
an exception class name (bool|bool -> int32 for shifts; subtract(bool, bool) raises...).
"""

from ._names import CORE, kind  # noqa: E402  (kind: 'b', 'u', 'i', 'f' or 'c' of a type name)

JOIN = "join"
INEXACT = "inexact"
FIRST_INEXACT = "first_inexact"
DEFAULT_FLOAT = "default_float"

# The dtypes loops exist for (the 15 core dtypes), in loop-registration order (narrowest first).
LOOP_TYPES = CORE
# Suffix of the element functions (kernels/tl_elem.h) for each loop type.
SUFFIX = {
    "bool": "b", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}

# JAX's dtypes._dtype_to_inexact: NOT the default float for small integers.
TO_INEXACT = {
    "bool": "float32",
    "uint8": "float32", "uint16": "float32", "uint32": "float32", "uint64": "float64",
    "int8": "float32", "int16": "float32", "int32": "float32", "int64": "float64",
    "int4": "float32", "uint4": "float32",
    "i*": "f*",
}


def to_inexact(t, materialize):
    """The type an INEXACT op computes type ``t`` in, materialized: JAX's table, also for a
    weak type it does not name (anvil's ambiguous int32? is an int32 there)."""
    t = materialize(TO_INEXACT.get(t, t))
    return materialize(TO_INEXACT[t]) if t in TO_INEXACT else t


ALL = "buifc"
REAL = "buif"
INTS = "bui"


class Op:
    """One ufunc: its dtype rule, domain, identity and element function."""

    def __init__(self, name, rule=JOIN, *, nin=2, nout=1, out="same", kinds=ALL,
                 kind_error="TypeError", special=None, identity=None,
                 reorderable=False, kernel=None, kernel16=None, kernel_bf16=None,
                 native16=False, bits16=False, quiet=False, doc="",
                 numpy_name=None, aliases=()):
        self.name = name
        self.rule = rule
        self.nin = nin
        self.nout = nout
        self.out = out
        self.kinds = kinds
        self.kind_error = kind_error
        self.special = dict(special or {})
        self.identity = identity          # None, 0, 1, -1 (all bits set), True/False, "-inf"
        self.reorderable = reorderable
        self.kernel = kernel or name      # element function base name: tl_<kernel>_<suffix>
        self.kernel16 = kernel16 or self.kernel   # the same for float16/bfloat16 (in float32)
        self.kernel_bf16 = kernel_bf16 or self.kernel16   # bfloat16 if it differs (ml_dtypes)
        self.native16 = native16          # float16/bfloat16 element functions work on bits
        # unary: float16/bfloat16 loops use bit-level element functions (sign-bit ops and
        # classification), while ml_dtypes' small floats still compute in float32
        self.bits16 = bits16
        # never reports floating-point errors (NumPy's loops neither): NaN operands of
        # comparisons and min/max raise no 'invalid' warning
        self.quiet = quiet or out == "bool"
        self.doc = doc
        self.numpy_name = numpy_name or name
        self.aliases = tuple(aliases)

    def __repr__(self):
        return f"Op({self.name!r}, {self.rule!r}, out={self.out!r}, kinds={self.kinds!r})"

    # -- the rule ------------------------------------------------------------------------------
    def outs(self):
        """One output spec ("same", "bool", "real" or a type name) per output."""
        if isinstance(self.out, tuple):
            return self.out
        return (self.out,) * self.nout

    def loop_types(self, types=LOOP_TYPES):
        """Compute types that get a loop: T such that op(T, T) computes in T."""
        if self.nin == 1:
            return self._loop_types1(types)
        res = []
        for t in types:
            if t not in LOOP_TYPES:
                continue
            k = kind(t)
            if k not in self.kinds:
                continue
            if (t, t) in self.special:
                continue
            if self.rule == INEXACT and k not in "fc":
                continue
            if self.rule == FIRST_INEXACT and k != "f":
                continue
            res.append(t)
        return tuple(res)

    def _loop_types1(self, types):
        res = []
        for t in types:
            if t not in LOOP_TYPES:
                continue
            k = kind(t)
            if k not in self.kinds or (t,) in self.special:
                continue
            if self.rule in (INEXACT, DEFAULT_FLOAT) and k not in "fc":
                continue
            res.append(t)
        return tuple(res)

    def _resolve1(self, a, materialize):
        sp = self.special.get((a,))
        if sp is not None:
            if sp in _ERRORS:
                raise _ERRORS[sp](f"{self.name} does not accept an operand of type {a}")
            t = sp
        elif self.rule == INEXACT:
            t = to_inexact(a, materialize)
        elif self.rule == DEFAULT_FLOAT:
            t = materialize(a if kind(a) in "fc" else "f*")
            if t == "f*":
                t = "float64"
        else:
            t = materialize(a)
        self._check_kind(t, f"{a} computes in {t}")
        return self.loop_signature(t)

    def _check_kind(self, t, operands):
        """Raise the op's error when compute type ``t`` is of a kind it rejects."""
        k = kind(t)
        if k is None:       # (a type of the rule set's own with no storage dtype)
            raise TypeError(f"{self.name} ({operands}): {t} has no NumPy dtype to compute in")
        if k not in self.kinds:
            what = {"f": "floating", "c": "complex", "b": "bool", "u": "unsigned integer",
                    "i": "integer"}.get(k, str(k))
            raise _ERRORS[self.kind_error](
                f"{self.name} does not accept {what} operands ({operands})")

    def resolve(self, a, b, join, materialize):
        """Loop dtypes (ins + outs, canonical names) for operand types ``a`` and ``b``.

        ``join(x, y)``: the rule set's join of two type names (None: no promotion);
        ``materialize(t)``: the concrete type of a (possibly weak) name. Raises
        TypePromotionError (as ``LookupError`` marker ``_NoPromotion``), TypeError or ValueError
        exactly as the op's rule says. Unary ops ignore ``b`` (None) and ``join``.
        """
        if self.nin == 1:
            return self._resolve1(a, materialize)
        sp = self.special.get((a, b))
        if sp is not None:
            if sp in _ERRORS:
                raise _ERRORS[sp](f"{self.name} does not accept operands ({a}, {b})")
            t = sp
        elif self.rule == FIRST_INEXACT:
            kb = kind(b)
            if kb not in INTS:
                raise _ERRORS[self.kind_error](
                    f"{self.name}: the second operand must be an integer, got {b}")
            ka = kind(a)
            if ka not in self.kinds:
                raise _ERRORS[self.kind_error](
                    f"{self.name}: the first operand must be real, got {a}")
            t = to_inexact(a, materialize)
            if kind(t) != "f":
                raise _ERRORS[self.kind_error](f"{self.name} does not accept {a}")
            return (t, "uint64" if b == "uint64" else "int64", t)
        else:
            t = join(a, b)
            if t is None and a == b and self.out == "bool" and self.name.startswith("logical_"):
                return (a, a, "bool")       # truth values of one type: no join needed
            if t is None:
                raise _NoPromotion(a, b)
            t = to_inexact(t, materialize) if self.rule == INEXACT else materialize(t)
        self._check_kind(t, f"{a}, {b} compute in {t}")
        if self.out == "bool":
            return (t, t, "bool")
        return (t,) * (self.nin + self.nout)

    def loop_signature(self, t):
        """(in dtypes..., out dtypes...) of the loop registered for compute type ``t``."""
        if self.nin == 1:
            return (t,) + tuple(_out_type(o, t) for o in self.outs())
        if self.rule == FIRST_INEXACT:
            return (t, "int64", t)
        if self.out == "bool":
            return (t, t, "bool")
        return (t,) * (self.nin + self.nout)


_REAL_OF = {"complex64": "float32", "complex128": "float64"}


def _out_type(spec, t):
    """The output type of a unary loop computing in t for an output spec."""
    if spec == "same":
        return t
    if spec == "real":
        return _REAL_OF.get(t, t)
    return spec          # "bool" or a fixed type name


class _NoPromotion(LookupError):
    """No join: the caller turns it into TypePromotionError naming the rule set."""

    def __init__(self, a, b):
        super().__init__(a, b)
        self.operands = (a, b)


_ERRORS = {"TypeError": TypeError, "ValueError": ValueError}

_BOOLS = ("bool", "bool")

OPS = [
    # -- arithmetic: the join ---------------------------------------------------------------------
    Op("add", identity=0, reorderable=True,
       doc="Add arguments element-wise (bool + bool is logical or)."),
    Op("subtract", special={_BOOLS: "TypeError"},
       doc="Subtract arguments element-wise; subtract(bool, bool) raises TypeError."),
    Op("multiply", identity=1, reorderable=True,
       doc="Multiply arguments element-wise (bool * bool is logical and)."),
    Op("divide", INEXACT, aliases=("true_divide",),
       doc="True division; integers become float32 ((u)int8..32, bool) or float64 ((u)int64)."),
    Op("floor_divide", kinds=REAL, special={_BOOLS: "int32"},
       doc="Floor division; bool // bool is int32; complex raises TypeError."),
    Op("remainder", kinds=REAL, special={_BOOLS: "int32"}, aliases=("mod",),
       doc="Python-style remainder (sign of the divisor); bool % bool is int32."),
    Op("fmod", kinds=REAL, special={_BOOLS: "int32"},
       doc="C-style remainder (sign of the dividend); bool|bool is int32."),
    Op("divmod", kinds=REAL, nout=2, special={_BOOLS: "int32"},
       doc="(floor_divide(x, y), remainder(x, y)); bool|bool is int32."),
    Op("power", special={_BOOLS: "int32", ("bool", "i*"): "int32"},
       doc="x ** y: the join, except bool ** bool and bool ** Python int are int32. Integer "
           "arrays to negative integer powers raise ValueError (as NumPy)."),
    Op("float_power", INEXACT,
       doc="x ** y in the inexact join (float16 ** float16 stays float16, int8 ** int8 is "
           "float32), unlike NumPy's float64."),
    # -- min/max ------------------------------------------------------------------------------------
    Op("maximum", reorderable=True, quiet=True, kernel16="maximum_h", kernel_bf16="maximum",
       doc="Element-wise maximum, propagating NaNs (complex: lexicographic)."),
    Op("minimum", reorderable=True, quiet=True, kernel16="minimum_h", kernel_bf16="minimum",
       doc="Element-wise minimum, propagating NaNs (complex: lexicographic)."),
    Op("fmax", reorderable=True, quiet=True, kernel16="fmax_h", kernel_bf16="fmax", doc="Element-wise maximum, ignoring NaNs."),
    Op("fmin", reorderable=True, quiet=True, kernel16="fmin_h", kernel_bf16="fmin", doc="Element-wise minimum, ignoring NaNs."),
    # -- float functions: the inexact join ----------------------------------------------------------
    Op("arctan2", INEXACT,
       doc="Element-wise arc tangent of x1/x2 choosing the quadrant (complex: JAX's "
           "-i log((x2 + i x1) / sqrt(x2**2 + x1**2)))."),
    Op("hypot", INEXACT, kinds=REAL, kind_error="ValueError", identity=0, reorderable=True,
       doc="sqrt(x1**2 + x2**2); complex raises ValueError."),
    Op("copysign", INEXACT, kinds=REAL, quiet=True, doc="Magnitude of x1 with the sign of x2."),
    Op("nextafter", INEXACT, kinds=REAL, native16=True,
       doc="Next representable value of the result dtype after x1 towards x2."),
    Op("logaddexp", INEXACT, identity="-inf", reorderable=True,
       doc="log(exp(x1) + exp(x2)) (complex: JAX's m + log1p(exp(x1 + x2 - 2m)), m = maximum(x1, "
           "x2), imaginary part wrapped into [-pi, pi))."),
    Op("logaddexp2", INEXACT, identity="-inf", reorderable=True,
       doc="log2(2**x1 + 2**x2) (complex: JAX's m + log1p(exp2(x1 + x2 - 2m)) / ln 2, "
           "imaginary part wrapped into [-pi/ln 2, pi/ln 2))."),
    Op("heaviside", INEXACT, kinds=REAL, quiet=True, doc="Heaviside step function (x2 where x1 == 0)."),
    Op("ldexp", FIRST_INEXACT, kinds=REAL, kind_error="ValueError",
       doc="x1 * 2**x2; the result is the first operand made inexact, x2 must be an integer."),
    # -- integer ops ---------------------------------------------------------------------------------
    Op("gcd", kinds="ui", kind_error="ValueError", special={_BOOLS: "ValueError"}, identity=0,
       reorderable=True, doc="Greatest common divisor; integers only (ValueError otherwise)."),
    Op("lcm", kinds="ui", kind_error="ValueError", special={_BOOLS: "ValueError"},
       doc="Least common multiple; integers only (ValueError otherwise)."),
    Op("bitwise_and", kinds=INTS, identity=-1, reorderable=True,
       doc="Bit-wise and; integers and bool only."),
    Op("bitwise_or", kinds=INTS, identity=0, reorderable=True,
       doc="Bit-wise or; integers and bool only."),
    Op("bitwise_xor", kinds=INTS, identity=0, reorderable=True,
       doc="Bit-wise xor; integers and bool only."),
    Op("left_shift", kinds=INTS, special={_BOOLS: "int32"},
       doc="Shift bits left; bool << bool is int32; shifts >= the width give 0."),
    Op("right_shift", kinds=INTS, special={_BOOLS: "int32"},
       doc="Shift bits right (arithmetic for signed types); bool >> bool is int32."),
    # -- logical and comparison: bool out -------------------------------------------------------------
    Op("logical_and", out="bool", identity=True, reorderable=True, doc="Logical and."),
    Op("logical_or", out="bool", identity=False, reorderable=True, doc="Logical or."),
    Op("logical_xor", out="bool", identity=False, reorderable=True, doc="Logical xor."),
    Op("equal", out="bool", doc="x1 == x2, compared in the join of the operands."),
    Op("not_equal", out="bool", doc="x1 != x2, compared in the join of the operands."),
    Op("less", out="bool", doc="x1 < x2, compared in the join (complex: lexicographic)."),
    Op("less_equal", out="bool", doc="x1 <= x2, compared in the join."),
    Op("greater", out="bool", doc="x1 > x2, compared in the join."),
    Op("greater_equal", out="bool", doc="x1 >= x2, compared in the join."),
]

_U = ("bool",)
_INEX = "to inexact through JAX's table"

UNARY_OPS = [
    # -- float functions: the operand made inexact (bool, (u)int8..32 -> float32; (u)int64 -> float64)
    Op("sqrt", INEXACT, nin=1, doc="Non-negative square root, element-wise."),
    Op("cbrt", INEXACT, nin=1, kinds=REAL, doc="Cube root, element-wise; complex raises TypeError."),
    Op("exp", INEXACT, nin=1, doc="Exponential, element-wise."),
    Op("exp2", INEXACT, nin=1, doc="2**x, element-wise."),
    Op("expm1", INEXACT, nin=1, doc="exp(x) - 1, element-wise."),
    Op("log", INEXACT, nin=1, doc="Natural logarithm, element-wise."),
    Op("log2", INEXACT, nin=1, doc="Base-2 logarithm, element-wise."),
    Op("log10", INEXACT, nin=1, doc="Base-10 logarithm, element-wise."),
    Op("log1p", INEXACT, nin=1, doc="log(1 + x), element-wise."),
    Op("sin", INEXACT, nin=1, doc="Sine, element-wise."),
    Op("cos", INEXACT, nin=1, doc="Cosine, element-wise."),
    Op("tan", INEXACT, nin=1, doc="Tangent, element-wise."),
    Op("arcsin", INEXACT, nin=1, aliases=("asin",), doc="Inverse sine, element-wise."),
    Op("arccos", INEXACT, nin=1, aliases=("acos",), doc="Inverse cosine, element-wise."),
    Op("arctan", INEXACT, nin=1, aliases=("atan",), doc="Inverse tangent, element-wise."),
    Op("sinh", INEXACT, nin=1, doc="Hyperbolic sine, element-wise."),
    Op("cosh", INEXACT, nin=1, doc="Hyperbolic cosine, element-wise."),
    Op("tanh", INEXACT, nin=1, doc="Hyperbolic tangent, element-wise."),
    Op("arcsinh", INEXACT, nin=1, aliases=("asinh",), doc="Inverse hyperbolic sine."),
    Op("arccosh", INEXACT, nin=1, aliases=("acosh",), doc="Inverse hyperbolic cosine."),
    Op("arctanh", INEXACT, nin=1, aliases=("atanh",), doc="Inverse hyperbolic tangent."),
    Op("deg2rad", INEXACT, nin=1, doc="Degrees to radians (complex: both parts scaled, as JAX)."),
    Op("radians", INEXACT, nin=1, kernel="deg2rad", doc="Degrees to radians (as deg2rad)."),
    Op("rad2deg", INEXACT, nin=1, doc="Radians to degrees (complex: both parts scaled, as JAX)."),
    Op("degrees", INEXACT, nin=1, kernel="rad2deg", doc="Radians to degrees (as rad2deg)."),
    Op("reciprocal", INEXACT, nin=1,
       doc="1/x; integers become float32 ((u)int8..32, bool) or float64 ((u)int64), unlike "
           "NumPy's integer reciprocal."),
    Op("fabs", INEXACT, nin=1, kinds=REAL, bits16=True,
       doc="Absolute value as a float; complex raises TypeError."),
    Op("spacing", INEXACT, nin=1, kinds=REAL, kind_error="ValueError", native16=True,
       doc="Distance to the next representable value away from zero; complex raises ValueError."),
    Op("frexp", INEXACT, nin=1, nout=2, out=("same", "int32"), kinds=REAL, kernel16="frexp_h",
       kernel_bf16="frexp_h",
       doc="(mantissa, exponent): the mantissa is the operand made inexact, the exponent int32; "
           "complex raises TypeError."),
    Op("modf", INEXACT, nin=1, nout=2, kinds=REAL,
       doc="(fractional part, integral part), both the operand made inexact; complex raises "
           "TypeError."),
    # -- the operand's own type ----------------------------------------------------------------
    Op("negative", bits16=True, nin=1, special={_U: "TypeError"},
       doc="Numerical negative (integers wrap); bool raises TypeError."),
    Op("positive", bits16=True, nin=1, doc="Numerical positive (a copy); bool is accepted."),
    # quiet: NumPy reports no overflow/underflow for a complex absolute (|max + max j| is inf)
    Op("absolute", bits16=True, nin=1, out="real", aliases=("abs",), quiet=True,
       doc="Absolute value; complex gives its real type, bool stays bool, integers wrap at MIN."),
    Op("sign", nin=1, special={_U: "TypeError"}, kernel_bf16="sign_bf",
       doc="Sign (-1, 0, 1; NaN for NaN; complex: x/|x|); bool raises TypeError."),
    Op("square", nin=1, special={_U: "int32"}, doc="x*x; bool -> int32."),
    Op("floor", nin=1, kinds=REAL,
       doc="Floor; integers and bool keep their type; complex raises TypeError."),
    Op("ceil", nin=1, kinds=REAL,
       doc="Ceiling; integers and bool keep their type; complex raises TypeError."),
    Op("trunc", nin=1, kinds=REAL,
       doc="Truncation; integers and bool keep their type; complex raises TypeError."),
    Op("rint", DEFAULT_FLOAT, nin=1,
       doc="Round to nearest even; bool and integers become the DEFAULT float (float64 under "
           "x64, even for int8), unlike the other float functions."),
    Op("conjugate", bits16=True, nin=1, aliases=("conj",),
       doc="Complex conjugate (the identity for real types)."),
    Op("invert", nin=1, kinds=INTS, aliases=("bitwise_not", "bitwise_invert"),
       doc="Bit-wise not (logical not for bool); integers and bool only."),
    Op("bitwise_count", nin=1, out="uint8", kinds=INTS,
       doc="Number of 1 bits in the absolute value, as uint8; integers and bool only."),
    # -- bool out ------------------------------------------------------------------------------
    Op("logical_not", bits16=True, nin=1, out="bool", doc="Logical not, any type."),
    Op("isnan", bits16=True, nin=1, out="bool", doc="NaN test (False for integers)."),
    Op("isinf", bits16=True, nin=1, out="bool", doc="Infinity test (False for integers)."),
    Op("isfinite", bits16=True, nin=1, out="bool", doc="Finiteness test (True for integers)."),
    Op("signbit", bits16=True, nin=1, out="bool", kinds=REAL, kind_error="ValueError",
       doc="Sign bit set (x < 0 for integers); complex raises ValueError."),
]
OPS.extend(UNARY_OPS)
OPS_BY_NAME = {op.name: op for op in OPS}
# ops jax.numpy runs on the unsigned sub-byte integers (uint1/2/4) but not on the signed ones
# (int2/int4: TypeError)
SUB_BYTE_UNSIGNED_ONLY = ("absolute", "bitwise_count", "gcd", "lcm")
# binary ops whose same-dtype float16/bfloat16 loops work on the bits (TL_LOOP_BITS16): they
# raise no FP flag of their own
BITS16 = ("copysign", "heaviside", "maximum", "minimum", "fmax", "fmin")
ALIASES = {alias: op.name for op in OPS for alias in op.aliases}


def docstring(op, rules_name="jax"):
    """The ufunc docstring, written from the op description."""
    rule = {JOIN: "the join of the operand types",
            INEXACT: "the join of the operand types made inexact (bool, (u)int8..32 -> float32; "
                     "(u)int64 -> float64)",
            FIRST_INEXACT: "the first operand's type made inexact"}.get(op.rule, "")
    if op.out == "bool":
        rule = "bool (the operands are compared in " + rule + ")"
    if op.nin == 1:
        rule = {JOIN: "the operand's type",
                INEXACT: "the operand's type made inexact (bool, (u)int8..32 -> float32; "
                         "(u)int64 -> float64; floats and complex unchanged)",
                DEFAULT_FLOAT: "the default float for bool and integers (float64 under x64), "
                               "else the operand's type"}[op.rule]
        outs = op.outs()
        if outs == ("bool",):
            rule = "bool"
        elif outs == ("real",):
            rule += ", complex -> its real type"
        elif len(outs) == 1 and outs[0] != "same":
            rule = f"{outs[0]} (computed in the operand's type)"
        elif len(outs) > 1:
            rule = "(" + ", ".join(rule if o == "same" else o for o in outs) + ")"
    weak = ("Python int/float/complex operands are weak: they take the type of the array they "
            "meet." if op.nin == 2 else "A Python int/float/complex operand is weak: the rule "
            "applies to the weak type, which then becomes the default int/float/complex.")
    lines = [op.doc, "",
             f"Result dtype: {rule}, under rule set {rules_name!r}. {weak}",
             ]
    if op.special:
        ex = "; ".join(f"{'|'.join(k)} -> {r}" for k, r in op.special.items())
        lines.append(f"Exceptions: {ex}.")
    if op.kinds != ALL:
        names = {"b": "bool", "u": "unsigned", "i": "signed", "f": "floating", "c": "complex"}
        lines.append("Accepted compute kinds: " + ", ".join(names[k] for k in op.kinds)
                     + f" (otherwise {op.kind_error}).")
    if op.nin == 1:
        lines.append(f"Same values as numpy.{op.numpy_name} on the operand cast to the dtype the "
                     "loop computes in (float16/bfloat16 in float32, rounded to nearest even).")
    else:
        lines.append(f"Same values as numpy.{op.numpy_name} on the operands cast to the result "
                     "dtype.")
    lines.append(f"The ufunc's __name__ is {rules_name}.{op.name}: libraries that map ufuncs to "
                 "their own functions by name (dask for .outer and divmod, CuPy, pandas) find no "
                 "NumPy-rule namesake and return NotImplemented instead of silently applying "
                 "NumPy's promotion.")
    return "\n".join(lines)
