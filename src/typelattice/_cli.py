"""``python -m typelattice``: print tables, explain a join, check, diff and draw rule sets."""
import argparse
import csv
import io
import json
import os
import sys

from ._names import CORE, EXTENDED, WEAK, short


class CLIError(Exception):
    """A bad argument: printed without a traceback, exit status 2."""


def load_rules(spec):
    """A compiled rule set from a built-in name or a JSON/TOML file of a user-defined one."""
    from ._core import BUILTIN_RULES, compile_rules, get_rules
    if spec in BUILTIN_RULES:
        return get_rules(spec)
    if os.path.exists(spec):
        try:
            from ._user import load_rules_file
        except ImportError:
            raise CLIError("user-defined rule set files are not supported by this build")
        from ._lattice import LatticeError
        try:
            return compile_rules(load_rules_file(spec))
        except (LatticeError, ValueError) as exc:
            raise CLIError(str(exc)) from None
    if spec.endswith((".json", ".toml")) or os.sep in spec:
        raise CLIError(f"no rule set file {spec!r}")
    raise CLIError(f"unknown rule set {spec!r}; built-in: {', '.join(BUILTIN_RULES)} "
                   "(or give the path of a JSON/TOML rule set file)")


def display_types(r, all_types=False):
    """The types a table shows: the design doc's 18 (those the rule set has) plus the rule set's
    own extras; sub-byte ints and float8/6/4 only with --all."""
    if all_types:
        return list(r.types)
    extended = [t for t in r.types if t in EXTENDED]
    if len(extended) <= 4:  # a rule set with a few small types of its own (kernel_float's fp8)
        return list(r.types)
    return [t for t in r.types if t not in EXTENDED]


def _resolve(r, name):
    try:
        return r.name_of(name)
    except (TypeError, ValueError) as exc:
        raise CLIError(str(exc)) from None


def _cell(r, a, b):
    res = r.join_names(a, b)
    return "-" if res is None else short(res)


def render(rows, header, fmt, corner=""):
    """rows: [(row label, [cells])] -> text in the requested format."""
    if fmt == "json":
        return json.dumps({lab: dict(zip(header, cells)) for lab, cells in rows}, indent=1)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([corner] + header)
        for lab, cells in rows:
            w.writerow([lab] + cells)
        return buf.getvalue().rstrip("\n")
    if fmt == "markdown":
        out = ["| " + " | ".join([corner] + header) + " |",
               "|" + "---|" * (len(header) + 1)]
        out += ["| " + " | ".join([lab] + cells) + " |" for lab, cells in rows]
        return "\n".join(out)
    width = max([len(corner)] + [len(x) for x in header] + [len(lab) for lab, _ in rows]
                + [len(c) for _, cells in rows for c in cells])
    out = [" ".join(x.rjust(width) for x in [corner] + header)]
    out += [" ".join(x.rjust(width) for x in [lab] + cells) for lab, cells in rows]
    return "\n".join(out)


def cmd_table(args):
    r = load_rules(args.rules)
    types = display_types(r, args.all)
    if args.format == "json":
        data = {"rules": r.name, "rows_are": "first operand",
                "types": types,
                "table": {a: {b: r.join_names(a, b) for b in types} for a in types},
                "weak": {t: r.weak_target(t) for t in types if r.weak_target(t)}}
        print(json.dumps(data, indent=1))
        return 0
    rows = [(short(a), [_cell(r, a, b) for b in types]) for a in types]
    print(render(rows, [short(b) for b in types], args.format))
    if args.format == "text":
        weak = [f"{short(t)} -> {r.weak_target(t)}" for t in types if r.weak_target(t)]
        print(f"\nrule set {r.name!r}: {r.description}")
        print("rows: first operand; -: no promotion (TypePromotionError)")
        if weak:
            print("weak types materialize as: " + ", ".join(weak))
    return 0


def cmd_explain(args):
    r = load_rules(args.rules)
    names = [_resolve(r, t) for t in args.types]
    for line in r.ruleset().explain(*names):
        print(line)
    # "no promotion" is an answer, but scripts test it as promote_types' error
    return 0 if r.join_names(*names) is not None else 1


def cmd_check(args):
    from ._core import BUILTIN_RULES
    specs = [args.rules] if args.rules is not None else list(BUILTIN_RULES)
    worst = 0
    for spec in specs:
        r = load_rules(spec)
        report = r.ruleset().check(limit=args.limit)
        print(report.format(limit=args.limit, label=short))
        extra = getattr(r.ruleset(), "check_notes", None)
        if extra:
            try:
                lines = extra(limit=args.limit)
            except TypeError:
                lines = extra()
            for line in lines:
                print("  " + line)
        if not report.ok:
            worst = 1
    return worst if args.strict else 0


