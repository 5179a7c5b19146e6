"""Queries generated one per orbit, for actions with too many argument tuples to list.

An action whose arguments are two sets over 39 values has 7.6e22 argument tuples:
no list of them can be made, nor scored. It can still be played when those values
are interchangeable: every permutation of a domain D's values, applied to the
secret and the arguments, leaves the action's feedback and its legality unchanged
(proved from the expressions, compiler/invariance.py). Then:

* At an information set S the values of D fall into *blocks*: v and w share one
  when swapping them maps S, with its weights, onto itself. (If the swaps (u v)
  and (v w) fix S, so does (u w) = (u v)(v w)(u v): sharing a block is an
  equivalence.) Every permutation within the blocks fixes S, and maps each query
  to one whose outcome partition is the same up to relabelling: the same score.
* A query's orbit under that group is fixed by how many values of each block
  have each *signature*: which of the D-holding arguments hold the value (a set
  containing it, a scalar equal to it), plus the other arguments' values. So
  the orbits are listed directly: per block, the ways to split its size over
  the signatures.
* Each orbit is represented by its first member in canonical order (design §3),
  the one tie-break K would take within it: in each block the smallest values
  take the signatures in descending order (held by the first argument before
  not, then by the second, and so on). Sets of one size rank lexicographically,
  so this puts the smallest values in the first argument, and so on.
* Legality depends only on the total count per signature (the whole of D is
  one block for the game), so the legal totals are found once per action, on
  one representative each, and only splits that add up to a legal total are
  generated. The generated queries are still checked by the legal
  expressions themselves.

An action qualifies when some domain D has those proofs, each argument holds D
(a set of D, or a D) or does not mention it, and the arguments that do not
mention it have at most FIXED_LIMIT tuples. Generated queries are identified by
their canonical rank like listed ones, as Python integers when the product
has 2**63 tuples or more. Only one-step scoring uses them (a swap proved for
one action need not be a symmetry of another).
"""

from __future__ import annotations

from math import comb, factorial, prod

import numpy as np

from sleuth.compiler.api import (
    BudgetError,
    CheckedAction,
    Domain,
    Game,
    IntT,
    SleuthError,
    domain_size,
    legality_interchangeable,
    multiset_table,
    option,
    subset_ranks,
    unrank,
    values_interchangeable,
)

MAX_TOTALS = 2_000_000  # signature-count vectors listed to find the legal ones
MAX_GENERATED = 4_000_000  # queries generated (or partial splits held) for one set
FIXED_LIMIT = 10_000  # tuples of the arguments that hold no value of the domain


