"""User-defined rule sets: a lattice or a table given as Python data or as a JSON/TOML file.

They work everywhere a built-in name does (``rules=`` of promote_types/result_type/join, the CLI's
``--rules FILE``), compiled into dense tables at run time: no rebuild.

Lattice (each type and its immediate successors)::

    {"name": "mini", "edges": {"bool": ["int8", "uint8"], "uint8": ["int16"], "int8": ["int16"]}}

``edges`` may also be a list of ``[from, to]`` pairs (as in the reference ``jax_lattice.json``).
Table (rows are the first operand; a missing cell, null, "-" or "" means no promotion)::

    {"name": "t", "table": {"int8": {"int8": "int8", "int16": "int16"}, ...}}

Optional keys: ``types`` (display order; types only named in edges are appended), ``weak``
({weak type: dtype it materializes to}), ``python_scalars`` ({"bool"/"int"/"float"/"complex":
type}), ``storage`` ({type: dtype it computes as}), ``description``, ``source``, ``names``.

Type names: NumPy's ('int8', 'float32', 'bfloat16', 'float8_e4m3fn'); NumPy spellings are
accepted and canonicalized as ``np.dtype`` reads them ('i1' -> int8, 'f8' -> float64, 'half' ->
float16; one-letter codes like 'b' are not: write 'bool'); weak types 'i*', 'f*', 'c*'; any other
name (e.g. 'index', 'int32?') is a type of the rule set's own,
with no NumPy dtype unless ``storage`` gives one. With ``"names": "short"`` (automatic when the file
has the reference tables' ``spelling`` key) the short spelling of the reference tables is used
instead: 'b' = bool, 'i8' = int8, 'u64' = uint64, 'bf16', 'f32', 'c64'.

Defaults: 'i*'/'f*'/'c*' present and ``python_scalars`` not given -> Python int/float/complex
map to them (and Python bool to 'bool' when present); 'i*'/'f*'/'c*' present and ``weak`` not
given -> they materialize as int64/float64/complex128 when those are types of the rule set.

A key of the wrong shape (a string or a list where a mapping is expected, a number or null as a
type name) and a rule set with no types raise ``LatticeError`` naming the key and what it takes.

A lattice that is not one (a cycle, a pair with two least upper bounds, ...) raises
``LatticeError`` naming the counterexample; pass ``validate=False`` to get the object anyway and
inspect it with ``check()``.
"""
import json
import os

from ._lattice import LatticeError, LatticeRules, TableRules
from ._names import CORE, EXTENDED, FROM_SHORT, WEAK

__all__ = ["lattice", "promotion_table", "rules_from_dict", "load_rules_file"]

_KNOWN = set(CORE) | set(EXTENDED) | set(WEAK)
_DEFAULT_WEAK = {"i*": "int64", "f*": "float64", "c*": "complex128"}
_PY = {"i*": "int", "f*": "float", "c*": "complex"}


def _namer(names):
    if names == "short":
        return lambda t: FROM_SHORT.get(str(t), str(t))
    if names not in (None, "numpy"):
        raise LatticeError(f"names must be 'numpy' or 'short', not {names!r}")
    cache = {}

    def canonical(t):
        t = str(t)
        if t in _KNOWN or t.endswith("?"):
            return t
        if t not in cache:
            cache[t] = _numpy_name(t) or t   # else a type of the rule set's own (no dtype)
        return cache[t]
    return canonical


def _numpy_name(t):
    """Canonical name of a NumPy dtype spelling ('i1', 'f8', 'float32', 'half', 'bfloat16'), or
    None. One-letter codes ('b', 'h', 'd', ...) are not taken as dtypes: too easy to misread."""
    import re
    import warnings
    try:
        import ml_dtypes
        import numpy as np
        from ._dtypes import name_of_dtype
    except ImportError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (hasattr(np, "object") warns, as np.dtype("a") does)
        if not (re.fullmatch(r"[biufc]\d{1,2}", t) or hasattr(np, t) or hasattr(ml_dtypes, t)):
            return None
        try:
            return name_of_dtype(np.dtype(getattr(ml_dtypes, t, t)))
        except (TypeError, ValueError):
            return None


def _got(value):
    """``value`` described for an error message: its type and (short) repr."""
    if value is None:
        return "null (None)"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _type_name(t, name, where):
    """``t`` when it is a type name (a non-empty string), else LatticeError naming ``where``: a
    number or null would become a type named "1" or "None"."""
    if not isinstance(t, str) or not t:
        raise LatticeError(f"rule set {name!r}: {where} must be a type name (a non-empty "
                           f"string), got {_got(t)}")
    return t