def cmd_diff(args):
    r1, r2 = load_rules(args.rules1), load_rules(args.rules2)
    common = [t for t in r1.types if t in r2.index]
    if not args.all:
        common = [t for t in common if t not in EXTENDED]
    rows = []
    for a in common:
        for b in common:
            x, y = r1.join_names(a, b), r2.join_names(a, b)
            mx = None if x is None else r1.weak_target(x) or x
            my = None if y is None else r2.weak_target(y) or y
            if (x, mx) != (y, my) and (not args.concrete or mx != my):
                rows.append((a, b, x, y))
    if args.format == "json":
        print(json.dumps([{"a": a, "b": b, r1.name: x, r2.name: y} for a, b, x, y in rows],
                         indent=1))
        return 0
    def show(r, x):
        if x is None:
            return "-"
        w = r.weak_target(x)
        return short(x) + (f" ({w})" if w else "")

    table = [(short(a), [short(b), show(r1, x), show(r2, y)]) for a, b, x, y in rows]
    if args.format == "text":
        for a, (b, x, y) in table:
            print(f"{a}, {b}: {r1.name} -> {x}, {r2.name} -> {y}")
        print(f"{len(rows)} of {len(common) ** 2} cells differ between {r1.name!r} and "
              f"{r2.name!r} over {len(common)} common types")
    else:
        print(render(table, ["b", r1.name, r2.name], args.format, corner="a"))
    return 0


def cmd_graph(args):
    from ._graph import to_dot, to_lattice_json, to_svg
    from ._lattice import LatticeError
    r = load_rules(args.rules)
    fmt = args.format
    if fmt is None:
        out = args.output or ""
        ext = os.path.splitext(out)[1].lower()
        if ext not in ("", ".svg", ".dot", ".gv", ".json"):
            raise CLIError(f"cannot tell the format of {out!r}: name an .svg, .dot or .json file, "
                           "or give --format")
        fmt = "dot" if ext in (".dot", ".gv") else "json" if ext == ".json" else "svg"
    if fmt == "json":
        try:
            text = to_lattice_json(r.ruleset())
        except LatticeError as exc:
            raise CLIError(str(exc)) from None
    else:
        text = (to_dot if fmt == "dot" else to_svg)(r.ruleset(), all_types=args.all)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            raise CLIError(f"cannot write {args.output}: {exc}") from None
        print(f"wrote {args.output} ({fmt}, rule set {r.name!r})", file=sys.stderr)
    return 0


def cmd_list(args):
    from ._core import BUILTIN_RULES, get_rules
    for name in BUILTIN_RULES:
        r = get_rules(name)
        rs = r.ruleset()
        shape = "lattice" if rs.is_lattice_shape else "table"
        print(f"{name:14s} {shape:8s} {rs.check(limit=0).kind:16s} {r.description}")
    return 0


def cmd_demo(args):
    from ._demo import main as demo
    return demo()


def _count(text):
    """argparse type: a whole number of at least 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return n


def build_parser():
    from ._version import __version__
    p = argparse.ArgumentParser(
        prog="python -m typelattice",
        description="Type promotion as a lattice: print tables, explain joins, check and diff "
                    "rule sets.")
    p.add_argument("--version", action="version", version=f"typelattice {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    fmt = dict(choices=["text", "markdown", "csv", "json"], default="text",
               help="output format (default: text)")
    rules = dict(default="jax", help="rule set name or rule set file (default: jax)")

    s = sub.add_parser("table", help="print the promotion table of a rule set")
    s.add_argument("--rules", **rules)
    s.add_argument("--format", **fmt)
    s.add_argument("--all", action="store_true", help="include sub-byte ints and float8/6/4")
    s.set_defaults(func=cmd_table)

    s = sub.add_parser("explain", help="explain the join of two or more types (exit 1: none)")
    s.add_argument("types", nargs="+", metavar="TYPE",
                   help="dtype names as NumPy spells them ('int8', 'i1', 'bfloat16') or the rule "
                        "set's own ('i*', 'f*', 'c*')")
    s.add_argument("--rules", **rules)
    s.set_defaults(func=cmd_explain)

    s = sub.add_parser("check", help="check the lattice properties, with counterexamples")
    s.add_argument("--rules", default=None, help="rule set (default: every built-in one)")
    s.add_argument("--limit", type=_count, default=5, help="counterexamples shown per property")
    s.add_argument("--strict", action="store_true", help="exit 1 when not a lattice")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("diff", help="list the cells where two rule sets differ")
    s.add_argument("rules1")
    s.add_argument("rules2")
    s.add_argument("--format", **fmt)
    s.add_argument("--all", action="store_true", help="include sub-byte ints and float8/6/4")
    s.add_argument("--concrete", action="store_true",
                   help="compare materialized dtypes only (ignore the weak flag)")
    s.set_defaults(func=cmd_diff)

    s = sub.add_parser("graph", help="draw the Hasse diagram of a rule set (SVG or DOT)")
    s.add_argument("--rules", **rules)
    s.add_argument("-o", "--output", default=None,
                   help="output file (default: standard output); .dot/.gv selects DOT")
    s.add_argument("--format", choices=["svg", "dot", "json"], default=None,
                   help="svg (default, no dependency), Graphviz dot text, or json: the Hasse "
                        "diagram as a lattice file for --rules FILE (lattices only)")
    s.add_argument("--all", action="store_true", help="include sub-byte ints and float8/6/4")
    s.set_defaults(func=cmd_graph)

    s = sub.add_parser("demo", help="one screen showing what typelattice is for")
    s.set_defaults(func=cmd_demo)

    sub.add_parser("bench", help="time typelattice against NumPy/ml_dtypes/jax side by side "
                                 "(see: bench --help)", add_help=False)

    s = sub.add_parser("list", help="list the built-in rule sets")
    s.set_defaults(func=cmd_list)
    return p


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "bench":
        # The benchmark driver owns its own options (python -m typelattice bench --help).
        from ._bench import main as bench
        return bench(list(argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except CLIError as exc:
        print(f"typelattice: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
