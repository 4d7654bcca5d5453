"""Draw a rule set's Hasse diagram: a layered (Sugiyama-style) layout written as SVG by hand, or
Graphviz DOT text. No dependency.

Layout: the covering edges of the order (a <= b iff join(a, b) == b; for a lattice rule set the
transitive reduction of its edges) point from left to right; each type sits in the layer of the
longest chain below it; edges that skip layers go through virtual points; the order inside a
layer comes from a few barycenter sweeps (fewer crossings). Weak types are drawn dashed, with the
dtype they materialize to. Pure Python, no NumPy.
"""
from xml.sax.saxutils import escape

from ._names import EXTENDED, short

__all__ = ["covering_edges", "layout", "to_svg", "to_dot", "to_lattice_json"]


def covering_edges(rs, types=None):
    """[(a, b)]: b covers a, restricted to ``types``; cycles (possible for tables that are not
    lattices) are broken so that the result is acyclic."""
    types = list(rs.types if types is None else types)
    keep = set(types)
    if rs.is_lattice_shape:
        ub = {t: set(rs.ub[t]) & keep for t in types}
    else:
        ub = {t: {u for u in types if rs.join(t, u) == u} for t in types}
    edges = []
    for a in types:
        above = ub[a] - {a}
        for b in above:
            # b covers a: no c strictly between them (ignoring pairs that are mutually above).
            if not any(c != b and b in ub[c] and a not in ub[c] and c not in ub[b]
                       for c in above):
                edges.append((a, b))
    # Break cycles (a <= b and b <= a in an asymmetric table): keep the edge in type order.
    pos = {t: i for i, t in enumerate(types)}
    out, seen = [], set()
    for a, b in sorted(edges, key=lambda e: (pos[e[0]], pos[e[1]])):
        if (b, a) in seen:
            continue
        seen.add((a, b))
        out.append((a, b))
    return _acyclic(out, types)


def _acyclic(edges, types):
    succ = {t: [] for t in types}
    for a, b in edges:
        succ[a].append(b)
    state, back = {}, set()

    def visit(t):
        state[t] = 1
        for s in succ[t]:
            if state.get(s) == 1:
                back.add((t, s))
            elif s not in state:
                visit(s)
        state[t] = 2

    for t in types:
        if t not in state:
            visit(t)
    return [e for e in edges if e not in back]


def layout(types, edges, sweeps=8):
    """{node: (layer, position)} plus the chains of points of every edge.

    Returns (layers, routes): layers is a list of lists of node ids (virtual nodes are tuples);
    routes maps each edge (a, b) to the list of node ids it passes through, a and b included.
    """
    succ = {t: [] for t in types}
    pred = {t: [] for t in types}
    for a, b in edges:
        succ[a].append(b)
        pred[b].append(a)
    level = {}

    def lev(t):
        if t not in level:
            level[t] = 1 + max((lev(p) for p in pred[t]), default=-1)
        return level[t]

    for t in types:
        lev(t)
    # Pull types with nothing below them next to their lowest successor (shorter edges).
    for t in types:
        if not pred[t] and succ[t]:
            level[t] = min(level[s] for s in succ[t]) - 1
    nlayers = 1 + max(level.values(), default=0)
    layers = [[] for _ in range(nlayers)]
    for t in types:
        layers[level[t]].append(t)
    up = {t: [] for t in types}     # neighbours in the layer before, per node (virtual included)
    down = {t: [] for t in types}
    routes = {}
    for a, b in edges:
        chain = [a]
        for k in range(level[a] + 1, level[b]):
            v = ("virtual", a, b, k)
            layers[k].append(v)
            up[v], down[v] = [], []
            chain.append(v)
        chain.append(b)
        for x, y in zip(chain, chain[1:]):
            down[x].append(y)
            up[y].append(x)
        routes[(a, b)] = chain

    def order_by(layer, neighbours, ref):
        pos = {n: i for i, n in enumerate(ref)}

        def key(item):
            i, n = item
            ns = [pos[m] for m in neighbours[n] if m in pos]
            return (sum(ns) / len(ns) if ns else i, i)
        return [n for _, n in sorted(enumerate(layer), key=key)]

    for s in range(sweeps):
        if s % 2 == 0:
            for k in range(1, nlayers):
                layers[k] = order_by(layers[k], up, layers[k - 1])
        else:
            for k in range(nlayers - 2, -1, -1):
                layers[k] = order_by(layers[k], down, layers[k + 1])
    return layers, routes


def _prepare(rs, all_types=False):
    types = list(rs.types)
    if not all_types and sum(t in EXTENDED for t in types) > 4:
        types = [t for t in types if t not in EXTENDED]
    return types, covering_edges(rs, types)


def _verdict(rs):
    try:
        return rs.check(limit=0).kind
    except Exception:  # a user lattice with a cycle cannot even be checked
        return "not a lattice"


def to_lattice_json(rs, all_types=True):
    """The rule set as a lattice file (JSON text loadable with ``--rules FILE`` or
    ``typelattice.load_rules``): its Hasse diagram. A table rule set must be a (partial) lattice;
    otherwise LatticeError names the counterexamples."""
    import json

    from ._lattice import LatticeError
    report = rs.check(limit=3)
    if not report.ok:
        raise LatticeError(f"rule set {rs.name!r} has no Hasse diagram:\n"
                           + report.format(limit=3))
    types, edges = _prepare(rs, all_types)
    succ = {t: [] for t in types}
    for a, b in edges:
        succ[a].append(b)
    data = {"name": rs.name, "description": rs.description, "source": rs.source,
            "types": types, "edges": succ,
            "weak": {w: c for w, c in rs.weak.items() if w in succ},
            "python_scalars": {k: t for k, t in rs.python_scalars.items() if t in succ}}
    if getattr(rs, "storage", None):
        data["storage"] = dict(rs.storage)
    return json.dumps(data, indent=1) + "\n"


