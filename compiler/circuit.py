"""Formulas: one hash-consed DAG of and / or / not gates over boolean variables, from
which the symbolic targets (CNF, decision diagram) are built."""

from __future__ import annotations

from collections.abc import Callable

FALSE, TRUE = 0, 1


# A gate absorbs a child gate of its own kind only up to this many grandchildren:
# flattening every time makes a chain of n conjunctions (the "none yet" state of an
# exactly-one DP) quadratic, 10^8 children for a group of 10,000 values.
FLATTEN = 16

class Circuit:
    """A hash-consed DAG of formulas: node 0 is false, 1 true; then variables and gates.

    Nodes are ("var", i) with i >= 1, ("not", a), ("and", children), ("or", children).
    """

    def __init__(self) -> None:
        self.nodes: list[tuple] = [("false",), ("true",)]
        self.ids: dict[tuple, int] = {}
        self.variables = 0

    def _add(self, key: tuple) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.nodes)
            self.nodes.append(key)
        return found

    def new_var(self) -> int:
        self.variables += 1
        return self._add(("var", self.variables))

    def neg(self, a: int) -> int:
        if a <= TRUE:
            return 1 - a
        node = self.nodes[a]
        return node[1] if node[0] == "not" else self._add(("not", a))

    def complement(self, a: int) -> int | None:
        """The node of not-a if the circuit already has one (creating none: a test for
        complementary children must not grow the circuit)."""
        node = self.nodes[a]
        return node[1] if node[0] == "not" else self.ids.get(("not", a))

    def conj(self, *xs: int) -> int:
        return self._gate("and", xs, absorbing=FALSE, neutral=TRUE)

    def disj(self, *xs: int) -> int:
        return self._gate("or", xs, absorbing=TRUE, neutral=FALSE)

    def _gate(self, op: str, xs: tuple[int, ...] | list[int], absorbing: int,
              neutral: int) -> int:
        children: set[int] = set()
        for x in xs:
            if x == absorbing:
                return absorbing
            if x == neutral:
                continue
            node = self.nodes[x]
            if node[0] == op and len(node[1]) <= FLATTEN:
                children.update(node[1])
            else:
                children.add(x)
        if any(self.complement(c) in children for c in children if c > TRUE):
            return absorbing
        if not children:
            return neutral
        if len(children) == 1:
            return next(iter(children))
        return self._add((op, tuple(sorted(children))))

    def value(self, root: int, assignment: Callable[[int], bool]) -> bool:
        """The formula's truth under an assignment of its variables (for tests)."""
        memo: dict[int, bool] = {FALSE: False, TRUE: True}

        def walk(n: int) -> bool:
            if n not in memo:
                node = self.nodes[n]
                if node[0] == "var":
                    memo[n] = assignment(node[1])
                elif node[0] == "not":
                    memo[n] = not walk(node[1])
                elif node[0] == "and":
                    memo[n] = all(walk(c) for c in node[1])
                else:
                    memo[n] = any(walk(c) for c in node[1])
            return memo[n]

        return walk(root)

    def size(self, roots: list[int]) -> int:
        """Number of gates reachable from the roots."""
        seen, stack = set(), list(roots)
        while stack:
            n = stack.pop()
            if n in seen or n <= TRUE:
                continue
            seen.add(n)
            node = self.nodes[n]
            if node[0] == "not":
                stack.append(node[1])
            elif node[0] in ("and", "or"):
                stack.extend(node[1])
        return len(seen)


__all__ = ["FALSE", "TRUE", "Circuit"]