def _type_list(value, name, key):
    """The type names of list ``value`` (the value of ``key``), else LatticeError."""
    if not isinstance(value, (list, tuple)):
        raise LatticeError(f"rule set {name!r}: {key!r} must be a list of type names, got "
                           f"{_got(value)}")
    return [_type_name(t, name, f"each entry of {key!r}") for t in value]


def _type_map(value, name, key, expected):
    """The (key, value) pairs of mapping ``value`` (the value of ``key``), each a string, else
    LatticeError saying what ``key`` expects."""
    if not isinstance(value, dict):
        raise LatticeError(f"rule set {name!r}: {key!r} must be a mapping {expected}, got "
                           f"{_got(value)}")
    return [(_type_name(k, name, f"each key of {key!r}"),
             _type_name(v, name, f"{key!r}[{k!r}]")) for k, v in value.items()]


def _common(name, types, weak, python_scalars, storage, canon, all_types, key):
    types = [canon(t) for t in (_type_list(types, name, "types") if types is not None else [])]
    for t in all_types:
        if t not in types:
            types.append(t)
    if not types:
        raise LatticeError(f"rule set {name!r}: no types: {key!r} names none (and no 'types' "
                           "are given)")
    if weak is None:
        weak = {w: c for w, c in _DEFAULT_WEAK.items() if w in types and c in types}
    else:
        weak = {canon(w): canon(c) for w, c in _type_map(
            weak, name, "weak", '{weak type: the type it materializes as} ({"i*": "int64"})')}
    if python_scalars is None:
        python_scalars = {_PY[w]: w for w in WEAK if w in types}
        if "bool" in types:
            python_scalars["bool"] = "bool"
    else:
        python_scalars = {k: canon(v) for k, v in _type_map(
            python_scalars, name, "python_scalars",
            '{"bool"/"int"/"float"/"complex": type} ({"int": "i*"})')}
    storage = {canon(t): canon(d) for t, d in (_type_map(
        storage, name, "storage", '{type: NumPy dtype} ({"index": "uint64"})')
        if storage is not None else [])}
    for t, d in storage.items():
        if d not in CORE and d not in EXTENDED:
            raise LatticeError(f"rule set {name!r}: storage {t!r} -> {d!r} is not a NumPy dtype")
        if t in CORE or t in EXTENDED:
            # (NumPy's arrays of t are values of t: promote_types would answer in d while the
            # ufuncs compute in t)
            raise LatticeError(f"rule set {name!r}: storage {t!r} -> {d!r}: storage is for types "
                               f"of the rule set's own, and {t} is NumPy's dtype")
    for w, c in weak.items():
        if w in CORE or w in EXTENDED:
            # (every NumPy scalar and array of w would be weak)
            raise LatticeError(f"rule set {name!r}: weak {w!r} -> {c!r}: a weak type is a type "
                               f"of the rule set's own ('i*', 'int32?'), and {w} is NumPy's "
                               "dtype, whose arrays are strong")
    return types, weak, python_scalars, storage


def lattice(edges, *, name="user", types=None, weak=None, python_scalars=None, storage=None,
            description="", source="", names="numpy", validate=True):
    """A lattice rule set from ``{type: [immediate successors]}`` (or a list of [from, to]
    pairs). Raises LatticeError, naming a counterexample, when it is not a (partial) lattice."""
    canon = _namer(names)
    if isinstance(edges, dict):
        pairs = [(_type_name(a, name, "each key of 'edges'"), b)
                 for a, succ in edges.items() for b in _as_list(succ, name, a)]
        nodes = list(edges)
    else:
        if not isinstance(edges, (list, tuple)):
            raise LatticeError(f"rule set {name!r}: 'edges' must be a mapping {{type: "
                               "[immediate successors]} or a list of [from, to] pairs, got "
                               f"{_got(edges)}")
        if any(not isinstance(p, (list, tuple)) or len(p) != 2 for p in edges):
            raise LatticeError(f"rule set {name!r}: each edge must be a [from, to] pair")
        pairs = [tuple(_type_name(t, name, "each end of an edge") for t in p) for p in edges]
        nodes = []
    edge_map = {}
    order = [canon(t) for t in nodes]
    for a, b in pairs:
        a, b = canon(a), canon(b)
        edge_map.setdefault(a, [])
        if b not in edge_map[a]:
            edge_map[a].append(b)
        order += [a, b]
    all_types = list(dict.fromkeys(order))
    types, weak, python_scalars, storage = _common(name, types, weak, python_scalars, storage,
                                                   canon, all_types, "edges")
    rs = LatticeRules(name, edge_map, types=types, weak=weak, python_scalars=python_scalars,
                      storage=storage, description=description or "user-defined lattice",
                      source=source)
    if validate:
        _validate(rs)
    return rs


