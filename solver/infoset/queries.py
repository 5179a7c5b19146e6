"""The queries a player may choose, in canonical order, and what each can reveal.

`Candidates` lists every legal query of the spec (actions in declaration
order, each action's argument tuples in canonical order, design §3). A query
"can be a secret" when its arguments have exactly the secret variables'
domains, in order (a guess that could be the code), or word lists of the
same sequences (a guess list that includes the secret's list); such a query
maps to the hypothesis it equals (`Block.as_secret`), which is what tie-break K
and `--guesses consistent` use.

For a belief, `parts` gives each candidate's outcome partition as a dense
(queries x parts) matrix: integer hypothesis counts when the belief is
uniform (so scores built from them tie exactly), weights otherwise. Parts
come from a bincount of feedback codes, through a cached full feedback
matrix when it fits the memory budget; for a counted belief too large to
list (symbolic backend), from exact model counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from sleuth.compiler.api import (
    TURN,
    BudgetError,
    CheckedAction,
    Game,
    SleuthError,
    answer_matrix,
    option,
    show_value,
)
from sleuth.solver.infoset.codes import (
    MIN_ROWS,
    CodeMatrix,
    RowCache,
    compact,
    count_columns,
    count_parts,
    rows_that_fit,
)
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.secretlike import can_be_secret, same_domain, secret_ranks
from sleuth.solver.infoset.stopping import Stopper, has_stop

if TYPE_CHECKING:
    from sleuth.solver.infoset.belief import Belief
    from sleuth.solver.infoset.orbits import OrbitQueries

ENUMERATE_QUERIES = 5 * 10**7  # argument tuples we list to find the legal ones
CHEAP_MATRIX = 1 << 24  # (query, hypothesis) pairs: a full feedback matrix this small is kept
MANY_CALLS = 64  # kernel calls for one block after which its full matrix is built (if it fits)


@dataclass(frozen=True)
class Query:
    """One query: an action and the canonical rank of its argument tuple."""

    action: str
    rank: int


@dataclass
class Block:
    """The legal queries of one action."""

    action: CheckedAction
    ranks: np.ndarray  # legal argument ranks, canonical order
    secret_like: bool  # its arguments have the secret's domains: a query can be a secret
    listed: bool = True  # every legal query; False: one per orbit, for one information set
    as_secret: np.ndarray | None = None  # each query's secret (product rank; -1: none)

    @property
    def deterministic(self) -> bool:
        return self.action.feedback is not None

    def positions_of(self, secrets: np.ndarray) -> np.ndarray:
        """The positions of the queries equal to the given secrets (product ranks), -1 for
        a secret no query equals."""
        order, table = self._by_secret
        if not len(table):
            return np.full(len(secrets), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(table, secrets), len(table) - 1)
        return np.where(table[at] == secrets, order[at], -1)

    @cached_property
    def _by_secret(self) -> tuple[np.ndarray, np.ndarray]:
        """The positions of the queries that are secrets, and those secrets, ascending."""
        found = np.flatnonzero(self.as_secret >= 0)
        order = found[np.argsort(self.as_secret[found], kind="stable")]
        return order, self.as_secret[order]


AnyBelief = InformationSet  # the name strategies and evaluation have used


class Candidates:
    """Every legal query of a game, with the machinery to score them against a belief.

    Everything that depends on the hypotheses follows `belief.game`: the game
    itself, or (symbolic backend) a restricted game whose table lists exactly a
    counted belief's hypotheses. A query that can be a secret has the same rank
    in its argument product as that secret in the secret's product, which is how
    queries are matched to hypotheses on every backend.
    """

    def __init__(self, game: Game, guesses: str = "any", symmetry: bool = True):
        if guesses not in ("any", "consistent"):
            raise SleuthError(f"{option('guesses')} is 'any' or 'consistent', not '{guesses}'")
        self.game = game
        self.guesses = guesses
        self.generators: dict[str, OrbitQueries] = {}  # actions too large to list
        self.blocks = [b for b in (self._block(a) for a in game.model.queries) if b is not None]
        self._generated: tuple[bytes, list[Block]] | None = None
        self._kernel_pairs: dict[str, tuple[int, int]] = {}  # per block: (pairs, calls)
        self._history: dict[tuple, np.ndarray] = {}  # history masks, by earlier query
        self._turns: dict[str, np.ndarray] = {}  # each listed query's turn, by action
        if guesses == "consistent" and not self.any_secret_like:
            raise SleuthError(
                f'{option("guesses", "consistent")} needs a query that can be a secret (arguments '
                'with the '
                "secret variables' domains, in order); this spec has none",
                hint=f'use {option("guesses", "any")}')
        self.stops = Stopper(game)
        self.symmetry = symmetry  # score one query per orbit where symmetries are proved

    @property
    def size(self) -> int:
        """The number of queries: those listed, and every argument tuple of the generated
        actions (a bound: their legal ones are not counted)."""
        return sum(len(b.ranks) for b in self.blocks) + sum(
            self.game.space(name).size for name in self.generators)

    @property
    def any_secret_like(self) -> bool:
        return any(b.secret_like and len(b.ranks) for b in self.blocks)

    def _block(self, action: CheckedAction) -> Block | None:
        """The action's legal queries, listed; None when there are too many to list and
        they are generated one per orbit instead (orbits.py)."""
        space = self.game.space(action.name)
        if space.size > ENUMERATE_QUERIES:
            from sleuth.solver.infoset.orbits import generator

            found = None
            if action.feedback is not None and not can_be_secret(self.game, action):
                found = generator(self.game, action)
            if found is None:
                raise BudgetError(
                    f"'{action.name}' has {space.size:,} argument tuples, too many to list "
                    "to find the legal queries, and no domain's values are proved "
                    "interchangeable in it to list one query per orbit instead", action.loc,
                    hint="narrow the argument domains (set sizes, ranges) or the params "
                         f'({option("set")})')
            self.generators[action.name] = found
            return None
        ranks = np.concatenate(list(space.legal_ranks()) or [np.zeros(0, dtype=np.int64)])
        as_secret = secret_ranks(self.game, action, ranks)
        return Block(action, ranks, as_secret is not None, as_secret=as_secret)

    def blocks_for(self, belief: AnyBelief) -> list[Block]:
        """The blocks a strategy scores at this belief, in the actions' order: the listed
        ones, and for each generated action its queries one per orbit of the belief's
        stabiliser (the last belief's are kept)."""
        if not self.generators:
            return self.blocks
        listed = belief.listing()
        if listed is None:
            raise SleuthError("queries generated one per orbit need the listed hypotheses",
                              hint=f'use {option("backend", "enum")}')
        weights = None if listed.uniform else listed.probabilities()
        key = (id(listed.game).to_bytes(8, "little") + listed.index.tobytes() +
               (b"" if weights is None else weights.tobytes()))
        if self._generated is None or self._generated[0] != key:
            made = {}
            for name, gen in self.generators.items():
                made[name] = Block(gen.action, gen.ranks(gen.members(listed)), False,
                                   listed=False)
            listed_blocks = {b.action.name: b for b in self.blocks}
            order = [a.name for a in self.game.model.queries]
            self._generated = (key, [listed_blocks.get(n) or made[n] for n in order])
        return self._generated[1]

    # -- which queries are allowed now

    def allowed(self, block: Block, belief: AnyBelief) -> np.ndarray:
        """Positions in `block` a strategy may choose for this belief (all, or consistent),
        keeping the action's `history` rule against the queries asked so far."""
        ok = self.keeps_history(block, belief)
        turns = self._turns.get(block.action.name) if block.listed else None
        if turns is None and block.action.timed:
            turns = turn_of(self.game, block)
            if block.listed:
                self._turns[block.action.name] = turns
        if turns is not None:  # an action that reads `turn`: this turn's queries only
            now = turns == len(belief.history) + 1
            ok = now if ok is None else ok & now
        if self.guesses == "any":
            return np.arange(len(block.ranks)) if ok is None else np.flatnonzero(ok)
        possible = self.possible(block, belief)
        return np.flatnonzero(possible if ok is None else possible & ok)

    @property
    def history_rules(self) -> list[str]:
        """The actions whose queries must keep a `history` rule."""
        return [b.action.name for b in self.blocks if b.action.history] + [
            name for name, g in self.generators.items() if g.action.history]

    def keeps_history(self, block: Block, belief: AnyBelief) -> np.ndarray | None:
        """Which of the block's queries keep its action's `history` rule against every
        earlier query of it (one mask per earlier query, kept); None: no rule applies."""
        name = block.action.name
        earlier = [(r, c) for a, r, c in belief.history if a == name]
        if not block.action.history or not earlier:
            return None
        ok = np.ones(len(block.ranks), dtype=bool)
        for before in earlier:
            key = ("history", name, before)
            mask = self._history.get(key) if block.listed else None
            if mask is None:
                mask = self.game.history_allows(name, block.ranks, [before])
                if block.listed:
                    self._history[key] = mask
            ok &= mask
        return ok

    def orbit_sizes(self, block: Block, belief: AnyBelief) -> np.ndarray | None:
        """How many legal queries each of a generated block's queries stands for (its orbit
        at this belief; Python integers); None for a listed block."""
        if block.listed:
            return None
        gen = self.generators[block.action.name]
        return gen.orbits(gen.members(belief.listing()), sizes=True)[1]

    def representatives(self, block: Block, belief: AnyBelief) -> np.ndarray | None:
        """Which of the block's queries are the first of their orbit under the proved
        symmetries (symmetry.py) that map this information set onto itself: every other
        query of an orbit has the same outcome partition up to relabelling, so scoring
        the first is scoring them all, and tie-break K picks among firsts. None when
        there is no symmetry to use: several blocks, a weighted or unlisted belief."""
        listed = belief.listing() if belief.uniform and block.listed else None
        group = False if listed is None else self._orbits(block, listed.game)
        return group.firsts(listed.index) if group else None

    def possible_positions(self, block: Block, belief: AnyBelief) -> np.ndarray:
        """The positions (in order) of the block's queries that are still possible secrets,
        found from the belief's hypotheses when it is listed."""
        listed = belief.listing()
        if not block.secret_like or listed is None or listed.game is not self.game:
            return np.flatnonzero(self.possible(block, belief))
        at = block.positions_of(self.game.hypotheses.ranks[listed.index])
        return np.unique(at[at >= 0])

    def possible(self, block: Block, belief: AnyBelief,
                 positions: np.ndarray | None = None) -> np.ndarray:
        """Which queries of the block (at `positions`, default all) are still possible
        secrets."""
        n = len(block.ranks) if positions is None else len(positions)
        if not block.secret_like or n == 0:
            return np.zeros(n, dtype=bool)
        ranks = block.as_secret if positions is None else block.as_secret[positions]
        return belief.contains(ranks)

    def preferred(self, block: Block, belief: AnyBelief, positions: np.ndarray) -> np.ndarray:
        """Tie-break K's first preference among the block's queries at `positions`: still a
        possible secret; in a spec none of whose queries can be a secret, one whose
        feedback ends the game (`stop_when`) under some remaining hypothesis (a listed
        belief's; a counted one too large to list prefers none)."""
        if self.any_secret_like:
            return self.possible(block, belief, positions)
        no = np.zeros(len(positions), dtype=bool)
        listed = belief.listing()
        if block.action.stop_when is None or not block.deterministic or not len(positions) \
                or listed is None:
            return no
        codes = self.codes(block, positions, listed.game, listed.index)
        out = no.copy()
        for i, row in enumerate(codes):
            query = Query(block.action.name, int(block.ranks[positions[i]]))
            out[i] = any(self.stops(query, int(c)) for c in np.unique(row).tolist())
        return out

    def args(self, query: Query) -> dict[str, Any]:
        return self.game.space(query.action).value(query.rank)

    def shown(self, query: Query) -> dict[str, Any]:
        """A query as JSON: its action and its arguments as people write them."""
        return {"query": query.action,
                "args": {k: show_value(v) for k, v in self.args(query).items()}}

    # -- outcomes

    def codes(self, block: Block, positions: np.ndarray, game: Game,
              index: np.ndarray) -> np.ndarray:
        """Feedback codes (len(positions), len(index)) of a deterministic block."""
        kept = self._labels(block, positions, game, index)
        if kept is None:
            return game.feedback_matrix(block.action.name, block.ranks[positions], index)
        return kept[1][kept[0].T]

    def part_counts(self, block: Block, positions: np.ndarray, game: Game, index: np.ndarray,
                    weights: np.ndarray | None) -> np.ndarray:
        """Part sizes (weights None) or masses of the queries at `positions` on the
        hypotheses `index`: (queries, parts), parts in some fixed order, maybe empty."""
        kept = self._labels(block, positions, game, index)
        if kept is None:
            codes = game.feedback_matrix(block.action.name, block.ranks[positions], index)
            return count_parts(codes, game.coder(block.action.name).size, weights)
        return count_columns(kept[0], len(kept[1]), weights)

    def kept_codes(self, block: Block, positions: np.ndarray, game: Game,
                   index: np.ndarray) -> np.ndarray | None:
        """The codes from the block's full matrix if one is kept already (None: none is;
        nothing is built here)."""
        kept = self._matrix(block, game, build=False) if block.listed else None
        labels = None if kept is None else kept.cut(index, positions, len(block.ranks))
        return None if labels is None else kept.book[labels.T]

    def keep_matrices(self) -> None:
        """Build the full matrix of every listed block with feedback that fits the memory
        budget now, once, rather than when a strategy first needs it (a tournament's
        set-up: the decisions it times then only read it). Only for a game the enumerated
        backend lists: a counted one's matrices are made per listed set."""
        if self.game.candidate_count() > self.game.budget.max_hypotheses:
            return
        for block in self.blocks:
            if block.listed and block.deterministic:
                self._matrix(block, self.game)

    def _labels(self, block: Block, positions: np.ndarray, game: Game,
                index: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The kept codes of the queries at `positions` on the hypotheses `index`, as
        (labels (hypotheses x queries), book: label -> code); None: the kernels compute
        them (nothing kept, or a set too large for the rows kept)."""
        if not block.listed:
            return None  # queries of one information set: nothing to keep
        kept = self._matrix(block, game, build=False)  # (kept already: nothing to weigh)
        if kept is None:
            kept = self._matrix(block, game, build=self._worth_building(block, game,
                                                                       positions, index))
        labels = None if kept is None else kept.cut(index, positions, len(block.ranks))
        return None if labels is None else (labels, kept.book)

    def _worth_building(self, block: Block, game: Game, positions: np.ndarray,
                        index: np.ndarray) -> bool:
        """Whether to build the full matrix for this request. It pays off when most of the
        table is scored by most queries (an exhaustive decision at the root, reused below
        it), not for a sample of it, nor for one query per orbit of a large game; a small
        one, or one filled from its orbits (symmetry.orbit_matrix), always does. And once
        the kernels have computed as many pairs for the block as the matrix holds (many
        smaller decisions, as when the first query is forced), or have been called
        MANY_CALLS times for it (each call has a fixed cost: a small set's feedback is as
        many numpy calls as a large one's), it is built."""
        if self._orbits(block, game):
            return True
        pairs = len(block.ranks) * game.hypotheses.size
        if 2 * len(index) >= game.hypotheses.size and (
                pairs <= CHEAP_MATRIX or 2 * len(positions) >= len(block.ranks)):
            return True
        if game is not self.game:
            return False
        done, calls = self._kernel_pairs.get(block.action.name, (0, 0))
        done, calls = done + len(positions) * len(index), calls + 1
        self._kernel_pairs[block.action.name] = (done, calls)
        return done >= pairs or calls >= MANY_CALLS

    def _orbits(self, block: Block, game: Game) -> Any:
        """The proved symmetries of the game's own table, when one block can be a secret
        (symmetry.Transpositions); else False."""
        if not self.symmetry or game is not self.game or game.transient or \
                len(self.blocks) != 1 or not block.secret_like or not block.deterministic:
            return False
        from sleuth.solver.infoset.symmetry import transpositions

        return game.memo.get(("transpositions", block.action.name),
                             lambda: transpositions(game, block.ranks) or False)

    def query_codes(self, query: Query, belief: Belief) -> np.ndarray:
        """Feedback codes of one query on the belief's hypotheses."""
        game, index = belief.game, belief.index
        for b in self.blocks:
            if b.action.name == query.action:
                pos = np.searchsorted(b.ranks, query.rank)
                if pos < len(b.ranks) and b.ranks[pos] == query.rank:
                    return self.codes(b, np.array([pos]), game, index)[0]
        return game.feedback_matrix(query.action, np.array([query.rank]), index)[0]

    def _matrix(self, block: Block, game: Game,
                build: bool = True) -> CodeMatrix | RowCache | None:
        """The block's full feedback matrix (queries x all hypotheses), if it fits and the
        game is not a transient one (a sample, scored once, maybe only in part); computed
        only when `build`, else only if already there."""
        if game.transient:
            return None
        key = ("matrix", block.action.name)  # kept by the game: every legal query's row
        if not build and key not in game.memo:
            return None

        def make() -> CodeMatrix | RowCache | None:
            queries = len(block.ranks)
            group = self._orbits(block, game)
            if group:  # the orbits' first rows hold every code the matrix has
                from sleuth.solver.infoset.symmetry import links, orbit_matrix

                tree = links(group)
                first = game.feedback_matrix(block.action.name, block.ranks, tree.firsts).T
                book, dtype, labels = compact(first)
                room = rows_that_fit(game, queries, dtype)
                if room >= game.hypotheses.size:
                    return CodeMatrix(orbit_matrix(tree, labels), book)
                return RowCache(tree, labels, book, room) if room >= MIN_ROWS else None
            if queries * game.hypotheses.size * 4 > game.budget.memory_bytes // 2:
                return None
            codes = game.feedback_matrix(block.action.name, block.ranks)
            book, _, labels = compact(codes)
            return CodeMatrix(np.ascontiguousarray(labels.T), book)

        return game.memo.get(key, make)

    def splits(self, belief: InformationSet, chunk: int = 64, sample: int = 64) -> bool:
        """Whether some legal query has two or more feedbacks on the belief's hypotheses.
        Two hypotheses it tells apart prove it, so a spread sample of them is tried first
        (on a large set that settles it), then every hypothesis; queries a chunk at a
        time."""
        listed = belief.listing()
        if listed is None:  # too many to list: counted parts
            return any(np.any((self.parts(b, np.arange(lo, min(lo + chunk, len(b.ranks))),
                                         belief) > 0).sum(axis=1) > 1)
                       for b in self.blocks_for(belief) for lo in range(0, len(b.ranks), chunk))
        index = listed.index
        tries = [index[::-(-len(index) // sample)], index] if len(index) > sample else [index]
        for hyps in tries:
            for block in self.blocks_for(belief):
                for lo in range(0, len(block.ranks), chunk):
                    positions = np.arange(lo, min(lo + chunk, len(block.ranks)))
                    codes = self.codes(block, positions, listed.game, hyps)
                    if np.any(codes != codes[:, :1]):
                        return True
        return False

    def parts(self, block: Block, positions: np.ndarray, belief: InformationSet) -> np.ndarray:
        """Outcome partition of each query at `positions`: (queries, parts) counts
        (uniform belief) or probability masses; on a counted belief too large to list, by
        exact model counts, one conditioned count per feedback."""
        assert block.deterministic, "responses are scored from their answer tables"
        return belief.partition(self, block, positions)

    def answer_table(self, block: Block, position: int, belief: Belief) -> np.ndarray:
        """P(answer | h) for a response query: (possible answers, the belief's hypotheses)."""
        args = self.game.space(block.action.name).value(int(block.ranks[position]))
        return answer_matrix(belief.game, block.action.name, args, belief.index)[1]


def turn_of(game: Any, block: Any) -> np.ndarray:
    """Each of a block's queries' turn (its implicit `turn` argument), 0 when its action
    reads no turn."""
    if not block.action.timed or not len(block.ranks):
        return np.zeros(len(block.ranks), dtype=np.int64)
    env = game.space(block.action.name).env(block.ranks)
    return np.asarray(env[TURN]).reshape(-1).astype(np.int64)


__all__ = ["AnyBelief", "Block", "Candidates", "Query", "Stopper", "turn_of",
           "can_be_secret", "has_stop", "same_domain", "secret_ranks"]
