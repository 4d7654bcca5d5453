"""Promotion rule sets as data, their joins, and proofs of their lattice properties.

Pure Python with no NumPy: the build-time generator imports it to compute and check every table
before emitting C, and the run time uses it for user-defined rule sets.

Two shapes of rule set:

* ``LatticeRules``: each type and its immediate successors (JAX's shape). The join of t1..tn is
  the unique c in CUB = UB(t1) & ... & UB(tn) with CUB <= UB(c) (UB(t): every type reachable from t,
  t included). An empty CUB means "no promotion" (a partial lattice is allowed); a non-empty CUB
  with no such c means two least upper bounds, and the rule set is not a lattice.
* ``TableRules``: an explicit table, possibly asymmetric (rows are the first operand), for systems
  that are not lattices (NumPy, TensorFlow, ...). The n-ary join is the left fold.

Weak types (JAX's Python scalars, anvil's ambiguous literals) are ordinary nodes listed in
``weak``, each with the concrete type it materializes to when a result is weak.
"""
from __future__ import annotations

import itertools
from collections import deque

__all__ = ["RuleSet", "LatticeRules", "TableRules", "CheckReport", "LatticeError"]


NON_ASSOCIATIVE = "non-associative triples ((a.b).c != a.(b.c))"
BOTH_DEFINED = "non-associative triples with both groupings defined"


class LatticeError(ValueError):
    """A rule set that claims to be a lattice is not one (raised at build time, and for user
    lattices when they are created); the message names a counterexample."""


class CheckReport:
    """What ``RuleSet.check`` found.

    ``kind`` is "lattice" (every pair has a unique join), "partial lattice" (some pairs have no
    upper bound, the others a unique join; commutative and associative where defined) or
    "not a lattice". The lists hold counterexamples, smallest first.
    """

    def __init__(self, rules):
        self.rules = rules
        self.asymmetric = []        # (a, b, a.b, b.a)
        self.non_associative = []   # (a, b, c, (a.b).c, a.(b.c))
        self.non_idempotent = []    # (t, t.t)
        self.multiple_lubs = []     # (a, b, [minimal upper bounds])
        self.no_upper_bound = []    # (a, b)
        self.counts = {}

    @property
    def kind(self):
        # check(limit=0) keeps no examples of non-associative triples, only their count.
        if (self.asymmetric or self.non_associative or self.non_idempotent or self.multiple_lubs
                or self.counts.get(NON_ASSOCIATIVE)):
            return "not a lattice"
        return "partial lattice" if self.no_upper_bound else "lattice"

    @property
    def ok(self):
        return self.kind != "not a lattice"

    def format(self, limit=5, label=None):
        label = label or (lambda t: t)
        r = self.rules
        lines = [f"rule set {r.name!r}: {self.kind} over {len(r.types)} types"]
        sections = [
            ("pairs with more than one least upper bound", self.multiple_lubs,
             lambda a, b, m: f"({label(a)}, {label(b)}): minimal upper bounds "
                             + ", ".join(label(x) for x in m)),
            ("asymmetric cells (a.b != b.a)", self.asymmetric,
             lambda a, b, x, y: f"{label(a)}.{label(b)} = {_show(x, label)}, "
                                f"{label(b)}.{label(a)} = {_show(y, label)}"),
            (NON_ASSOCIATIVE, self.non_associative,
             lambda a, b, c, x, y: f"({label(a)}, {label(b)}, {label(c)}): (a.b).c = "
                                   f"{_show(x, label)}, a.(b.c) = {_show(y, label)}"),
            ("non-idempotent types (t.t != t)", self.non_idempotent,
             lambda t, x: f"{label(t)}.{label(t)} = {_show(x, label)}"),
            ("pairs with no upper bound (no promotion)", self.no_upper_bound,
             lambda a, b: f"({label(a)}, {label(b)})"),
        ]
        for title, items, fmt in sections:
            total = self.counts.get(title, len(items))
            if not total:
                continue
            extra = ""
            if title == NON_ASSOCIATIVE and BOTH_DEFINED in self.counts:
                extra = (f" ({self.counts[BOTH_DEFINED]} with both groupings defined, "
                         f"{total - self.counts[BOTH_DEFINED]} defined on one side only)")
            lines.append(f"  {title}: {total}{extra}")
            for item in items[:limit]:
                lines.append("    " + fmt(*item))
            if total > limit:
                lines.append(f"    ... {total - limit} more")
        return "\n".join(lines)

    def __str__(self):
        return self.format()