def promotion_table(table, *, name="user", types=None, weak=None, python_scalars=None,
                    storage=None, description="", source="", names="numpy"):
    """A table rule set from ``{row: {col: result}}`` or ``{(row, col): result}`` (rows are the
    first operand; None, "-", "" or a missing cell: no promotion). Tables need not be lattices."""
    canon = _namer(names)
    cells = {}
    if not isinstance(table, dict):
        raise LatticeError(f"rule set {name!r}: table must map rows to {{column: result}} "
                           f"(or (row, column) pairs to results), not a {type(table).__name__}")
    if table and all(isinstance(k, tuple) for k in table):
        if any(len(k) != 2 for k in table):
            raise LatticeError(f"rule set {name!r}: table keys must be (row, column) pairs")
        items = [(a, b, r) for (a, b), r in table.items()]
    else:
        items = []
        for a, row in table.items():
            if not isinstance(row, dict):
                raise LatticeError(f"rule set {name!r}: table row {a!r} must map columns to results")
            items += [(a, b, r) for b, r in row.items()]
    order = []
    for a, b, r in items:
        a = canon(_type_name(a, name, "each table row"))
        b = canon(_type_name(b, name, f"each column of table row {a!r}"))
        r = None if r is None or r in ("-", "") else canon(
            _type_name(r, name, f"table cell ({a}, {b})"))
        cells[(a, b)] = r
        order += [a, b] + ([r] if r is not None else [])
    types, weak, python_scalars, storage = _common(name, types, weak, python_scalars, storage,
                                                   canon, list(dict.fromkeys(order)), "table")
    return TableRules(name, types, cells, weak=weak, python_scalars=python_scalars,
                      storage=storage, description=description or "user-defined table",
                      source=source)


def _as_list(succ, name, a):
    if isinstance(succ, str):
        return [succ]
    if succ is None:
        return []
    if not isinstance(succ, (list, tuple, set, frozenset)):
        raise LatticeError(f"rule set {name!r}: successors of {a!r} must be a list of type "
                           f"names, got {_got(succ)}")
    return [_type_name(t, name, f"each successor of {a!r} in 'edges'") for t in succ]


def _validate(rs):
    """Raise LatticeError with the check report when a lattice rule set is not a lattice."""
    if len(rs.types) > 127:
        raise LatticeError(f"rule set {rs.name!r}: {len(rs.types)} types, at most 127 supported")
    report = rs.check(limit=3)
    if not report.ok:
        raise LatticeError(f"rule set {rs.name!r} is not a lattice:\n" + report.format(limit=3))


def rules_from_dict(data, *, name=None, validate=True):
    """A rule set from a dict (the parsed content of a JSON/TOML rule set file)."""
    if not isinstance(data, dict):
        raise LatticeError("a rule set must be a mapping with 'edges' (a lattice) or 'table'")
    given = data.get("name")
    if given is not None and not isinstance(given, str):
        raise LatticeError(f"rule set {name or 'user'!r}: 'name' must be a string, got "
                           f"{_got(given)}")
    name = str(given or name or "user")
    for key in ("description", "source"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise LatticeError(f"rule set {name!r}: {key!r} must be a string, got "
                               f"{_got(data[key])}")
    names = data.get("names") or ("short" if "spelling" in data else "numpy")
    types = data.get("types")
    if not types and isinstance(types, (list, tuple, type(None))) \
            and data.get("nodes") is not None:
        types = _type_list(data["nodes"], name, "nodes")
    common = dict(name=name, types=types,
                  weak=data.get("weak"), python_scalars=data.get("python_scalars"),
                  storage=data.get("storage"), description=data.get("description") or "",
                  source=data.get("source") or "", names=names)
    has_edges, has_table = "edges" in data, "table" in data
    if has_edges == has_table:
        raise LatticeError(f"rule set {name!r}: give either 'edges' (a lattice) or 'table' "
                           "(rows = first operand), not " + ("both" if has_edges else "neither"))
    if has_edges:
        return lattice(data["edges"], validate=validate, **common)
    return promotion_table(data["table"], **common)


def load_rules_file(path, *, validate=True):
    """Read a rule set from a JSON or TOML file (TOML when the name ends in .toml)."""
    path = os.fsdecode(path)        # (bytes too, as open() takes them)
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        if path.endswith(".toml"):
            try:
                import tomllib
            except ImportError:  # Python 3.10
                try:
                    import tomli as tomllib
                except ImportError:
                    raise LatticeError(f"cannot read rule set file {path}: TOML files need "
                                       "Python 3.11 or the tomli package") from None
            with open(path, "rb") as f:
                data = tomllib.load(f)
        else:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
    except (ValueError, OSError) as exc:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise LatticeError(f"cannot read rule set file {path}: {exc}") from None
    try:
        rs = rules_from_dict(data, name=stem, validate=validate)
    except LatticeError as exc:
        raise LatticeError(f"{path}: {exc}") from None
    rs.source = rs.source or path
    return rs