def to_dot(rs, all_types=False, label=short):
    """Graphviz DOT text of the Hasse diagram (``dot -Tsvg``); weak types dashed."""
    types, edges = _prepare(rs, all_types)
    kind = _verdict(rs)
    q = lambda s: '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'  # noqa: E731
    lines = [f"digraph {q(rs.name)} {{",
             "  rankdir=LR;",
             f"  label={q(f'{rs.name}: {kind}')}; labelloc=t;",
             '  node [shape=box, style="rounded,filled", fillcolor="#eef2f8", fontname="sans-serif"];']
    for t in types:
        attrs = [f"label={q(label(t))}"]
        if t in rs.weak:
            attrs += ['style="rounded,dashed,filled"', 'fillcolor="#fff6dd"',
                      f"tooltip={q(f'weak: materializes as {rs.weak[t]}')}"]
        lines.append(f"  {q(t)} [{', '.join(attrs)}];")
    for a, b in edges:
        lines.append(f"  {q(a)} -> {q(b)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_svg(rs, all_types=False, label=short):
    """An SVG picture of the Hasse diagram: left to right from the least types, weak types dashed
    with the dtype they materialize to."""
    types, edges = _prepare(rs, all_types)
    layers, routes = layout(types, edges)
    kind = _verdict(rs)
    char_w, box_h, gap_x, gap_y, margin, top = 7.2, 26, 46, 14, 20, 52
    widths = {t: max(44, 14 + char_w * len(label(t))) for t in types}
    col_w = [max([widths.get(n, 0) for n in layer if not isinstance(n, tuple)] + [10])
             for layer in layers]
    height_of = lambda layer: sum(box_h if not isinstance(n, tuple) else 4 for n in layer) + \
        gap_y * max(len(layer) - 1, 0)  # noqa: E731
    inner_h = max([height_of(layer) for layer in layers] + [box_h])
    xy = {}
    x = margin
    for k, layer in enumerate(layers):
        y = top + (inner_h - height_of(layer)) / 2
        for n in layer:
            h = box_h if not isinstance(n, tuple) else 4
            xy[n] = (x + col_w[k] / 2, y + h / 2)
            y += h + gap_y
        x += col_w[k] + gap_x
    weak_note = [f"{label(w)} -> {c}" for w, c in rs.weak.items() if w in xy]
    legend_h = 20 * (bool(weak_note) + (kind == "not a lattice"))
    shown = f" (shown: {len(types)})" if len(types) != len(rs.types) else ""
    subtitle = (f"{kind} over {len(rs.types)} types{shown} \u2014 arrows point to the types a "
                "type promotes to")
    texts = [subtitle, "weak types, materialize as: " + ", ".join(weak_note) + "    ",
             "not a lattice: drawn is the relation a <= b iff a.b = b (see: python -m "
             "typelattice check)" if kind == "not a lattice" else ""]
    width = max(x - gap_x + margin, 2 * margin + 6.6 * max(len(t) for t in texts), 360)
    height = top + inner_h + margin + legend_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">',
           f"<title>{escape(rs.name)}: {escape(kind)}</title>",
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="#556"/></marker></defs>',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{margin}" y="24" font-size="15" font-weight="bold">'
           f'{escape(rs.name)}</text>',
           f'<text x="{margin}" y="40" fill="#555">{escape(subtitle)}</text>']
    for (a, b), chain in routes.items():
        pts = [xy[n] for n in chain]
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        pts[0] = (x0 + widths[a] / 2, y0)
        pts[-1] = (x1 - widths[b] / 2, y1)
        d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}"
        for (px, py), (qx, qy) in zip(pts, pts[1:]):
            mx = (px + qx) / 2
            d += f" C{mx:.1f},{py:.1f} {mx:.1f},{qy:.1f} {qx:.1f},{qy:.1f}"
        out.append(f'<path d="{d}" fill="none" stroke="#556" stroke-width="1.2" '
                   f'marker-end="url(#arrow)"><title>{escape(a)} -&gt; {escape(b)}</title></path>')
    for t in types:
        cx, cy = xy[t]
        w = widths[t]
        weak = t in rs.weak
        style = ('fill="#fff6dd" stroke="#b07d00" stroke-dasharray="4 3"' if weak
                 else 'fill="#eef2f8" stroke="#445"')
        tip = f"{t}: weak, materializes as {rs.weak[t]}" if weak else t
        ital = ' font-style="italic"' if weak else ""
        out.append(f'<g class="{"weak" if weak else "type"}"><title>{escape(tip)}</title>'
                   f'<rect x="{cx - w / 2:.1f}" y="{cy - box_h / 2:.1f}" width="{w:.1f}" '
                   f'height="{box_h}" rx="6" {style} stroke-width="1.3"/>'
                   f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle"{ital}>'
                   f'{escape(label(t))}</text></g>')
    y = top + inner_h + margin + 8
    if weak_note:
        out.append(f'<rect x="{margin}" y="{y - 10}" width="22" height="12" rx="3" fill="#fff6dd" '
                   f'stroke="#b07d00" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{margin + 28}" y="{y}" fill="#555">weak types, materialize as: '
                   f'{escape(", ".join(weak_note))}</text>')
        y += 18
    if kind == "not a lattice":
        out.append(f'<text x="{margin}" y="{y}" fill="#555">{escape(kind)}: drawn is the relation '
                   f'a &#8804; b iff a&#183;b = b (see: python -m typelattice check)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