def _show(x, label):
    return "none" if x is None else label(x)


class RuleSet:
    """Common interface: ``types`` (ordered), ``join(*types)``, ``weak``, ``check()``.

    Parameters shared by both shapes:
      name: the name users pass as ``rules=``.
      weak: {weak node: concrete type it materializes to}.
      python_scalars: {"bool"/"int"/"float"/"complex": node} for Python scalar operands.
      canonicalize: {type: type} applied to operands and to the result (JAX with x64 off maps
        64-bit types to 32-bit ones).
      storage: {type: NumPy dtype name} for a type of the rule set's own that computes as a NumPy
        dtype (Mojo MAX's 'index' is stored as uint64); types with neither a dtype of their own nor
        a storage dtype exist at table level only.
      description, source: for tables and docs.

    A rule set may also carry ``check_notes`` (a callable returning lines, optionally taking
    ``limit=``), printed by ``python -m typelattice check`` after the report.
    """

    is_lattice_shape = False

    def __init__(self, name, types, *, weak=None, python_scalars=None, canonicalize=None,
                 storage=None, description="", source=""):
        self.name = name
        self.types = tuple(types)
        if len(set(self.types)) != len(self.types):
            raise LatticeError(f"rule set {name!r}: duplicate type names")
        self.index = {t: i for i, t in enumerate(self.types)}
        self.weak = dict(weak or {})
        self.python_scalars = dict(python_scalars or {})
        self.canonicalize = dict(canonicalize or {})
        self.storage = dict(storage or {})
        self.description = description
        self.source = source
        for w, concrete in self.weak.items():
            if w not in self.index or concrete not in self.index:
                raise LatticeError(f"rule set {name!r}: weak type {w!r} -> {concrete!r} "
                                   "names a type outside the rule set")
        for kind_, t in self.python_scalars.items():
            if kind_ not in ("bool", "int", "float", "complex") or t not in self.index:
                raise LatticeError(f"rule set {name!r}: python_scalars {kind_!r} -> {t!r}: "
                                   "expected bool/int/float/complex -> a type of the rule set")
        for t in self.storage:
            if t not in self.index:
                raise LatticeError(f"rule set {name!r}: storage names unknown type {t!r}")
        self._table = None

    # -- joins ---------------------------------------------------------------------------------
    def join2(self, a, b):
        """Join of two type names (after canonicalization); None when there is no promotion."""
        raise NotImplementedError

    def join(self, *types):
        """Join of one or more type names; None when there is no promotion."""
        if not types:
            raise ValueError("join() needs at least one type")
        canon = self.canonicalize
        types = [canon.get(t, t) for t in types]
        for t in types:
            if t not in self.index:
                raise KeyError(t)
        result = self._join_n(types)
        return None if result is None else canon.get(result, result)

    def _join_n(self, types):
        acc = types[0]
        for t in types[1:]:
            acc = self.join2(acc, t)
            if acc is None:
                return None
        return acc

    def materialize(self, t):
        """(concrete type, is_weak) for a join result."""
        if t in self.weak:
            return self.weak[t], True
        return t, False

    def dense_table(self):
        """[[index of join(a, b) or -1 for b in types] for a in types], cached."""
        if self._table is None:
            idx = self.index
            self._table = [[-1 if (j := self.join(a, b)) is None else idx[j] for b in self.types]
                           for a in self.types]
        return self._table

    # -- properties ----------------------------------------------------------------------------
    def check(self, limit=None):
        """Prove or refute the lattice properties over every pair and triple."""
        report = CheckReport(self)
        n = len(self.types)
        tab = self.dense_table()
        T = self.types

        def get(i, j):
            return -1 if i < 0 or j < 0 else tab[i][j]

        for i in range(n):
            if tab[i][i] != i:
                report.non_idempotent.append((T[i], None if tab[i][i] < 0 else T[tab[i][i]]))
        report.multiple_lubs.extend(self._multiple_lubs())
        several = {frozenset(m[:2]) for m in report.multiple_lubs}
        for i, j in itertools.combinations(range(n), 2):
            if tab[i][j] != tab[j][i]:
                report.asymmetric.append((T[i], T[j], _name(T, tab[i][j]), _name(T, tab[j][i])))
            elif tab[i][j] < 0 and frozenset((T[i], T[j])) not in several:
                report.no_upper_bound.append((T[i], T[j]))
        count = both = 0
        examples = []
        keep = limit if limit is not None else 50
        # Smallest counterexamples first: triples ordered by their highest type position, then
        # by the sum of positions (types listed first, e.g. concrete before weak ones, come first).
        for i, j, k in sorted(itertools.product(range(n), repeat=3),
                              key=lambda t: (max(t), sum(t))):
            left = get(get(i, j), k)
            right = get(i, get(j, k))
            if left != right:
                count += 1
                both += left >= 0 and right >= 0
                if len(examples) < keep:
                    examples.append((T[i], T[j], T[k], _name(T, left), _name(T, right)))
        report.non_associative = examples
        report.counts[NON_ASSOCIATIVE] = count
        # Triples whose two groupings are both defined and differ; the others are defined on one
        # side only (e.g. the pair a.b has no promotion although a and b have upper bounds).
        report.counts[BOTH_DEFINED] = both
        return report

    def _multiple_lubs(self):
        return []

    def upper_bounds(self, t):
        """Every type t promotes to (t included), derived from the table: {u : join(t, u) == u}."""
        return {u for u in self.types if self.join(t, u) == u}

    def hasse(self):
        """Covering edges [(a, b)] of the order a <= b iff join(a, b) == b (for lattices)."""
        ub = {t: self.upper_bounds(t) for t in self.types}
        edges = []
        for a in self.types:
            above = ub[a] - {a}
            for b in above:
                if not any(b in ub[c] and c != b for c in above):
                    edges.append((a, b))
        order = self.index
        return sorted(edges, key=lambda e: (order[e[0]], order[e[1]]))

    def explain(self, *types):
        """Lines describing how the join of ``types`` is found: the cells of the left fold and,
        for a table that is not associative or commutative, what other operand orders give."""
        res = self.join(*types)
        lines = []
        if len(types) > 1:
            acc = types[0]
            for t in types[1:]:
                nxt = self.join(acc, t)
                lines.append(f"table cell ({acc}, {t}) = {'none' if nxt is None else nxt}")
                if nxt is None:
                    break
                acc = nxt
        if res is None:
            lines.append(f"{', '.join(types)}: no promotion under {self.name!r}")
        else:
            conc, weak = self.materialize(res)
            lines.append(f"join({', '.join(types)}) = {res}"
                         + (f" (weak; materializes as {conc})" if weak else ""))
        if 1 < len(types) <= 6:
            others = {}
            for perm in itertools.permutations(types):
                r = self.join(*perm)
                if r != res:
                    others.setdefault(r, perm)
            for r, perm in others.items():
                lines.append(f"order matters under {self.name!r}: join({', '.join(perm)}) = "
                             f"{'none' if r is None else r}")
            if len(types) == 3 and not others:
                a, b, c = types
                ab, bc = self.join(a, b), self.join(b, c)
                left = None if ab is None else self.join(ab, c)
                right = None if bc is None else self.join(a, bc)
                if left != right:
                    lines.append(f"grouping matters: ({a}.{b}).{c} = {left}, "
                                 f"{a}.({b}.{c}) = {right}")
        return lines

    def __getstate__(self):
        # The compiled tables are a cache that points back at this object: rebuild them after
        # unpickling instead of pickling the cycle.
        state = dict(self.__dict__)
        state.pop("_compiled", None)
        return state

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}: {len(self.types)} types>"


