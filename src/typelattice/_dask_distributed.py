"""A dask.distributed worker plugin that builds a custom rule set's ufuncs in every worker (see
typelattice.dask.register_rules). Imported only when used: it imports distributed."""
import copy

from distributed.diagnostics.plugin import WorkerPlugin


class RulesPlugin(WorkerPlugin):
    """On each worker (present and future): ``make_ufuncs(ruleset)``, so that ufuncs pickled by
    reference as ``typelattice._ufuncs.<name>.<op>`` resolve there."""

    def __init__(self, ruleset):
        # without its cached CompiledRules: that one pickles as compile_rules(ruleset), a cycle
        # that unpickles compile_rules on a half-built RuleSet
        self.ruleset = copy.copy(ruleset)
        vars(self.ruleset).pop("_compiled", None)
        self.name = f"typelattice-rules-{ruleset.name}"

    def setup(self, worker):
        from typelattice import make_ufuncs
        make_ufuncs(self.ruleset)
