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

``out`` is ``"same"`` (the loop computes in the result type and returns it) or ``"bool"`` (the
operands are converted to the join and compared: comparisons and logical ops).

``kinds`` are the kinds of compute type the op accepts (b: bool, u, i: integers, f: floats incl.
bfloat16/float16, c: complex); a compute type of another kind raises ``kind_error`` (TypeError or
ValueError, as JAX raises). ``special`` maps operand-name pairs to a fixed result type name or to
an exception class name (bool|bool -> int32 for shifts; subtract(bool, bool) raises...).
``unsupported`` lists kinds JAX accepts but typelattice does not compute (documented gaps).
"""

JOIN = "join"
INEXACT = "inexact"
FIRST_INEXACT = "first_inexact"

# The dtypes loops exist for (the 15 core dtypes), in loop-registration order (narrowest first).
LOOP_TYPES = (
    "bool",
    "uint8", "uint16", "uint32", "uint64",
    "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64",
    "complex64", "complex128",
)
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

ALL = "buifc"
REAL = "buif"
INTS = "bui"


def kind(name):
    """'b', 'u', 'i', 'f' or 'c' for a canonical type name (weak kinds included); None if unknown."""
    if name in ("i*", "f*", "c*"):
        return name[0]
    for prefix, k in (("bool", "b"), ("uint", "u"), ("int", "i"), ("bfloat", "f"),
                      ("float", "f"), ("complex", "c")):
        if name.startswith(prefix):
            return k
    return None


class Op:
    """One ufunc: its dtype rule, domain, identity and element function."""

    def __init__(self, name, rule=JOIN, *, nin=2, nout=1, out="same", kinds=ALL,
                 kind_error="TypeError", special=None, unsupported="", identity=None,
                 reorderable=False, kernel=None, kernel16=None, kernel_bf16=None,
                 native16=False, quiet=False, doc="",
                 numpy_name=None, aliases=()):
        self.name = name
        self.rule = rule
        self.nin = nin
        self.nout = nout
        self.out = out
        self.kinds = kinds
        self.kind_error = kind_error
        self.special = dict(special or {})
        self.unsupported = unsupported
        self.identity = identity          # None, 0, 1, -1 (all bits set), True/False, "-inf"
        self.reorderable = reorderable
        self.kernel = kernel or name      # element function base name: tl_<kernel>_<suffix>
        self.kernel16 = kernel16 or self.kernel   # the same for float16/bfloat16 (in float32)
        self.kernel_bf16 = kernel_bf16 or self.kernel16   # bfloat16 if it differs (ml_dtypes)
        self.native16 = native16          # float16/bfloat16 element functions work on bits
        # never reports floating-point errors (NumPy's loops neither): NaN operands of
        # comparisons and min/max raise no 'invalid' warning
        self.quiet = quiet or out == "bool"
        self.doc = doc
        self.numpy_name = numpy_name or name
        self.aliases = tuple(aliases)

    def __repr__(self):
        return f"Op({self.name!r}, {self.rule!r}, out={self.out!r}, kinds={self.kinds!r})"

    # -- the rule ------------------------------------------------------------------------------
    def loop_types(self, types=LOOP_TYPES):
        """Compute types that get a loop: T such that op(T, T) computes in T."""
        res = []
        for t in types:
            if t not in LOOP_TYPES:
                continue
            k = kind(t)
            if k not in self.kinds or k in self.unsupported:
                continue
            if (t, t) in self.special:
                continue
            if self.rule == INEXACT and k not in "fc":
                continue
            if self.rule == FIRST_INEXACT and k != "f":
                continue
            res.append(t)
        return tuple(res)

    def resolve(self, a, b, join, materialize):
        """Loop dtypes (ins + outs, canonical names) for operand types ``a`` and ``b``.

        ``join(x, y)``: the rule set's join of two type names (None: no promotion);
        ``materialize(t)``: the concrete type of a (possibly weak) name. Raises
        TypePromotionError (as ``LookupError`` marker ``_NoPromotion``), TypeError or ValueError
        exactly as the op's rule says.
        """
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
            t = materialize(TO_INEXACT.get(a, a))
            if kind(t) != "f":
                raise _ERRORS[self.kind_error](f"{self.name} does not accept {a}")
            return (t, "int64", t)
        else:
            t = join(a, b)
            if t is None:
                raise _NoPromotion(a, b)
            if self.rule == INEXACT:
                t = TO_INEXACT.get(t, t)
            t = materialize(t)
        k = kind(t)
        if k not in self.kinds:
            what = {"f": "floating", "c": "complex", "b": "bool", "u": "unsigned integer",
                    "i": "integer"}.get(k, str(k))
            raise _ERRORS[self.kind_error](
                f"{self.name} does not accept {what} operands ({a}, {b} compute in {t})")
        if k in self.unsupported:
            raise TypeError(f"typelattice.{self.name} has no {t} loop: JAX accepts "
                            f"complex operands here but NumPy defines no complex {self.name} "
                            f"and typelattice does not implement one yet ({a}, {b})")
        if self.out == "bool":
            return (t, t, "bool")
        return (t,) * (self.nin + self.nout)

    def loop_signature(self, t):
        """(in dtypes..., out dtypes...) of the loop registered for compute type ``t``."""
        if self.rule == FIRST_INEXACT:
            return (t, "int64", t)
        if self.out == "bool":
            return (t, t, "bool")
        return (t,) * (self.nin + self.nout)


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
    Op("arctan2", INEXACT, unsupported="c",
       doc="Element-wise arc tangent of x1/x2 choosing the quadrant."),
    Op("hypot", INEXACT, kinds=REAL, kind_error="ValueError", identity=0, reorderable=True,
       doc="sqrt(x1**2 + x2**2); complex raises ValueError."),
    Op("copysign", INEXACT, kinds=REAL, quiet=True, doc="Magnitude of x1 with the sign of x2."),
    Op("nextafter", INEXACT, kinds=REAL, native16=True,
       doc="Next representable value of the result dtype after x1 towards x2."),
    Op("logaddexp", INEXACT, unsupported="c", identity="-inf", reorderable=True,
       doc="log(exp(x1) + exp(x2))."),
    Op("logaddexp2", INEXACT, unsupported="c", identity="-inf", reorderable=True,
       doc="log2(2**x1 + 2**x2)."),
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
OPS_BY_NAME = {op.name: op for op in OPS}
ALIASES = {alias: op.name for op in OPS for alias in op.aliases}


def docstring(op, rules_name="jax"):
    """The ufunc docstring, written from the op description."""
    rule = {JOIN: "the join of the operand types",
            INEXACT: "the join of the operand types made inexact (bool, (u)int8..32 -> float32; "
                     "(u)int64 -> float64)",
            FIRST_INEXACT: "the first operand's type made inexact"}[op.rule]
    if op.out == "bool":
        rule = "bool (the operands are compared in " + rule + ")"
    lines = [op.doc, "",
             f"Result dtype: {rule}, under rule set {rules_name!r}. Python int/float/complex "
             "operands are weak: they take the type of the array they meet.",
             ]
    if op.special:
        ex = "; ".join(f"{a}|{b} -> {r}" for (a, b), r in op.special.items())
        lines.append(f"Exceptions: {ex}.")
    if op.kinds != ALL:
        names = {"b": "bool", "u": "unsigned", "i": "signed", "f": "floating", "c": "complex"}
        lines.append("Accepted compute kinds: " + ", ".join(names[k] for k in op.kinds)
                     + f" (otherwise {op.kind_error}).")
    if op.unsupported:
        lines.append("Not implemented: complex operands (JAX accepts them; NumPy has no loop).")
    lines.append(f"Same values as numpy.{op.numpy_name} on the operands cast to the result dtype.")
    lines.append(f"The ufunc's __name__ is {rules_name}.{op.name}: libraries that map ufuncs to "
                 "their own functions by name (dask for .outer and divmod, CuPy, pandas) find no "
                 "NumPy-rule namesake and return NotImplemented instead of silently applying "
                 "NumPy's promotion.")
    return "\n".join(lines)
