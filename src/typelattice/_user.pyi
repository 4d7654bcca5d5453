import os
from collections.abc import Mapping, Sequence
from typing import Any

from ._lattice import LatticeRules, RuleSet, TableRules

def lattice(edges: Mapping[str, str | Sequence[str] | None] | Sequence[Sequence[str]], *,
            name: str = ..., types: Sequence[str] | None = ...,
            weak: Mapping[str, str] | None = ..., python_scalars: Mapping[str, str] | None = ...,
            storage: Mapping[str, str] | None = ..., description: str = ..., source: str = ...,
            names: str = ..., validate: bool = ...) -> LatticeRules: ...
def promotion_table(table: Mapping[Any, Any], *, name: str = ...,
                    types: Sequence[str] | None = ..., weak: Mapping[str, str] | None = ...,
                    python_scalars: Mapping[str, str] | None = ...,
                    storage: Mapping[str, str] | None = ..., description: str = ...,
                    source: str = ..., names: str = ...) -> TableRules: ...
def rules_from_dict(data: Mapping[str, Any], *, name: str | None = ...,
                    validate: bool = ...) -> RuleSet: ...
def load_rules_file(path: str | os.PathLike[str], *, validate: bool = ...) -> RuleSet: ...
