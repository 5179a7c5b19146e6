"""The symbolic backend: a game's hypothesis space as a decision diagram, not a list.

`SymbolicSpace` lowers the secret and its constraints once (compiler/boolean.py),
compiles them into an SDD (compiler/sdd.py) and answers what a solver asks
of a hypothesis space without listing it: how many hypotheses a diagram
keeps, the marginal of every one-hot group, the diagram after a feedback
fact, exact uniform samples, and the CNF of the same facts for export or
for Ganak (compiler/cnf.py). A weighted prior is lowered like any
expression, into classes (weight, formula): a weighted count is the sum over
classes of weight x models (solver/counted.py).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
from pysdd.sdd import SddNode

from sleuth.compiler.boolean import TRUE, Lowering, Sym
from sleuth.compiler.check import Model
from sleuth.compiler.cnf import ClauseBuilder
from sleuth.compiler.errors import SpecError, option
from sleuth.compiler.guard import limited
from sleuth.compiler.memo import Memo, memoised
from sleuth.compiler.sdd import DiagramBuilder, DiagramSampler, count

GUARD_CIRCUIT = 1_000  # circuit nodes above which a diagram is compiled in a child process


class SymbolicSpace:
    """A model's hypotheses as an SDD, with counts, marginals, conditioning and sampling."""

    def __init__(self, model: Model, vtree: str = "right", memory_mb: int | None = None):
        self.memo = Memo()
        self.model = model
        self.memory_mb = memory_mb  # large diagrams are compiled in a child under it
        self.lowering = Lowering(model)
        self.diagrams = DiagramBuilder(self.lowering, vtree)
        self.classes = self._weight_classes()

    @memoised
    def constraints(self) -> list[int]:
        """The constraints as formulas, lowered when first asked for (a counter that reads
        the model's constraints itself never needs them)."""
        constraints = self.lowering.constraints()
        if len(self.classes) > 1 or self.classes[0][1] != TRUE:
            # Hypotheses of prior weight 0 are not hypotheses (as in the enumerated backend).
            constraints.append(self.lowering.circuit.disj(*(f for _, f in self.classes)))
        return constraints

    def _weight_classes(self) -> list[tuple[float, int]]:
        """The prior as (weight, formula) classes of positive weight: every hypothesis
        satisfying the formula has that weight. Uniform: [(1, TRUE)]."""
        prior = self.model.prior
        if prior is None:
            return [(1, TRUE)]
        value = self.lowering.lower(prior, {})
        items = value.items() if isinstance(value, Sym) else [(value, TRUE)]
        classes = []
        for w, f in items:
            if not math.isfinite(w) or w < 0:
                raise SpecError(f"the prior weight must be finite and >= 0 for every "
                                f"hypothesis; it can be {w}", prior.loc)
            if w > 0:
                classes.append((w, f))
        if not classes:
            raise SpecError("the prior weight is 0 for every hypothesis", prior.loc)
        return sorted(classes, key=lambda c: c[0])

    @property
    def uniform(self) -> bool:
        return len(self.classes) == 1

    @memoised
    def base(self) -> SddNode:
        """All hypotheses: one value per one-hot group, and the constraints."""
        c = self.lowering.circuit
        root = c.conj(*self.lowering.one_hot(), *self.constraints)
        return self._guarded(lambda: self.diagrams(root), [root],
                             "compiling the decision diagram")

    @property
    def variables(self) -> int:
        return self.lowering.circuit.variables

    def fact(self, query: str, args: dict[str, Any], feedback: dict[str, Any]) -> int:
        """The circuit formula 'query(args) gave this feedback'."""
        return self.lowering.feedback_fact(query, args, feedback)

    def condition(self, diagram: SddNode, *formulas: int) -> SddNode:
        """The diagram and the formulas. A large formula (a feedback over many pegs) can
        grow the diagram library past any budget before it returns: over GUARD_CIRCUIT
        circuit nodes, it is compiled in a child process under the memory budget."""
        def conjoined() -> SddNode:
            return self.diagrams.conjoin(diagram, *(self.diagrams(f) for f in formulas))

        return self._guarded(conjoined, list(formulas),
                             "conditioning the decision diagram on a fact")

    def _guarded(self, make: Callable[[], SddNode], roots: list[int], what: str) -> SddNode:
        """make() here when the circuit under `roots` is small (or there is no budget);
        else in a child process under the memory budget, its diagram read back."""
        if self.memory_mb is None or self.lowering.circuit.size(roots) <= GUARD_CIRCUIT:
            return make()
        with tempfile.TemporaryDirectory(prefix="sleuth-sdd-") as tmp:
            path = os.path.join(tmp, "diagram.sdd").encode()

            def compile_and_save() -> bool:
                make().save(path)
                return True

            limited(compile_and_save, self.memory_mb,
                    f"{what} of '{self.model.game}' ({self.variables:,} variables)",
                    hint=f'raise {option("memory_mb")}, narrow the params ({option("set")}), or '
                         'count with '
                         f'{option("backend", "cnf")} or approx')
            return self.diagrams.manager.read_sdd_file(path)

    def count(self, diagram: SddNode | None = None) -> int:
        return count(self.base if diagram is None else diagram)

    def marginals(self, diagram: SddNode | None = None) -> dict[str, dict[Any, float]]:
        """P(value) of every one-hot group (a scalar, a sequence position, a record field),
        all from one weighted model count with unit weights and its derivatives."""
        diagram = self.base if diagram is None else diagram
        wmc = diagram.wmc(log_mode=False)
        wmc.propagate()
        literal = self.diagrams.manager.literal
        return {g.name: {v: float(wmc.literal_pr(literal(x)))
                         for v, x in zip(g.values, g.literals, strict=True)}
                for g in self.lowering.groups}

    @memoised
    def sampler(self) -> DiagramSampler:
        return DiagramSampler(self.diagrams.manager)

    def ranks(self, models: list[int]) -> list[int]:
        """Each model (bitmask of true variables) as its hypothesis' rank in the product of
        the secret's domains: the groups are laid out in rank order (variables in
        declaration order, sequence positions and record fields in order, values in
        canonical order), so the rank is the mixed-radix number of the chosen values."""
        sizes = [len(g.literals) for g in self.lowering.groups]
        out = []
        for m in models:
            r = 0
            for n, k in zip(sizes, self.choices(m), strict=True):
                r = r * n + k
            out.append(r)
        return out

    def choices(self, model: int) -> list[int]:
        """The index of the value each group takes in a model (bitmask of true variables):
        the position of the group's one true literal."""
        return [((model >> (g.literals[0] - 1)) & ((1 << len(g.literals)) - 1)).bit_length() - 1
                for g in self.lowering.groups]

    def sample_ranks(self, diagram: SddNode | None, k: int, seed: int) -> list[int]:
        """Ranks of k hypotheses drawn uniformly (with replacement) from the diagram."""
        diagram = self.base if diagram is None else diagram
        return self.ranks(self.sampler.sample(diagram, k, seed))

    def list_ranks(self, diagram: SddNode | None, limit: int) -> list[int] | None:
        """Sorted ranks of every hypothesis the diagram keeps; None if more than `limit`."""
        diagram = self.base if diagram is None else diagram
        models = self.sampler.models(diagram, limit)
        return None if models is None else sorted(self.ranks(models))

    def sample(self, diagram: SddNode | None, k: int,
               rng: np.random.Generator) -> list[dict[str, Any]]:
        """k exact uniform samples (hypotheses as plain values), drawn with replacement."""
        diagram = self.base if diagram is None else diagram
        seed = int(rng.integers(2**63))
        return [self.lowering.decode(self.values_of(m))
                for m in self.sampler.sample(diagram, k, seed)]

    def values_of(self, model: int) -> list[Any]:
        """One value per group for a model (bitmask of true variables)."""
        return [g.values[k] for g, k in zip(self.lowering.groups, self.choices(model),
                                            strict=True)]

    def clauses(self, *formulas: int) -> ClauseBuilder:
        """The CNF of the constraints and the given facts (one-hot groups included)."""
        builder = ClauseBuilder(self.lowering)
        for f in (*self.constraints, *formulas):
            builder.assert_formula(f)
        return builder

    def describe(self) -> list[dict[str, Any]]:
        """The one-hot groups: which DIMACS variable stands for which value."""
        return [{"name": g.name, "values": g.values, "variables": g.literals}
                for g in self.lowering.groups]


__all__ = ["SymbolicSpace"]