def _name(T, i):
    return None if i < 0 else T[i]


class LatticeRules(RuleSet):
    """A rule set given as a lattice: ``edges`` maps each type to its immediate successors."""

    is_lattice_shape = True

    def __init__(self, name, edges, *, types=None, **kw):
        nodes = list(types or [])
        for a, succ in edges.items():
            for t in (a, *succ):
                if t not in nodes:
                    nodes.append(t)
        super().__init__(name, nodes, **kw)
        self.edges = {t: tuple(edges.get(t, ())) for t in self.types}
        self.ub = self._closure()
        self._cache = {}

    def _closure(self):
        ub = {}
        state = {}

        def visit(t, stack):
            if state.get(t) == "done":
                return ub[t]
            if state.get(t) == "active":
                cycle = stack[stack.index(t):] + [t]
                raise LatticeError(f"rule set {self.name!r}: cycle in the lattice: "
                                   + " -> ".join(cycle))
            state[t] = "active"
            acc = {t}
            for s in self.edges[t]:
                acc |= visit(s, stack + [t])
            state[t] = "done"
            ub[t] = frozenset(acc)
            return ub[t]

        for t in self.types:
            visit(t, [])
        return ub

    def _lub(self, types):
        """(join or None, minimal upper bounds when there is no unique one)."""
        cub = frozenset.intersection(*(self.ub[t] for t in types))
        if not cub:
            return None, []
        least = [c for c in cub if cub <= self.ub[c]]
        if len(least) == 1:
            return least[0], []
        minimal = sorted((c for c in cub if not any(c in self.ub[d] and d != c for d in cub)),
                         key=self.index.get)
        return None, minimal

    def join2(self, a, b):
        return self._join_n([a, b])

    def _join_n(self, types):
        key = frozenset(types)
        try:
            return self._cache[key]
        except KeyError:
            pass
        res, minimal = self._lub(list(key))
        if minimal:
            raise LatticeError(f"rule set {self.name!r}: {', '.join(sorted(key))} have "
                               f"{len(minimal)} least upper bounds: {', '.join(minimal)}")
        self._cache[key] = res
        return res

    def dense_table(self):
        if self._table is None:
            idx = self.index
            T = self.types
            tab = []
            for a in T:
                row = []
                for b in T:
                    res, minimal = self._lub([self.canonicalize.get(a, a),
                                              self.canonicalize.get(b, b)])
                    if res is not None:
                        res = self.canonicalize.get(res, res)
                    row.append(-1 if res is None else idx[res])
                tab.append(row)
            self._table = tab
        return self._table

    def _multiple_lubs(self):
        out = []
        for a, b in itertools.combinations(self.types, 2):
            _, minimal = self._lub([a, b])
            if minimal:
                out.append((a, b, minimal))
        return out

    def upper_bounds(self, t):
        return set(self.ub[t])

    def hasse(self):
        return [(a, b) for a in self.types for b in self.edges[a]]

    def path(self, src, dst):
        """Shortest chain of lattice edges from src up to dst (None if dst is not above src)."""
        prev = {src: None}
        queue = deque([src])
        while queue:
            t = queue.popleft()
            if t == dst:
                chain = []
                while t is not None:
                    chain.append(t)
                    t = prev[t]
                return chain[::-1]
            for s in self.edges[t]:
                if s not in prev:
                    prev[s] = t
                    queue.append(s)
        return None

    def explain(self, *types):
        canon = self.canonicalize
        ctypes = [canon.get(t, t) for t in types]
        lines = []
        for t, c in zip(types, ctypes):
            if t != c:
                lines.append(f"{t} is canonicalized to {c}")
        cub = frozenset.intersection(*(self.ub[t] for t in ctypes))
        res, minimal = self._lub(ctypes)
        for t in dict.fromkeys(ctypes):
            lines.append(f"UB({t}) = {{{', '.join(sorted(self.ub[t], key=self.index.get))}}}")
        lines.append(f"common upper bounds = {{{', '.join(sorted(cub, key=self.index.get))}}}")
        if minimal:
            lines.append("no unique least upper bound: " + ", ".join(minimal))
            return lines
        if res is None:
            lines.append(f"no common upper bound: {', '.join(types)} do not promote under "
                         f"{self.name!r}")
            return lines
        for t in dict.fromkeys(ctypes):
            lines.append("path: " + " -> ".join(self.path(t, res)))
        final = canon.get(res, res)
        conc, weak = self.materialize(final)
        lines.append(f"join = {final}" + (f" (weak: materializes as {conc})" if weak else ""))
        return lines


class TableRules(RuleSet):
    """A rule set given as an explicit table {(a, b): result or None}; rows are the first operand.

    Pairs missing from ``table`` have no promotion.
    """

    def __init__(self, name, types, table, **kw):
        super().__init__(name, types, **kw)
        self.table = dict(table)
        for (a, b), r in self.table.items():
            for t in (a, b) + ((r,) if r is not None else ()):
                if t not in self.index:
                    raise LatticeError(f"rule set {name!r}: cell ({a}, {b}) -> {r} names "
                                       f"unknown type {t!r}")

    def join2(self, a, b):
        return self.table.get((a, b))

    def as_lattice(self):
        """The same rules as a LatticeRules (its Hasse diagram), when check() finds a lattice."""
        report = self.check(limit=1)
        if not report.ok:
            raise LatticeError(report.format(limit=3))
        edges = {t: [] for t in self.types}
        for a, b in self.hasse():
            edges[a].append(b)
        return LatticeRules(self.name, edges, types=self.types, weak=self.weak,
                            python_scalars=self.python_scalars,
                            canonicalize=self.canonicalize, storage=self.storage,
                            description=self.description, source=self.source)