class OrbitQueries:
    """Generates an action's queries one per orbit of an information set's stabiliser."""

    def __init__(self, game: Game, action: CheckedAction, domain: Domain):
        self.game = game
        self.action = action
        self.domain = domain
        self.n = domain_size(domain)
        self.space = game.space(action.name)
        roles = []  # per argument: "set", "value" or "fixed"
        for a in action.args:
            if a.domain == domain:
                roles.append("value")
            elif a.domain.kind == "set" and a.domain.elem == domain:
                roles.append("set")
            else:
                roles.append("fixed")
        self.roles = roles
        self.k = sum(r != "fixed" for r in roles)  # signature bits, first argument highest
        self.fixed = [a.domain for a, r in zip(action.args, roles, strict=True) if r == "fixed"]
        self.totals, self.by_total = self._legal_totals()
        self.cap = self.totals.max(axis=0) if len(self.totals) else np.zeros(self.width, int)

    @property
    def width(self) -> int:
        return 1 << self.k

    def members(self, listed) -> list[np.ndarray]:
        """The value blocks of a listed belief (its hypotheses, with their weights)."""
        weights = None if listed.uniform else listed.probabilities()
        return value_blocks(listed.game, listed.index, weights, self.domain)

    # -- which totals are legal (once per action)

    def _legal_totals(self) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        """The legal signature totals (rows), and for each (as a code) the positions of the
        fixed arguments' tuples that make it legal."""
        if comb(self.n + self.width - 1, self.width - 1) > MAX_TOTALS:
            raise BudgetError(
                f"'{self.action.name}': {self.n} interchangeable values over {self.width} "
                f"argument signatures are too many splits to list", self.action.loc)
        totals = multiset_table(self.width, self.n)[:, ::-1]  # counts by signature, highest first
        totals = totals[self._sizes_allowed(totals)]
        whole = [np.arange(self.n, dtype=np.int64)]
        nfixed = prod(domain_size(d) for d in self.fixed)
        rows = np.repeat(totals, nfixed, axis=0)
        fixed = np.tile(np.arange(nfixed, dtype=np.int64), len(totals))
        legal = self.space.legal_columns(self._columns(whole, rows, fixed)[0], len(rows))
        rows, fixed = rows[legal], fixed[legal]
        codes, first, which = np.unique(self._code(rows), return_index=True,
                                        return_inverse=True)
        return rows[first], {c: fixed[which == i] for i, c in enumerate(codes.tolist())}

    def _sizes_allowed(self, totals: np.ndarray) -> np.ndarray:
        """Rows whose count of values held by each D argument fits it: exactly one for a
        scalar, a size the set's domain allows for a set."""
        ok = np.ones(len(totals), dtype=bool)
        bit = self.k
        for a, role in zip(self.action.args, self.roles, strict=True):
            if role == "fixed":
                continue
            bit -= 1
            held = totals[:, self._signatures_with(bit)].sum(axis=1)
            lo, hi = (1, 1) if role == "value" else a.domain.sizes
            ok &= (held >= lo) & (held <= hi)
        return ok

    def _signatures_with(self, bit: int) -> np.ndarray:
        """Columns (signatures in descending order) whose signature has `bit` set."""
        sigs = np.arange(self.width - 1, -1, -1)
        return np.flatnonzero((sigs >> bit) & 1)

    def _code(self, totals: np.ndarray) -> np.ndarray:
        out = np.zeros(len(totals), dtype=np.int64)
        for c in range(self.width):
            out = out * (self.n + 1) + totals[:, c]
        return out

    # -- one query per orbit of an information set

    def ranks(self, members: list[np.ndarray]) -> np.ndarray:
        """The canonical ranks, ascending, of one legal query per orbit of the group that
        permutes the values within each block of `members` (universe positions, each
        block ascending, together all of D)."""
        return self.orbits(members)[0]

    def orbits(self, members: list[np.ndarray],
               sizes: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """`ranks`, and (`sizes`) how many queries each orbit has, as Python integers: per
        block, the ways to give its values their signatures (a multinomial)."""
        members = sorted(members, key=len)  # the largest block last: it is not combined
        rows, fixed = self._splits(members)
        columns, arg_ranks = self._columns(members, rows, fixed)
        legal = self.space.legal_columns(columns, len(rows))
        ranks = self.space.combine([r[legal] for r in arg_ranks])
        order = np.argsort(ranks, kind="stable")
        if not sizes:
            return ranks[order], None
        table = np.array([[comb(a, b) for b in range(self.n + 1)] for a in range(self.n + 1)],
                         dtype=object)
        count = np.ones(len(rows), dtype=object)
        for b, block in enumerate(members):
            left = np.full(len(rows), len(block), dtype=np.int64)
            for c in range(self.width):
                taken = rows[:, b * self.width + c]
                count = count * table[left, taken]
                left = left - taken
        return ranks[order], count[legal][order]

    def _splits(self, members: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Every split of each block's size over the signatures (one row per query: the
        blocks' counts side by side) adding up to a legal total, with the position of
        the fixed arguments' tuple. The last block's counts are what each legal total
        leaves, so only the other blocks' splits are combined."""
        rows = np.zeros((1, 0), dtype=np.int64)
        sums = np.zeros((1, self.width), dtype=np.int64)
        for block in members[:-1]:
            table = multiset_table(self.width, len(block))[:, ::-1]
            table = table[(table <= self.cap).all(axis=1)]
            pick_row = np.repeat(np.arange(len(rows)), len(table))
            pick_new = np.tile(np.arange(len(table)), len(rows))
            sums = sums[pick_row] + table[pick_new]
            keep = (sums <= self.cap).all(axis=1)
            rows = np.concatenate([rows[pick_row[keep]], table[pick_new[keep]]], axis=1)
            sums = sums[keep]
            self._check_size(len(rows) * len(self.totals), members)
        self._check_size(len(rows) * len(self.totals), members)
        pick_row = np.repeat(np.arange(len(rows)), len(self.totals))
        pick_total = np.tile(np.arange(len(self.totals)), len(rows))
        last = self.totals[pick_total] - sums[pick_row]
        keep = (last >= 0).all(axis=1)
        rows = np.concatenate([rows[pick_row[keep]], last[keep]], axis=1)
        codes = self._code(self.totals)[pick_total[keep]]
        out_rows, out_fixed = [], []
        for code in np.unique(codes).tolist():
            fixed = self.by_total[code]
            mine = np.flatnonzero(codes == code)
            out_rows.append(np.repeat(rows[mine], len(fixed), axis=0))
            out_fixed.append(np.tile(fixed, len(mine)))
        if not out_rows:
            return rows[:0], np.zeros(0, dtype=np.int64)
        return np.concatenate(out_rows), np.concatenate(out_fixed)

    def _check_size(self, rows: int, members: list[np.ndarray]) -> None:
        if rows > MAX_GENERATED:
            raise BudgetError(
                f"'{self.action.name}' has over {MAX_GENERATED:,} query orbits to look at "
                f"here (its {self.n} values fall into {len(members)} blocks)",
                self.action.loc, hint=f'use a smaller game ({option("set")})')

    def _columns(self, members: list[np.ndarray], rows: np.ndarray,
                 fixed: np.ndarray) -> tuple[list, list[np.ndarray]]:
        """Each argument's encoded column and canonical ranks for the orbits' first members:
        block by block, the smallest values take the signatures in descending order."""
        starts = []  # per block: where each signature's run begins (R, width + 1)
        for b in range(len(members)):
            counts = rows[:, b * self.width:(b + 1) * self.width]
            starts.append(np.concatenate([np.zeros((len(rows), 1), dtype=np.int64),
                                          np.cumsum(counts, axis=1)], axis=1))
        prefix = [np.concatenate([[0], np.cumsum(np.left_shift(1, m.astype(np.int64)))])
                  for m in members]  # mask of each block's first t values
        fixed_digits = _digits(fixed, [domain_size(d) for d in self.fixed])
        columns, ranks, bit, f = [], [], self.k, 0
        for a, role in zip(self.action.args, self.roles, strict=True):
            if role == "fixed":
                columns.append(unrank(a.domain, fixed_digits[f]))
                ranks.append(fixed_digits[f])
                f += 1
                continue
            bit -= 1
            chosen = np.zeros(len(rows), dtype=np.int64)  # the mask (set) or position (value)
            for b, block in enumerate(members):
                for s in self._signatures_with(bit).tolist():
                    lo, hi = starts[b][:, s], starts[b][:, s + 1]
                    if role == "set":
                        chosen |= prefix[b][hi] ^ prefix[b][lo]
                    else:
                        chosen += np.where(hi > lo, np.append(block, 0)[lo], 0)
            if role == "set":
                columns.append(chosen)
                ranks.append(subset_ranks(self.n, a.domain.sizes, chosen))
            else:
                columns.append(unrank(self.domain, chosen))
                ranks.append(chosen)
        return columns, ranks


def _digits(index: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
    """Mixed-radix digits of `index` (first size most significant)."""
    out = []
    for size in reversed(sizes):
        out.append(index % size)
        index = index // size
    return list(reversed(out))


def generator(game: Game, action: CheckedAction) -> OrbitQueries | None:
    """The orbit generator of an action, when some domain's values are interchangeable
    in its feedback and legality and every argument fits; None otherwise."""
    secret = [(v.name, v.domain) for v in game.model.secret]
    variables = secret + [(a.name, a.domain) for a in action.args]
    seen = []
    for a in action.args:
        d = a.domain.elem if a.domain.kind == "set" else a.domain
        if d is None or d in seen or d.kind != "scalar" or not d.type.finite:
            continue
        seen.append(d)
        if not (values_interchangeable(action, variables, d) and
                legality_interchangeable(action, d)):
            continue
        fixed = [x.domain for x in action.args
                 if x.domain != d and not (x.domain.kind == "set" and x.domain.elem == d)]
        if any(_holds(x, d) for x in fixed) or prod(domain_size(x) for x in fixed) > FIXED_LIMIT:
            continue
        if any(_holds(x, d) and x != d and not (x.kind in ("set", "seq") and x.elem == d)
               for _, x in secret):
            continue  # a secret variable holds values of d in a form not relabelled here
        return OrbitQueries(game, action, d)
    return None


def _holds(d: Domain, target: Domain) -> bool:
    if d == target:
        return True
    return (d.elem is not None and _holds(d.elem, target)) or any(
        _holds(f, target) for _, f in d.fields)


# ----------------------------------------------------------------------------- blocks

def value_blocks(game: Game, index: np.ndarray, weights: np.ndarray | None,
                 domain: Domain) -> list[np.ndarray]:
    """The blocks of `domain`'s values (universe positions, ascending) whose swaps map the
    hypotheses `index` of the game's table, with their `weights` (None: uniform), onto
    themselves."""
    table = game.hypotheses
    lo = domain.type.lo if isinstance(domain.type, IntT) else 0  # encoded value -> position
    labels, masks, others = [], [], []
    for var, column in zip(table.variables, table.columns, strict=True):
        d = var.domain
        parts = column if isinstance(column, tuple) else (column,)
        parts = [np.asarray(p)[index].astype(np.int64) for p in parts]
        if d == domain or (d.kind == "seq" and d.elem == domain):
            labels += [p - lo for p in parts]
        elif d.kind == "set" and d.elem == domain:
            masks += parts
        elif not _holds(d, domain):
            others += parts
        else:
            raise SleuthError(f"secret variable '{var.name}' holds values of "
                              f"'{domain.name}' in a form that cannot be relabelled")
    rows = np.stack(labels + masks + others, axis=1) if index.size and (
        labels or masks or others) else np.zeros((len(index), 1), dtype=np.int64)
    reference = _sorted(rows, weights)

    def fixes(a: int, b: int) -> bool:
        mapped = rows.copy()
        for c in range(len(labels)):
            x = rows[:, c]
            mapped[:, c] = np.where(x == a, b, np.where(x == b, a, x))
        for c in range(len(labels), len(labels) + len(masks)):
            m = rows[:, c].astype(np.int64)
            flip = ((m >> a) ^ (m >> b)) & 1
            mapped[:, c] = m ^ (flip << a) ^ (flip << b)
        return _same(_sorted(mapped, weights), reference)

    blocks: list[list[int]] = []
    for v in range(domain_size(domain)):
        for block in blocks:
            if fixes(block[0], v):
                block.append(v)
                break
        else:
            blocks.append([v])
    return [np.array(b, dtype=np.int64) for b in blocks]


def _sorted(rows: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows (distinct hypotheses) in one fixed order, with their weights."""
    order = np.lexsort(rows.T[::-1]) if len(rows) else np.arange(0)
    return rows[order], None if weights is None else weights[order]


def _same(a: tuple[np.ndarray, np.ndarray | None], b: tuple[np.ndarray, np.ndarray | None]) -> bool:
    """The same hypotheses with the same weights (to rounding: equal weights computed in
    another order)."""
    if not np.array_equal(a[0], b[0]):
        return False
    return a[1] is None or np.allclose(a[1], b[1], rtol=1e-12, atol=0)


def generated_levels(game: Game) -> dict | None:
    """For `info --symmetry` when the game's symmetries are not found otherwise
    (symmetry.of_game): the first query action whose values are interchangeable, with
    the query orbits at the root and one query down (each root orbit's first query and
    each of its feedbacks); None when no action has such values."""
    found = [(a, g) for a in game.model.queries if a.feedback is not None
             and (g := generator(game, a)) is not None]
    if not found:
        return None
    action, gen = found[0]
    everyone = np.arange(game.hypotheses.size, dtype=np.int64)
    prior = None if game.model.prior is None else game.prior

    def blocks(index: np.ndarray) -> list[np.ndarray]:
        return value_blocks(game, index, None if prior is None else prior[index], gen.domain)

    ranks, sizes = gen.orbits(blocks(everyone), sizes=True)
    queries = int(sum(sizes))
    level2 = {"nodes": 0, "orbits": 0, "queries": 0}
    for rank in ranks.tolist():
        codes = game.feedback_matrix(action.name, np.array([rank]))[0]
        for c in np.unique(codes).tolist():
            level2["nodes"] += 1
            level2["orbits"] += len(gen.ranks(blocks(everyone[codes == c])))
            level2["queries"] += queries
    group = prod(factorial(len(b)) for b in blocks(everyone))
    return {"group": group, "generators": [f"values of {gen.domain.name}"],
            "levels": [{"nodes": 1, "orbits": len(ranks), "queries": queries}, level2]}


__all__ = ["MAX_GENERATED", "OrbitQueries", "generated_levels", "generator", "value_blocks"]
