"""Hasse diagrams: covering edges, layered layout, SVG and DOT output."""
import xml.etree.ElementTree as ET

import pytest

import typelattice as tl
from typelattice._graph import covering_edges, layout, to_dot, to_svg
from typelattice.rules import builtin

from test_rulesets import NAMES, ref

SVG = "{http://www.w3.org/2000/svg}"


def transitive_reduction(edges):
    nodes = {x for e in edges for x in e}
    succ = {n: {b for a, b in edges if a == n} for n in nodes}

    def reach(n, seen=None):
        seen = set() if seen is None else seen
        for s in succ[n]:
            if s not in seen:
                seen.add(s)
                reach(s, seen)
        return seen
    return {(a, b) for a, b in edges
            if not any(b in reach(c) for c in succ[a] if c != b)}


def test_jax_covering_edges_are_the_reference_lattice():
    data = ref("jax_lattice.json")
    want = {(NAMES[a], NAMES[b]) for a, b in data["edges"] + [data["implied_missing_edge"]]}
    types = [t for t in builtin()["jax"].types if t in {b for e in want for b in e}]
    assert set(covering_edges(builtin()["jax"], types)) == want


def test_max_covering_edges_drop_implied_ones():
    data = ref("mojo_max_type_promotion.json")
    edges = {(NAMES[a], NAMES[b]) for a, s in data["source_semilattice_edges"].items() for b in s}
    assert set(covering_edges(builtin()["max"])) == transitive_reduction(edges)
    assert ("float16", "float32") not in covering_edges(builtin()["max"])


def test_layout_layers_respect_the_order():
    rs = builtin()["anvil"]
    edges = covering_edges(rs)
    layers, routes = layout(list(rs.types), edges)
    level = {n: k for k, layer in enumerate(layers) for n in layer}
    assert all(level[a] < level[b] for a, b in edges)
    assert all(len(chain) == level[b] - level[a] + 1 for (a, b), chain in routes.items())
    assert sorted(n for n in level if not isinstance(n, tuple)) == sorted(rs.types)


@pytest.mark.parametrize("rules", tl.BUILTIN_RULES)
def test_svg_is_well_formed_and_complete(rules):
    rs = builtin()[rules]
    root = ET.fromstring(to_svg(rs))
    groups = root.findall(f"{SVG}g")
    titles = {g.find(f"{SVG}title").text.split(":")[0]: g for g in groups}
    shown = [t for t in rs.types if t in titles]
    assert shown, rules
    assert all(titles[w].get("class") == "weak" for w in rs.weak if w in titles)
    paths = root.findall(f"{SVG}path")
    assert len(paths) == len(covering_edges(rs, shown))
    # Arrows point right: the source box is left of the target box.
    x = {t: float(titles[t].find(f"{SVG}rect").get("x")) for t in shown}
    for p in paths:
        a, b = p.find(f"{SVG}title").text.split(" -> ")
        assert x[a] < x[b]


def test_extended_types_hidden_unless_all():
    jax = builtin()["jax"]
    assert "float8_e4m3fn" not in to_svg(jax)
    assert "float8_e4m3fn" in to_svg(jax, all_types=True)
    assert "float8_e4m3fn" in to_svg(builtin()["kernel_float"])   # its only small type


def test_dot():
    text = to_dot(builtin()["jax"])
    assert text.startswith('digraph "jax" {') and "rankdir=LR" in text
    assert '"f*" [label="f*", style="rounded,dashed,filled"' in text
    assert '"bool" -> "i*";' in text and '"float16" -> "float32";' in text


def test_not_a_lattice_is_drawn_with_a_note():
    svg = to_svg(builtin()["tensorflow"])     # asymmetric: the relation has 2-cycles, broken
    assert "not a lattice" in svg
    ET.fromstring(svg)
