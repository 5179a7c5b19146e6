"""Decision-diagram target: a lowered spec as sentential decision diagrams (pysdd).

Formulas of the lowering's circuit are compiled bottom-up with `apply`
(conjoin, disjoin, negate), memoised per circuit node, so the DP tables of
cardinality constraints become shared diagram nodes rather than CNF
auxiliaries. The vtree is right-linear over the variables in the lowering's
order (declaration order, one-hot groups contiguous: card-major for a
sequence of card owners), the choice that counted a 21-card deal fastest
when measured. Every variable belongs to a one-hot group whose exactly-one
constraint is part of the base, so a diagram's model count over its support
is the number of hypotheses it keeps.
"""

from __future__ import annotations

import random
import resource
from bisect import bisect_right
from itertools import accumulate

from pysdd.sdd import SddManager, SddNode, Vtree

from sleuth.compiler.boolean import FALSE, TRUE, Lowering

STACK_BYTES = 1 << 30


def allow_deep_recursion() -> None:
    """The SDD library recurses once per vtree level in C: a one-hot group of a few
    hundred values overflows the usual 8 MiB stack (a segmentation fault). Linux grows
    the main thread's stack up to the soft limit at the time, so raise it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    want = STACK_BYTES if hard == resource.RLIM_INFINITY else min(hard, STACK_BYTES)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_STACK, (want, hard))


class DiagramBuilder:
    """Compiles circuit nodes of one lowering into SDDs over one manager."""

    def __init__(self, lowering: Lowering, vtree_type: str = "right"):
        allow_deep_recursion()
        self.lowering = lowering
        n = max(1, lowering.circuit.variables)
        self.vtree = Vtree(var_count=n, var_order=list(range(1, n + 1)), vtree_type=vtree_type)
        self.manager = SddManager.from_vtree(self.vtree)
        self.memo: dict[int, SddNode] = {FALSE: self.manager.false(),
                                         TRUE: self.manager.true()}

    def __call__(self, root: int) -> SddNode:
        nodes = self.lowering.circuit.nodes
        stack = [root]
        while stack:  # iterative post-order: circuits can be deep
            n = stack[-1]
            if n in self.memo:
                stack.pop()
                continue
            node = nodes[n]
            kids = [] if node[0] == "var" else ([node[1]] if node[0] == "not" else node[1])
            todo = [k for k in kids if k not in self.memo]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            self.memo[n] = self._gate(node)
        return self.memo[root]

    def _gate(self, node: tuple) -> SddNode:
        m = self.manager
        if node[0] == "var":
            return m.literal(node[1])
        if node[0] == "not":
            return m.negate(self.memo[node[1]])
        kids = [self.memo[k] for k in node[1]]
        if node[0] == "and":
            # Smallest first: conjoining the big cardinality tables last keeps the
            # intermediate diagrams small (a card deal builds several times faster).
            kids.sort(key=lambda d: d.size())
        out = kids[0]
        for k in kids[1:]:
            out = m.conjoin(out, k) if node[0] == "and" else m.disjoin(out, k)
        return out

    def conjoin(self, *nodes: SddNode) -> SddNode:
        out = self.manager.true()
        for x in nodes:
            out = self.manager.conjoin(out, x)
        return out

    def literal(self, var: int) -> SddNode:
        return self.manager.literal(var)

    def size(self, node: SddNode) -> int:
        return node.size()


class DiagramSampler:
    """Exact uniform sampling of a diagram's models by one top-down walk per sample.

    Each node's model count over the variables of its own vtree node is
    computed once (exact integers); a decision node then picks an element
    (prime, sub) with probability proportional to the models it keeps, and
    variables the chosen nodes do not mention are fair coin flips. Counts are
    cached by node id, so many samples from one diagram (or from diagrams that
    share nodes) cost a walk each: about a millisecond for a 168-variable deal, where
    conditioning group by group costs tens.
    """

    def __init__(self, manager: SddManager):
        self.manager = manager
        self.vars: dict[int, list[int]] = {}  # vtree position -> its variables
        self.kids: dict[int, tuple[int, int]] = {}  # vtree position -> (left, right)
        self._index_vtree(manager.vtree())
        self.counts: dict[int, int] = {}  # node id -> models over its vtree's variables
        self.choices: dict[int, tuple] = {}  # node id -> (elements, cumulative counts)

    def _index_vtree(self, root: Vtree) -> None:
        stack, order = [root], []
        while stack:
            v = stack.pop()
            order.append(v)
            if not v.is_leaf():
                stack.extend((v.left(), v.right()))
        for v in reversed(order):  # children before parents
            pos = v.position()
            if v.is_leaf():
                self.vars[pos] = [v.var()]
            else:
                left, right = v.left().position(), v.right().position()
                self.kids[pos] = (left, right)
                self.vars[pos] = self.vars[left] + self.vars[right]

    def _width(self, node: SddNode) -> int:
        return 0 if node.is_true() or node.is_false() else len(self.vars[node.vtree().position()])

    def count_over(self, node: SddNode, vtree_pos: int) -> int:
        """Models of `node` over the variables of the vtree node at `vtree_pos`."""
        if node.is_false():
            return 0
        gap = len(self.vars[vtree_pos]) - self._width(node)
        return self._count(node) << gap

    def _count(self, root: SddNode) -> int:
        stack = [root]
        while stack:  # iterative post-order over decision nodes
            node = stack[-1]
            if node.id in self.counts:
                stack.pop()
                continue
            if node.is_true() or node.is_literal():
                self.counts[node.id] = 1
                stack.pop()
                continue
            if node.is_false():
                self.counts[node.id] = 0
                stack.pop()
                continue
            elements = node.elements()
            todo = [x for pair in elements for x in pair if x.id not in self.counts]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            left, right = self.kids[node.vtree().position()]
            weights = [self.count_over(p, left) * self.count_over(s, right) for p, s in elements]
            self.counts[node.id] = sum(weights)
            self.choices[node.id] = (elements, list(accumulate(weights)))
        return self.counts[root.id]

    def sample(self, root: SddNode, k: int, seed: int) -> list[int]:
        """k models of `root`, uniformly at random; a model is the bitmask of its true
        variables (bit v - 1 for variable v)."""
        if root.is_false():
            raise ValueError("a false diagram has no models")
        self._count(root)
        rand = random.Random(seed)
        top = self.manager.vtree().position()
        return [self._one(root, top, rand) for _ in range(k)]

    def _one(self, root: SddNode, vtree_pos: int, rand: random.Random) -> int:
        true = 0
        stack = [(root, vtree_pos)]
        while stack:
            node, pos = stack.pop()
            inner = None  # the vtree node this node is normalised for (None: constant)
            if node.is_literal():
                lit = node.literal
                inner = node.vtree().position()
                if lit > 0:
                    true |= 1 << (lit - 1)
            elif node.is_decision():
                inner = node.vtree().position()
                elements, cumulative = self.choices[node.id]
                i = bisect_right(cumulative, rand.randrange(cumulative[-1]))
                prime, sub = elements[i]
                left, right = self.kids[inner]
                stack.append((prime, left))
                stack.append((sub, right))
            if inner != pos:  # variables this node leaves free: fair coin flips
                for v in self._gap(pos, inner):
                    if rand.random() < 0.5:
                        true |= 1 << (v - 1)
        return true

    def _gap(self, pos: int, inner: int | None) -> list[int]:
        covered = set(self.vars[inner]) if inner is not None else set()
        return [v for v in self.vars[pos] if v not in covered]

    def models(self, root: SddNode, limit: int) -> list[int] | None:
        """Every model of `root` as a bitmask (as in `sample`), or None when there are more
        than `limit`. Built bottom-up: a decision node's models are its elements' prime
        models times sub models, with free variables expanded both ways."""
        top = self.manager.vtree().position()
        if self.count_over(root, top) > limit:
            return None
        memo: dict[tuple[int, int], list[int]] = {}
        stack = [(root, top)]
        while stack:
            node, pos = stack[-1]
            if (node.id, pos) in memo:
                stack.pop()
                continue
            inner: int | None = None
            if node.is_false():
                found: list[int] = []
            elif node.is_true():
                found = [0]
            elif node.is_literal():
                inner = node.vtree().position()
                found = [1 << (node.literal - 1)] if node.literal > 0 else [0]
            else:
                inner = node.vtree().position()
                left, right = self.kids[inner]
                parts = [((p, left), (q, right)) for p, q in node.elements()]
                todo = [x for pair in parts for x in pair if (x[0].id, x[1]) not in memo]
                if todo:
                    stack.extend(todo)
                    continue
                found = [a | b for (p, lp), (q, rp) in parts
                         for a in memo[(p.id, lp)] for b in memo[(q.id, rp)]]
            stack.pop()
            if inner != pos:
                for v in self._gap(pos, inner):
                    bit = 1 << (v - 1)
                    found = found + [m | bit for m in found]
            memo[(node.id, pos)] = found
        return memo[(root.id, top)]


def count(node: SddNode) -> int:
    """Models of a diagram over its support (exact; `global_model_count` can wrap)."""
    if node.is_false():
        return 0
    return int(node.model_count())


__all__ = ["DiagramBuilder", "DiagramSampler", "count"]
