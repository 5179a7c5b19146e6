"""Exact optimal strategies, by depth-first branch and bound.

    optimal         the least total number of queries over all secrets (the least
                    expected number, the prior being uniform); among those, the least
                    worst case; then tie-break K
    optimal-worst   the least worst case; among those, the least total; then K

The conventions are `evaluate`'s (design §3): with `stop_when`, every secret
pays for the query whose feedback satisfies it (the final correct query is
counted); otherwise a secret is done once the goal variables have one
possible value. Any legal query may be asked unless `--guesses consistent`.

The search solves an information set S (the hypotheses still possible) by
trying every useful query q (one that splits S, or ends the game for part of
it): its value is |S| (everyone pays for q) plus the values of its parts
that go on. Pruning uses admissible lower bounds that depend on a part's
size only:

* with `stop_when`, at most one secret ends at each query when only the
  query equal to it can end it, and a query has at most b parts
  that go on; a tree of such queries holds at most b^(d-1) secrets at depth d,
  which bounds the total and the depth of n secrets (filled level by level);
* without it, when every hypothesis is its own goal value, n secrets are the
  leaves of a tree of at most k branches: at least n d - (k^d - n) // (k - 1)
  queries in total, d = ceil(log_k n) (the least external path length);
* otherwise, 1 per secret (with `stop_when`) or 0.

Queries are tried in the order of these bounds, so the first complete tree
is usually good and the rest is pruned against it. A transposition table
keeps, per information set (and depth budget), the exact value and query, or
a lower bound learnt from a failed search. Only uniform priors and
deterministic feedback: with random answers or weights the strategy refuses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sleuth.compiler.api import SleuthError
from sleuth.solver.infoset.goals import goal_classes
from sleuth.solver.infoset.history import HistoryMasks, Mask, mask_of
from sleuth.solver.infoset.outcomes import searched_table
from sleuth.solver.infoset.queries import Candidates, has_stop
from sleuth.solver.search.bounds import NO_TREE
from sleuth.solver.search.bounds import external as _external
from sleuth.solver.search.bounds import fill as _fill
from sleuth.solver.search.compiled import CompiledSearch
from sleuth.solver.search.refusals import require_optimal

SETTLED = 256  # the largest set whose own secrets are tried first (settled)


class OptimalSearch:
    """The branch and bound over one game's listed hypotheses (indices into its table)."""

    def __init__(self, candidates: Candidates, top: int = 0, compiled: bool = True):
        game = candidates.game
        self.candidates = candidates
        self.top = top  # > 0: only the first `top` queries of each set's order are tried
        require_optimal(candidates)
        self.game = game
        self.stop_game = has_stop(game)
        table = searched_table(candidates)  # dense, or made on demand (outcome_rows.py)
        self.table = table
        self.queries, self.stops = table.queries, table.stops
        self.symmetry = table.symmetry
        # `history` rules: a set carries the queries still allowed (history.py), and a
        # symmetry would have to keep those too: none is used
        self.rules = HistoryMasks(candidates, table) if HistoryMasks.applies(candidates) \
            else None
        if self.rules is not None:
            self.symmetry = None
        hyp_ranks = game.hypotheses.ranks
        secret_of = []
        for block in candidates.blocks:
            ranks = block.as_secret if block.secret_like else np.full(len(block.ranks), -1)
            at = np.minimum(np.searchsorted(hyp_ranks, ranks), len(hyp_ranks) - 1)
            secret_of.append(np.where(hyp_ranks[at] == ranks, at, -1))
        self.secret_of = np.concatenate(secret_of).astype(np.int64)
        self.secret_like = candidates.any_secret_like
        self.goal_class = goal_classes(game)
        # goal: {until_indistinguishable}: hypotheses every query answers alike share a
        # class, and a set within one class is over; `alike` is the largest class
        self.signature, self.alike = None, 1
        if game.model.until_indistinguishable and len(self.queries):
            _, sig, sizes = np.unique(table.codes.T, axis=0, return_inverse=True,
                                      return_counts=True)
            self.signature, self.alike = sig.ravel(), int(sizes.max())
        self.lb_total, self.lb_worst = self._bounds(game.hypotheses.size)
        self.column_floors = table.column_floors(self.lb_total, self.lb_worst)  # or None
        self.memo: dict[Any, Any] = {}
        self.floors: dict[bytes, tuple[int, int]] = {}  # floor() per set
        self.all_allowed = np.ones(len(self.queries), dtype=bool)
        self.all_queries = np.arange(len(self.queries), dtype=np.int64)
        self.nodes = 0
        # sets solved whole in compiled code (search/compiled.py), where that gives the same
        # answers; `compiled` False: this search alone (the reference the tests compare)
        self.compiled = CompiledSearch(self) if compiled and CompiledSearch.applies(self) \
            else None

    # -- set-up

    def _bounds(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Lower bounds on the total and the depth of a part of n secrets, n = 0..size."""
        total = np.zeros(size + 1, dtype=np.int64)
        depth = np.zeros(size + 1, dtype=np.int64)
        self.most_ended = 0  # the most secrets one query ends the game for at the whole set
        if not self.queries:
            return total, depth
        # every query's parts of the whole set; one query per orbit gives the same maxima
        everyone, root = np.arange(size, dtype=np.int64), None
        if self.symmetry is not None:
            root = np.flatnonzero(self.symmetry.representatives(
                self.symmetry.stabiliser(everyone)))
        counts = self.table.counts(everyone, root)
        stops = self.stops if root is None else self.stops[root]
        if self.stop_game:
            stopped = np.where(stops, counts, 0).max(axis=1)
            self.most_ended = int(stopped.max())
            branches = int(((counts > 0) & ~stops).sum(axis=1).max())
            if stopped.max() <= 1 and branches >= 1:
                for n in range(1, size + 1):
                    total[n], depth[n] = _fill(n, branches)
            else:  # every secret pays for at least one more query
                total[1:] = np.arange(1, size + 1)
                depth[1:] = 1
            return total, depth
        if len(np.unique(self.goal_class)) == size:
            # a game over may leave up to `alike` secrets in one leaf: at least n // alike
            # leaves, and the least total puts `alike` in each of the shallowest (their
            # depths obey Kraft's inequality as any leaves' do)
            k, m = int((counts > 0).sum(axis=1).max()), self.alike
            if k >= 2:
                for n in range(2, size + 1):
                    leaves, depth[n] = _external(n // m, k) if n // m else (0, 0)
                    total[n] = m * leaves
        return total, depth

    # -- the search

    def key(self, hyps: np.ndarray, depth: int | None, allowed: Mask = None) -> Any:
        return (hyps.tobytes(), depth, HistoryMasks.key(allowed))

    def searched(self, hyps: np.ndarray, active: np.ndarray | None,
                 allowed: Mask) -> np.ndarray:
        """The queries searched at `hyps`: one per way of parting it, among `active`
        (those distinct at a superset; None: all). Under a history rule, every allowed
        query: two that part the set alike may allow different queries later."""
        if self.rules is not None:
            mask = mask_of(allowed)
            return self.all_queries if mask is None else np.flatnonzero(mask)
        return self.table.distinct(hyps, self.all_queries if active is None else active,
                                   self.top)

    def terminal(self, hyps: np.ndarray) -> bool:
        if self.stop_game:
            return len(hyps) == 0
        classes = self.goal_class[hyps]
        if np.all(classes == classes[0]):
            return True
        return self.signature is not None and bool(np.all(
            self.signature[hyps] == self.signature[hyps[0]]))

    def solve(self, hyps: np.ndarray, depth: int | None, bound: int,
              stab: np.ndarray | None = None, active: np.ndarray | None = None,
              allowed: Mask = None) -> tuple | int:
        """(total, worst, query index) of the best tree for `hyps` within `depth` queries
        (None: no limit), if its total is at most `bound`; else a lower bound > bound.
        `stab`: symmetries (indices into the group) known to map `hyps` onto itself --
        those of the observations so far; None: found here. `active`: queries that part
        `hyps` in every way any query does (those distinct at a superset); None: all.
        `allowed`: the queries the history rules still allow (None: every one)."""
        n = len(hyps)
        if self.terminal(hyps):
            return (0, 0, -1)
        if depth is not None and self.lb_worst[n] > depth:
            return NO_TREE
        if self.lb_total[n] > bound:
            return int(self.lb_total[n])
        key = self.key(hyps, depth, allowed)
        hit = self.memo.get(key)
        if isinstance(hit, tuple) or (hit is not None and hit > bound):
            return hit
        if self.compiled is not None and self.compiled.takes(n):
            before = self.compiled.nodes
            got = self.compiled.solve(hyps, depth, bound, active, stab)
            self.nodes += self.compiled.nodes - before
            self.memo[key] = got if isinstance(got, tuple) else max(got, hit or 0)
            return self.memo[key]
        self.nodes += 1
        if self.symmetry is not None and (stab is None or not self.symmetry.inherit):
            stab = self.symmetry.stabiliser(hyps)
        active = self.searched(hyps, active, allowed)
        best = self.settled(hyps, depth, stab, active, allowed)
        if best is None:
            best = self._search(hyps, depth, bound, stab, active, allowed)
        if best is None:
            self.memo[key] = max(bound + 1, hit or 0)
            return self.memo[key]
        self.memo[key] = best
        return best

    def settled(self, hyps: np.ndarray, depth: int | None, stab: np.ndarray | None,
                active: np.ndarray, allowed: Mask) -> tuple | None:
        """The search's answer at once, when one of the set's own secrets, asked first,
        gives a tree that meets both size bounds (lb_total[n], lb_worst[n]): no tree is
        better, and no other query comes before it in the search's order (those bounds,
        then rule K, which puts the set's own secrets first, by index). The secrets are
        scored alone, not every query (a part of a few secrets would otherwise score
        every query of a large game). Only for sets of at most SETTLED, without --top
        (whose order is cut) or a history rule; None otherwise, or when no secret meets
        the bounds."""
        n = len(hyps)
        if self.top or self.rules is not None or not self.secret_like or n > SETTLED:
            return None
        own = active[self.possible(hyps)[active]]  # ascending, as rule K ranks them
        if stab is not None:  # one query per orbit, as the search tries them
            own = own[self.symmetry.representatives(stab)[own]]
        going, useful, lbq, lbw, _ = self.scores(hyps, own)
        want = (int(self.lb_total[n]), int(self.lb_worst[n]))
        for i in np.flatnonzero(useful & (lbq == want[0]) & (lbw == want[1])).tolist():
            q = int(own[i])
            tree = self.try_query(hyps, q, going[i], depth, want[0],
                                  None if stab is None else self.symmetry.fixing(stab, q),
                                  active, allowed)
            if tree == want:
                return (*want, q)
        return None

    def _search(self, hyps: np.ndarray, depth: int | None, bound: int,
                stab: np.ndarray | None, active: np.ndarray, allowed: Mask) -> tuple | None:
        order, lbq, lbw, krank, going, tried = self.ordered(hyps, depth, stab, active)
        best: tuple | None = None
        for i in order:
            if lbq[i] > bound or (best is not None and
                                  (lbq[i], lbw[i], krank[i]) >= best[:3]):
                break
            q = int(tried[i])
            tree = self.try_query(hyps, q, going[i], depth,
                                  bound if best is None else min(bound, best[0]),
                                  None if stab is None else self.symmetry.fixing(stab, q),
                                  active, allowed)
            if tree is not None:
                cand = (tree[0], tree[1], int(krank[i]), q)
                if best is None or cand < best:
                    best = cand
        return None if best is None else (best[0], best[1], best[3])

    def scores(self, hyps: np.ndarray, active: np.ndarray) -> tuple:
        """The queries `active` at `hyps`, a row each: the going part sizes, whether it is
        useful (it splits the set or ends the game for part of it; with consistent
        guesses, only possible ones), the lower bounds of its total and depth, and
        whether it may be the secret: (going, useful, lbq, lbw, possible). In numpy terms
        (the kernel is compiled): counts = table.counts(hyps), going = where(stops, 0,
        counts), useful = going.max(1) < n, lbq = n + lb_total[going].sum(1), lbw = 1 +
        lb_worst[going].max(1)."""
        going, lbq, lbw, useful, ends = self.table.part_sizes(
            hyps, self.lb_total, self.lb_worst, active)
        possible = self.possible(hyps)[active] if self.secret_like else ends
        if self.candidates.guesses == "consistent":
            useful &= possible
        return going, useful, lbq, lbw, possible

    def possible(self, hyps: np.ndarray) -> np.ndarray:
        """Which queries may be the secret (may end the game) at `hyps` (`scores` has it
        from the compiled pass when queries are not secrets)."""
        if self.secret_like:
            inside = np.zeros(self.game.hypotheses.size, dtype=bool)
            inside[hyps] = True
            return (self.secret_of >= 0) & inside[np.maximum(self.secret_of, 0)]
        return (self.table.counts(hyps) * self.stops).sum(axis=1) > 0

    def floor(self, hyps: np.ndarray, active: np.ndarray, allowed: Mask = None,
              stab: np.ndarray | None = None) -> tuple[int, int]:
        """Lower bounds on the total and the depth of any tree for `hyps`, one query deeper
        than the size bounds: the least, over the useful queries, of the size bounds of
        their parts (plus the query). Kept per set. `active`: the queries that part
        `hyps` in every way any query does; `allowed`: those a history rule allows;
        `stab`: symmetries that map `hyps` onto itself (one query per orbit is scanned:
        the others give the same bounds)."""
        n = len(hyps)
        if n <= 2 or self.terminal(hyps):
            return int(self.lb_total[n]), int(self.lb_worst[n])
        key = hyps.tobytes() + (HistoryMasks.key(allowed) or b"")
        got = self.floors.get(key)
        if got is None:
            ok = (self.possible(hyps) if self.candidates.guesses == "consistent"
                  else self.all_allowed)
            if mask_of(allowed) is not None:
                ok = ok & mask_of(allowed)
            if stab is not None:
                active = active[self.symmetry.representatives(stab)[active]]
            if self.column_floors is not None and self.column_floors.pays(n, len(active)):
                # every query, by column: those outside `active` part `hyps` as one in it
                got = self.column_floors.least(hyps, ok, NO_TREE)
            else:
                got = self.table.least_bounds(hyps, self.lb_total, self.lb_worst, active,
                                              ok, NO_TREE)
            if self.rules is not None and self.rules.timed:  # a query that waits a turn
                got = (min(int(got[0]), n + int(self.lb_total[n])),
                       min(int(got[1]), 1 + int(self.lb_worst[n])))
            self.floors[key] = got = (int(got[0]), int(got[1]))
        return got

    def known(self, hyps: np.ndarray, depth: int | None, allowed: Mask = None) -> int:
        """What the table already holds on the least total of `hyps` within `depth`: the
        exact value, or a lower bound learnt from a failed search (0: nothing)."""
        hit = self.memo.get(self.key(hyps, depth, allowed))
        return 0 if hit is None else hit[0] if isinstance(hit, tuple) else int(hit)

    def ordered(self, hyps: np.ndarray, depth: int | None, stab: np.ndarray | None,
                active: np.ndarray | None = None) -> tuple:
        """The useful queries at `hyps` in the order they are tried (by the lower bounds
        of their total and depth, then tie-break K), with those bounds, K's ranks, each
        one's going part sizes and the queries scored: (order, lbq, lbw, krank, going,
        tried), all positions in `tried`: those of `active` (the queries searched; None:
        all) that are the first of their orbit under `stab`, the symmetries that map
        `hyps` onto itself (the others are never scored)."""
        q = len(self.queries)
        active = self.all_queries if active is None else active
        if stab is not None:
            active = active[self.symmetry.representatives(stab)[active]]
        going, useful, lbq, lbw, possible = self.scores(hyps, active)
        if self.rules is not None and self.rules.timed:
            useful |= self.waits(hyps, going)
        krank = np.where(possible, 0, q) + active
        if depth is not None:
            useful &= lbw <= depth
        order = np.lexsort((krank, lbw, lbq))
        order = order[useful[order]].tolist()
        if self.top:
            order = order[:self.top]
        return order, lbq, lbw, krank, going, active

    def waits(self, hyps: np.ndarray, going: np.ndarray) -> np.ndarray:
        """When the feedback reads the turn, a query that tells nothing now is still a
        move: the set is asked again at the next turn, where answers may differ. All such
        queries lead to the same set at the same next turn, so one is kept (the first),
        unless a history rule makes their futures differ (then all are)."""
        idle = going.max(axis=1) == len(hyps)
        if not self.rules.spans and idle.any():
            first = np.argmax(idle)
            idle = np.zeros_like(idle)
            idle[first] = True
        return idle

    def plan(self, hyps: np.ndarray, depth: int | None,
             allowed: Mask = None) -> dict[bytes, tuple]:
        """The solved tree below `hyps` (solved exactly within `depth`), as the memo holds
        it: sorted hypotheses' bytes -> (total, worst, query index)."""
        out: dict[bytes, tuple] = {}
        stack = [(hyps, depth, allowed)]
        while stack:
            here, d, ok = stack.pop()
            if self.terminal(here):
                continue
            got = self.memo.get(self.key(here, d, ok))
            if not isinstance(got, tuple):  # solved inside the compiled kernel
                got = self.solve(here, d, NO_TREE - 1, allowed=ok)
            out[here.tobytes()] = got
            q = got[2]
            row, stops = self.table.row(q, here), self.stops[q]
            for c in np.unique(row).tolist():
                if not stops[c]:
                    stack.append((here[row == c], None if d is None else d - 1,
                                  self.allowed_after(ok, q, c)))
        return out

    def allowed_after(self, allowed: Mask, q: int, label: int) -> Mask:
        """The queries still allowed after query `q` read the code labelled `label`."""
        return allowed if self.rules is None else self.rules.after(allowed, q, label)

    def raised(self, hyps: np.ndarray, q: int, going: np.ndarray, depth: int | None,
               limit: int, stab: np.ndarray | None, active: np.ndarray,
               allowed: Mask) -> tuple[list[int], list[np.ndarray], list, list[int]] | None:
        """Query q's parts at `hyps` that go on (those with sizes in `going`), largest
        first, as (codes, parts, the queries each allows, their lower bounds): each
        part's size bound raised in turn to its floor and to what the table knows; None
        once |hyps| plus those bounds pass `limit`, or a floor of the depth passes
        `depth` - 1 (the query cannot beat the limit: no part need be searched)."""
        row = self.table.row(q, hyps)
        labels = sorted(np.flatnonzero(going).tolist(), key=lambda c: -int(going[c]))
        parts = [hyps[row == c] for c in labels]  # largest first
        child_depth = None if depth is None else depth - 1
        lows = [int(self.lb_total[len(p)]) for p in parts]
        rest = len(hyps) + sum(lows)
        if rest > limit:
            return None
        oks: list[Mask] = []  # (made part by part: a history rule's masks cost)
        for j, part in enumerate(parts):
            oks.append(self.allowed_after(allowed, q, labels[j]))
            low, deep = self.floor(part, active if self.rules is None else
                                   self.searched(part, None, oks[j]), oks[j], stab)
            low = max(low, self.known(part, child_depth, oks[j]))
            rest += low - lows[j]
            lows[j] = low
            if rest > limit or (child_depth is not None and deep > child_depth):
                return None
        return labels, parts, oks, lows

    def try_query(self, hyps: np.ndarray, q: int, going: np.ndarray, depth: int | None,
                  limit: int, stab: np.ndarray | None, active: np.ndarray,
                  allowed: Mask) -> tuple[int, int] | None:
        """The best tree under query `q` for its parts with sizes in `going` (the query
        counts once for each of `hyps`), if its total is at most `limit`. `active`: the
        queries that part `hyps` in every way any query does; `stab`: symmetries that
        map `hyps` and `q` onto themselves."""
        raised = self.raised(hyps, q, going, depth, limit, stab, active, allowed)
        if raised is None:
            return None
        _, parts, oks, lows = raised
        total, worst = len(hyps), 1
        child_depth = None if depth is None else depth - 1
        rest = sum(lows)
        for part, low, ok in zip(parts, lows, oks, strict=True):
            rest -= low
            got = self.solve(part, child_depth, limit - total - rest, stab, active, ok)
            if not isinstance(got, tuple) or total + got[0] + rest > limit:
                return None  # (a kept exact value may exceed the bound asked for)
            total += got[0]
            worst = max(worst, 1 + got[1])
        return total, worst

    def least_depth(self, hyps: np.ndarray, allowed: Mask = None) -> int:
        """The least worst case of any tree for `hyps`."""
        d = max(1, int(self.lb_worst[len(hyps)]))
        while True:
            if isinstance(self.solve(hyps, d, NO_TREE - 1, allowed=allowed), tuple):
                return d
            d += 1
            if d > len(hyps) + 1:
                raise SleuthError("no sequence of queries finishes every secret",
                                  hint="these hypotheses may be indistinguishable")


__all__ = ["NO_TREE", "OptimalSearch"]
