"""CNF target: a lowered spec as clauses (python-sat), projected onto the secret.

The secret's one-hot variables keep their numbers 1..N; each group's
exactly-one constraint is a `pysat.card` encoding (sequential counter) and
every other formula is Tseitin-encoded gate by gate (a top-level
conjunction is asserted child by child). Both add auxiliary variables, and
a cardinality encoding's auxiliaries are not always determined by the
secret, so counts must be projected onto 1..N: the DIMACS text says so with
a `c p show 1 ... N 0` line, and `projected_count` hands the same
projection to Ganak (in a child process, under a timeout).
"""

from __future__ import annotations

from pysat.card import CardEnc, EncType
from pysat.formula import CNF

from sleuth.compiler.boolean import FALSE, TRUE, Lowering
from sleuth.compiler.errors import BudgetError, option
from sleuth.compiler.guard import crash, in_child


class ClauseBuilder:
    """Clauses for formulas of one lowering; secret variables first, auxiliaries after."""

    def __init__(self, lowering: Lowering):
        self.lowering = lowering
        self.secret_vars = lowering.circuit.variables
        self.cnf = CNF()
        self.top = self.secret_vars
        self.lits: dict[int, int] = {}
        for g in lowering.groups:
            enc = CardEnc.equals(lits=g.literals, bound=1, top_id=self.top,
                                 encoding=EncType.seqcounter)
            self.cnf.extend(enc.clauses)
            self.top = max(self.top, enc.nv)

    def assert_formula(self, root: int) -> None:
        node = self.lowering.circuit.nodes[root]
        if root == TRUE:
            return
        if node[0] == "and":
            for child in node[1]:
                self.assert_formula(child)
            return
        self.cnf.append([self.literal(root)])

    def literal(self, root: int) -> int:
        """A literal equivalent to the formula (Tseitin), built iteratively."""
        nodes = self.lowering.circuit.nodes
        stack = [root]
        while stack:
            n = stack[-1]
            if n in self.lits:
                stack.pop()
                continue
            node = nodes[n]
            if n in (FALSE, TRUE):
                self.lits[n] = self._constant(n == TRUE)
                stack.pop()
                continue
            if node[0] == "var":
                self.lits[n] = node[1]
                stack.pop()
                continue
            kids = [node[1]] if node[0] == "not" else list(node[1])
            todo = [k for k in kids if k not in self.lits]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if node[0] == "not":
                self.lits[n] = -self.lits[node[1]]
            else:
                self.lits[n] = self._gate(node[0], [self.lits[k] for k in kids])
        return self.lits[root]

    def _gate(self, op: str, kids: list[int]) -> int:
        self.top += 1
        v = self.top
        if op == "and":
            self.cnf.extend([[-v, k] for k in kids])
            self.cnf.append([v] + [-k for k in kids])
        else:
            self.cnf.extend([[v, -k] for k in kids])
            self.cnf.append([-v] + kids)
        return v

    def _constant(self, value: bool) -> int:
        self.top += 1
        self.cnf.append([self.top if value else -self.top])
        return self.top

    @property
    def clauses(self) -> list[list[int]]:
        return self.cnf.clauses

    def dimacs(self, comments: list[str] | None = None) -> str:
        """DIMACS text with a projection line onto the secret's variables."""
        lines = [f"c {c}" for c in comments or []]
        lines.append(f"p cnf {self.top} {len(self.cnf.clauses)}")
        lines.append("c p show " + " ".join(str(i) for i in range(1, self.secret_vars + 1))
                     + " 0")
        lines.extend(" ".join(map(str, cl)) + " 0" for cl in self.cnf.clauses)
        return "\n".join(lines) + "\n"


def satisfiable(clauses: list[list[int]]) -> bool:
    """Whether the clauses have a model (a SAT solver's answer: far cheaper than a count)."""
    from pysat.solvers import Solver

    with Solver(name="cadical153", bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def projected_count(clauses: list[list[int]], variables: int, show: int,
                    timeout: float = 30.0) -> int:
    """Ganak's count of the models projected onto variables 1..show, in a child process
    (Ganak has no time limit of its own): BudgetError after `timeout` seconds, BackendError
    with Ganak's own message when it fails or dies."""
    def count() -> int:
        from pyganak import Counter

        counter = Counter()
        counter.new_vars(variables)
        counter.add_clauses(clauses)
        counter.set_sampling_set(range(1, show + 1))
        return int(counter.count())

    # Ganak reports progress ("c o intermediate count") on the process's stdout, which
    # the child would share with the command's own output (a --json answer among them).
    end = in_child(count, timeout=timeout, quiet_stdout=True,
                   what=f"Ganak counting {show:,} variables' models")
    if end.kind == "ok":
        return end.value
    if end.kind == "error":
        raise end.value
    if end.kind == "timeout":
        raise BudgetError(f"Ganak gave no count within {timeout:.0f} s",
                          hint=f'use {option("backend", "sdd")}')
    raise crash("Ganak's projected count", end)


__all__ = ["ClauseBuilder", "projected_count", "satisfiable"]
