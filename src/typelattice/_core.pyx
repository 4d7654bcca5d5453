# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled promotion tables and the fast promotion API (promote_types, result_type).

The tables come from _tables.h, generated at build time by _codegen/gen_tables.py from the rule
set modules: nothing is computed at import. User-defined rule sets are compiled at run time into
the same representation.
"""
from libc.stdint cimport int8_t
from cpython.bytes cimport PyBytes_AS_STRING

import numpy as np

from ._dtypes import dtype_of, operand_name
from ._weak import _marker_name
from ._errors import TypePromotionError

cdef object _ndarray = np.ndarray
cdef object _generic = np.generic
cdef object _dtype_type = np.dtype

cdef extern from "_tables.h":
    ctypedef struct tl_ruleset_t:
        const char *name
        const char *description
        int n
        const char *const *types
        const int8_t *join
        const int8_t *weak_to
        const int8_t *py_scalar
        const char *aliases
        int is_lattice
        const char *storage
    int TL_N_RULESETS
    const tl_ruleset_t tl_rulesets[]


cdef class CompiledRules:
    """A rule set as dense tables: what promote_types, result_type and the ufuncs consult."""

    def __repr__(self):
        return f"<typelattice rules {self.name!r}: {self.n} types>"

    cdef int join2(self, int a, int b) noexcept nogil:
        return self.join_table[a * self.n + b]

    cdef int code(self, object x) except -2:
        cdef int c
        cdef object t = type(x)
        cdef object key
        cdef size_t slot
        if t is int:
            c = self.py_scalar[1]
        elif t is float:
            c = self.py_scalar[2]
        elif t is bool:
            c = self.py_scalar[0]
        elif t is complex:
            c = self.py_scalar[3]
        else:
            slot = ((<size_t><void*>x) >> 4) & 255
            if self.cache_key[slot] == <void*>x:
                return self.cache_code[slot]
            if t is _ndarray or isinstance(x, _generic) and not isinstance(x, str):
                key = x.dtype       # (np.str_ is a name, as for np.promote_types)
            else:
                key = x
            slot = ((<size_t><void*>key) >> 4) & 255
            if self.cache_key[slot] == <void*>key:
                return self.cache_code[slot]
            return self._code_cached(key, slot)
        if c < 0:
            return self.code_slow(x)
        return c

    cdef int _code_cached(self, object key, size_t slot) except -2:
        cdef object t = type(key)
        cdef int c
        if not (t is str or isinstance(key, (type, _dtype_type))):
            return self.code_slow(key)
        r = self._codes.get(key)
        if r is None:
            c = self.code_slow(key)
            self._codes[key] = c
        else:
            c = r
        if len(self._alive) < 4096:
            self._alive.append(key)
            self.cache_key[slot] = <void*>key
            self.cache_code[slot] = c
        return c

    cdef int code_slow(self, object x) except -2:
        # Weak/ambiguous arrays (typelattice.weak, ndarray subclasses and other objects with a
        # __typelattice_type__ attribute) count as their lattice type, not as their dtype.
        if not isinstance(x, (str, type)):
            lt = getattr(x, "__typelattice_type__", None)
            if lt is not None:
                name = _marker_name(lt, self)
                if name is not None:
                    return self.index[name]
        name = operand_name(x, self.index, self.aliases, self.python_scalars, self)
        return self.index[name]

    # -- Python-level access ---------------------------------------------------------------------
    def code_of(self, x):
        """Position in ``types`` of an operand (dtype, name, array, scalar or Python scalar)."""
        return self.code(x)

    def name_of(self, x):
        return self.types[self.code(x)]

    def join_names(self, *names):
        """Join of type names (canonical or any operand form): a name, or None."""
        cdef int k = self.code(names[0])
        for x in names[1:]:
            if k < 0:
                break
            k = self.join2(k, self.code(x))
        return None if k < 0 else self.types[k]

    def weak_target(self, name):
        """The concrete type a weak type materializes to (None for a strong type)."""
        cdef int w = self.weak_to[self.index[name]]
        return None if w < 0 else self.types[w]

    def table(self):
        """The dense join table as nested lists of names (None: no promotion)."""
        T = self.types
        return [[None if self.join2(i, j) < 0 else T[self.join2(i, j)] for j in range(self.n)]
                for i in range(self.n)]

    def ruleset(self):
        """The RuleSet object behind these tables (for check, explain, hasse)."""
        if self.definition is None:
            from .rules import builtin
            self.definition = builtin()[self.name]
            try:
                self.definition._compiled = self    # (get_rules of it: the built-in itself)
            except AttributeError:
                pass
        return self.definition

    def __reduce__(self):
        if _BY_NAME.get(self.name) is self:
            return (get_rules, (self.name,))
        return (compile_rules, (self.definition,))


cdef CompiledRules _make(str name, str description, int n, types, const int8_t *join,
                         const int8_t *weak_to, const int8_t *py_scalar, aliases,
                         bint is_lattice, storage=None):
    cdef CompiledRules r = CompiledRules.__new__(CompiledRules)
    r.name = name
    r.description = description
    r.n = n
    r.is_lattice = is_lattice
    r.join_table = join
    r.weak_to = weak_to
    for i in range(4):
        r.py_scalar[i] = py_scalar[i]
    r.types = tuple(types)
    storage = storage or {}
    r.dtypes = tuple(dtype_of(storage.get(t, t)) for t in r.types)
    r.index = {t: i for i, t in enumerate(r.types)}
    r.aliases = dict(aliases)
    # a storage dtype that is no type of the set reads as the one type stored in it (a uint64
    # array is an `index` value), as the ufuncs' loops of that type take it
    stored = {}
    for t, d in storage.items():
        stored.setdefault(d, []).append(t)
    for d, ts in stored.items():
        if len(ts) == 1 and d not in r.index:
            r.aliases.setdefault(d, ts[0])
    r.python_scalars = {k: r.types[py_scalar[i]]
                        for i, k in enumerate(("bool", "int", "float", "complex"))
                        if py_scalar[i] >= 0}
    r._codes = {}
    r._alive = []
    for i in range(256):
        r.cache_key[i] = NULL
    return r


cdef dict _BY_NAME = {}


cdef dict _pairs(const char *text):
    out = {}
    for pair in text.decode().split(";"):
        if pair:
            a, b = pair.split("=")
            out[a] = b
    return out


cdef void _load_builtin():
    cdef const tl_ruleset_t *rs
    for i in range(TL_N_RULESETS):
        rs = &tl_rulesets[i]
        _BY_NAME[rs.name.decode()] = _make(
            rs.name.decode(), rs.description.decode(), rs.n,
            [rs.types[j].decode() for j in range(rs.n)], rs.join, rs.weak_to, rs.py_scalar,
            _pairs(rs.aliases), rs.is_lattice, _pairs(rs.storage))


_load_builtin()
cdef CompiledRules _DEFAULT = _BY_NAME["jax"]

BUILTIN_RULES = tuple(_BY_NAME)


def compile_rules(ruleset):
    """Compile a RuleSet object (e.g. a user-defined lattice) into dense tables at run time."""
    cached = getattr(ruleset, "_compiled", None)
    if cached is not None:
        return cached
    n = len(ruleset.types)
    if n > 127:
        raise ValueError(f"rule set {ruleset.name!r}: at most 127 types are supported")
    tab = ruleset.dense_table()
    join = bytes(bytearray((x & 0xFF) for row in tab for x in row))
    weak = bytes(bytearray((ruleset.index[ruleset.weak[t]] if t in ruleset.weak else -1) & 0xFF
                           for t in ruleset.types))
    pys = bytes(bytearray(ruleset.index.get(ruleset.python_scalars.get(k), -1) & 0xFF
                          for k in ("bool", "int", "float", "complex")))
    cdef CompiledRules r = _make(ruleset.name, ruleset.description, n, ruleset.types,
                                 <const int8_t*>PyBytes_AS_STRING(join),
                                 <const int8_t*>PyBytes_AS_STRING(weak),
                                 <const int8_t*>PyBytes_AS_STRING(pys),
                                 ruleset.canonicalize, ruleset.check(limit=0).ok,
                                 getattr(ruleset, "storage", None))
    r._owner = (join, weak, pys)
    r.definition = ruleset
    builtin = _BY_NAME.get(r.name)
    if builtin is not None:
        # a built-in's name means the built-in where it is unpickled and in its ufuncs' names
        if not _same_rules(r, builtin):
            from ._lattice import LatticeError
            raise LatticeError(f"rule set name {r.name!r} is a built-in rule set's, whose "
                               f"rules differ from these; give this one another name (name=..."
                               f", or a rule-set file's \"name\")")
        r = builtin
    try:
        ruleset._compiled = r
    except AttributeError:
        pass
    return r


cdef bint _same_rules(CompiledRules a, CompiledRules b):
    cdef int i
    if a.n != b.n or a.types != b.types or a.aliases != b.aliases \
            or a.python_scalars != b.python_scalars or a.dtypes != b.dtypes:
        return False
    for i in range(a.n * a.n):
        if a.join_table[i] != b.join_table[i]:
            return False
    for i in range(a.n):
        if a.weak_to[i] != b.weak_to[i]:
            return False
    return True


cpdef CompiledRules get_rules(object rules=None):
    """The compiled rule set for ``rules``: None (the default, "jax"), a name, a RuleSet object
    or a CompiledRules."""
    if rules is None:
        return _DEFAULT
    if type(rules) is str:
        r = _BY_NAME.get(rules)
        if r is None:
            raise ValueError(f"unknown rule set {rules!r}; built-in rule sets: "
                             + ", ".join(_BY_NAME))
        return r
    if isinstance(rules, CompiledRules):
        return rules
    if hasattr(rules, "dense_table"):
        return compile_rules(rules)
    raise TypeError(f"rules= takes a rule set name or object, not {type(rules).__name__}")


def set_default_rules(rules):
    """Change the rule set ``promote_types``/``result_type`` use when ``rules=`` is not given;
    returns the previous one. The ufuncs keep the rule set they were made for (``typelattice.add``:
    'jax'); ``make_ufuncs(rules)`` makes ufuncs of another."""
    global _DEFAULT
    prev = _DEFAULT
    _DEFAULT = get_rules(rules)
    return prev


cdef object _naming_every_operand(exc, CompiledRules r, operands):
    """``exc`` (one operand's type is none of r's) naming every operand, as a ufunc's does;
    ``exc`` itself for another error."""
    if len(operands) < 2 or len(exc.operands) != 1 or exc.hint is None \
            or "is not a type of rule set" not in exc.hint:
        return exc
    names = []
    for x in operands:
        try:
            names.append(r.name_of(x))
        except TypePromotionError as e:
            names.append(e.operands[0] if len(e.operands) == 1 else repr(x))
        except Exception:
            return exc
    return TypePromotionError(tuple(names), r, hint=exc.hint)


cdef object _no_promotion(CompiledRules r, operands):
    names = tuple(r.types[r.code(x)] for x in operands)
    return TypePromotionError(names, r)


cdef object _no_dtype(CompiledRules r, int k):
    return TypeError(f"type {r.types[k]!r} of rule set {r.name!r} has no NumPy dtype; "
                     "use typelattice.join() for table-level results")


def _operand_label(x):
    if isinstance(x, np.dtype):
        from ._errors import dtype_label
        return dtype_label(x)
    if isinstance(x, type):
        return x.__name__
    if isinstance(x, str):
        return repr(x)
    from ._errors import _describe_operand
    return _describe_operand(x)


cdef object _unsupported_operand(exc, call, CompiledRules r, operands):
    """``exc`` (a TypeError from an operand no rule set promotes: object, datetime, longdouble...)
    naming the call, its operands and the rule set."""
    labels = ", ".join(_operand_label(x) for x in operands[:6]) + \
        (", ..." if len(operands) > 6 else "")
    msg = str(exc)
    if "rule set" not in msg:
        msg += f" (rule set {r.name!r})"
    return TypeError(f"{call}({labels}): {msg}")


def operand_error(exc, call, rules, operands):
    """The error for ``call``'s ``operands`` (e.g. a weak array's ufunc call) where finding an
    operand's type under ``rules`` raised ``exc``: naming every operand, the call and the rule
    set as promote_types' and the ufuncs' errors do."""
    cdef CompiledRules r = get_rules(rules)
    if isinstance(exc, TypePromotionError):
        return _naming_every_operand(exc, r, operands)
    return _unsupported_operand(exc, call, r, operands)


def promote_types(a, b, *, rules=None):
    """The dtype to which a binary operation promotes operands of types ``a`` and ``b``.

    ``a`` and ``b`` may be dtypes, scalar types, type names ('int8', 'bfloat16', 'f*'), arrays or
    scalars; the Python types int/float/complex stand for weak types. A weak result is
    materialized at the rule set's default width. Raises TypePromotionError when there is no
    promotion.
    """
    cdef CompiledRules r = get_rules(rules)
    cdef int i, j
    try:
        i = r.code(a)
        j = r.code(b)
    except TypePromotionError as exc:
        raise _naming_every_operand(exc, r, (a, b)) from None
    except TypeError as exc:
        raise _unsupported_operand(exc, "promote_types", r, (a, b)) from None
    cdef int k = r.join2(i, j)
    if k < 0:
        raise _no_promotion(r, (a, b))
    if r.weak_to[k] >= 0:
        k = r.weak_to[k]
    d = r.dtypes[k]
    if d is None:
        raise _no_dtype(r, k)
    return d


def result_type(*operands, rules=None, return_weak_type_flag=False):
    """The result dtype of an operation on ``operands`` (JAX's ``result_type``).

    Dtypes, type names, arrays, NumPy scalars and 0-d arrays are strong; Python int/float/complex
    values and the types int/float/complex are weak (bool never is). The result is the join of
    all operands, independent of their order for lattice rule sets (a left fold for table rule
    sets). A weak result is materialized at the rule set's default width; with
    ``return_weak_type_flag=True`` the answer is ``(dtype, weak)``.
    """
    if not operands:
        raise ValueError("at least one array or dtype is required")
    cdef CompiledRules r = get_rules(rules)
    cdef int k
    cdef Py_ssize_t m
    try:
        k = r.code(operands[0])
        for m in range(1, len(operands)):
            k = r.join2(k, r.code(operands[m]))
            if k < 0:
                raise _no_promotion(r, operands)
    except TypePromotionError as exc:
        raise _naming_every_operand(exc, r, operands) from None
    except TypeError as exc:
        raise _unsupported_operand(exc, "result_type", r, operands) from None
    cdef bint weak = r.weak_to[k] >= 0
    if weak:
        k = r.weak_to[k]
    d = r.dtypes[k]
    if d is None:
        raise _no_dtype(r, k)
    if return_weak_type_flag:
        return d, weak
    return d


def join(*types, rules=None):
    """The join of ``types`` as a canonical type name (weak results stay weak: 'f*', 'int32?').

    Works for every type of a rule set, including those with no NumPy dtype (Mojo MAX's 'index',
    'tensor_float32'). Raises TypePromotionError when there is no promotion.
    """
    if not types:
        raise ValueError("join() needs at least one type")
    cdef CompiledRules r = get_rules(rules)
    try:
        res = r.join_names(*types)
    except TypePromotionError as exc:
        raise _naming_every_operand(exc, r, types) from None
    except TypeError as exc:
        raise _unsupported_operand(exc, "join", r, types) from None
    if res is None:
        raise _no_promotion(r, types)
    return res
