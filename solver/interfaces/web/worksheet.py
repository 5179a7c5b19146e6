"""One worksheet: a play session's file, the beliefs along it, and what the page shows.

The session file is `sleuth play`'s (interfaces/session.py): the spec, its params and
the observed steps, rewritten atomically after every step. A worksheet holds the
beliefs after each step in memory and rereads the file when it changed on disk (a
game played on in a terminal), so the browser and `sleuth play --session FILE` take
turns on one game. Undo pops the file's last step; the steps undone wait on a redo
stack, in memory, until a new observation clears it. An observation that no hypothesis
explains (or that breaks the spec's rules) is refused and nothing changes.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sleuth.compiler.api import ObservationError, SleuthError, show_value
from sleuth.solver.infoset.backends import prior_belief
from sleuth.solver.infoset.belief import check_history
from sleuth.solver.infoset.cover import Cover
from sleuth.solver.infoset.goals import ambiguous, ended, goal_values
from sleuth.solver.infoset.observe import (
    Event,
    apply_event,
    format_value,
    make_event,
    value_text,
)
from sleuth.solver.infoset.protocol import InformationSet
from sleuth.solver.infoset.queries import Candidates, Query, has_stop
from sleuth.solver.interfaces.session import Session, step_event
from sleuth.solver.interfaces.summary import heading
from sleuth.solver.interfaces.web.board import board
from sleuth.solver.interfaces.web.forms import grids, panels
from sleuth.solver.interfaces.web.library import Library
from sleuth.solver.strategies import STRATEGIES, Entropy, Strategy, make_strategy

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")
TOP_K = 5  # queries the page compares by default
FEW = 50  # hypotheses left that the page lists, each with its probability
AUTO = "auto"  # the page's default strategy: see Worksheet.advice
SAMPLED_BUDGET = 1.0  # seconds per suggestion on a set too large to list or to score
# the first answer while a suggestion is worked out: sampled ISES scoring the partition
# of a few sampled states (no hypothesis set listed in full), in a fraction of a second
QUICK = {"strategy": "ises-sampled-partition", "states": 256, "budget": 0.3}
SCORED_CELLS = 5 * 10**7  # (query x hypothesis) cells scored for one exhaustive suggestion
CHEAP_CELLS = 2 * 10**6  # cells AUTO scores in a few milliseconds (MM(4,6): 1,296 x 1,296)


@dataclass(frozen=True)
class Advice:
    """A suggestion's work, taken at one step: `run()` answers it. `cheap` work holds the
    interpreter for a few milliseconds at most (the server runs it on its thread, with
    its warm caches); any other may hold it for seconds (the server forks for it)."""

    run: Callable[[], Any]
    cheap: bool


class NotSaved(SleuthError):
    """A step, an undo or a new session that could not be written: nothing changed."""

    status = 503


@contextlib.contextmanager
def saving(what: str) -> Iterator[None]:
    """Turn a failed write into NotSaved, naming the cause but no path of the server's."""
    try:
        yield
    except OSError as err:
        raise NotSaved(f"{what} could not be saved ({err.strerror or type(err).__name__}); "
                       "nothing changed", hint="the server's sessions folder must be "
                       "writable, with room on its disk") from None


class Worksheet:
    """A session file and the beliefs along it; every method holds the worksheet's lock
    (the server serves several requests at once)."""

    def __init__(self, path: Path, library: Library):
        self.path = path
        self.library = library
        self.lock = threading.Lock()
        self.redo: list[dict[str, Any]] = []
        self.stamp = -1
        self._load()

    @property
    def id(self) -> str:
        return self.path.stem

    # -- the file

    def _load(self) -> None:
        """Read the session file again and replay its steps."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            ref, params = data["spec"], data.get("params", {})
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as err:
            raise SleuthError(f"cannot read session {self.path.name}: "
                              f"{getattr(err, 'strerror', None) or type(err).__name__}"
                              ) from None
        self.loaded = self.library.game(ref, params, trusted=True)
        self.game = self.loaded.game
        self.session = Session.open(self.path, self.game, ref)
        self.beliefs: list[InformationSet] = [prior_belief(self.game)]
        self.events: list[Event] = []
        for event in self.session.events(self.game):
            self.beliefs.append(apply_event(self.beliefs[-1], event))
            self.events.append(event)
        self.stamp = self.path.stat().st_mtime_ns

    def _fresh(self) -> None:
        """Reload when another program (a terminal's `sleuth play`) wrote the file."""
        try:
            stamp = self.path.stat().st_mtime_ns
        except OSError:
            raise SleuthError(f"session {self.id} is gone") from None
        if stamp != self.stamp:
            self.redo.clear()
            self._load()

    # -- what the page shows

    def state(self) -> dict[str, Any]:
        with self.lock:
            self._fresh()
            return self._state()

    def _state(self) -> dict[str, Any]:
        belief = self.beliefs[-1]
        marginals = belief.marginals()
        steps = []
        for k, event in enumerate(self.events):
            after, before = self.beliefs[k + 1], self.beliefs[k]
            steps.append({**event.to_data(), "text": event.describe(),
                          "hypotheses": after.size, "entropy_bits": after.entropy_bits(),
                          "information_bits": after.kl_bits(before)})
        over = self._over()
        out: dict[str, Any] = {
            "id": self.id, "spec": self.library.public(self.session.spec),
            "game": self.game.name,
            "title": heading(self.game),
            "params": {k: show_value(v) for k, v in self.game.model.params.items()},
            "steps": steps, "hypotheses": belief.size, "entropy_bits": belief.entropy_bits(),
            "grids": grids(marginals), "panels": panels(self.game, marginals),
            "board": board(self.game, belief, self.events, self.loaded.light),
            **self._left(belief), "over": over, "can_undo": bool(self.events),
            "can_redo": bool(self.redo)}
        return out

    def _left(self, belief: InformationSet) -> dict[str, Any]:
        """What is left: `flat` (every hypothesis equally likely: no ranking to show),
        `few` (at most FEW left: each with its probability, else null) and `likely`
        (the 5 most likely, when neither says more)."""
        def shown(pairs: list) -> list[dict[str, Any]]:
            return [{"value": {k: value_text(self.game, k, v) for k, v in h.items()},
                     "p": p} for h, p in pairs]

        flat = belief.uniform and belief.size > 1
        few = shown(belief.top(belief.size)) if belief.size <= FEW else None
        return {"flat": flat, "few": few,
                "likely": [] if flat or few is not None else shown(belief.top(5))}

    def _ended(self) -> bool:
        return ended(self.game, self.beliefs[-1], self.events[-1] if self.events else None)

    def _over(self) -> dict[str, Any] | None:
        """How the game ended, or None while it goes on."""
        belief = self.beliefs[-1]
        if not self._ended():
            return None
        asked = {a.name for a in self.game.model.queries}  # observations are not queries
        queries = sum(1 for e in self.events if e.action in asked)
        if not has_stop(self.game) and ambiguous(belief, self.game):
            return {"solved": False, "queries": queries,
                    "indistinguishable": goal_values(belief, self.game)}
        indexed = {v.name: v.domain.type.index for v in self.game.model.secret
                   if getattr(v.domain.type, "index", None) is not None}
        answer = {k: (", ".join(f"{label} {format_value(x)}" for label, x in zip(
                      indexed[k].values, v, strict=True)) if k in indexed else
                      value_text(self.game, k, v))
                  for k, v in belief.top(1)[0][0].items() if k in self.game.model.identify}
        finish = [] if self.game.model.cover is None else [  # known, still to be asked
            self._query_json(q, None)["text"] for q in Cover.of(self.game).forced(belief)]
        return {"solved": True, "queries": queries, "answer": answer, "finish": finish}

    # -- changes

    def observe(self, query: str, args: dict[str, Any], outcome: Any,
                repeat: bool = False) -> dict[str, Any]:
        """Record an observation; one equal to the last step only with `repeat` (a second
        press of the same Record is more often a slip than a second identical step)."""
        with self.lock:
            self._fresh()
            event = make_event(self.game, query, dict(args or {}), outcome,
                               turn=len(self.events) + 1)
            last = self.events[-1] if self.events else None
            if last is not None and not repeat and (event.action, event.args, event.feedback,
                                                    event.answer) == (
                    last.action, last.args, last.feedback, last.answer):
                raise ObservationError(f"the same as step {len(self.events)}",
                                       hint="send it again with repeat: true to record it "
                                            "twice")
            self._apply(event)
            self.redo.clear()
            return self._state()

    def _apply(self, event: Event) -> None:
        if self._over() is not None:
            raise ObservationError("the game is over", hint="undo a step to change it")
        belief = self.beliefs[-1]
        if self.game.model.action(event.action).history:
            rank = self.game.space(event.action).rank(event.args)
            check_history(self.game, event, rank, belief.history)
        after = apply_event(belief, event)  # InconsistentObservations: nothing changes
        with saving("the step"):
            self.session.append(event)  # saved first: a failed save changes nothing
        self.stamp = self.path.stat().st_mtime_ns
        self.beliefs.append(after)
        self.events.append(event)

    def undo(self) -> dict[str, Any]:
        with self.lock:
            self._fresh()
            if not self.events:
                raise ObservationError("nothing to undo")
            with saving("the undo"):
                step = self.session.undo()
            self.redo.append(step)
            self.stamp = self.path.stat().st_mtime_ns
            self.beliefs.pop()
            self.events.pop()
            return self._state()

    def redo_step(self) -> dict[str, Any]:
        with self.lock:
            self._fresh()
            if not self.redo:
                raise ObservationError("nothing to redo")
            self._apply(step_event(self.game, self.redo[-1]))
            self.redo.pop()
            return self._state()

    # -- advice

    def advice(self, strategy: str = AUTO, top: int = TOP_K,
               options: dict[str, Any] | None = None) -> Advice:
        """The suggestion at the present step, as work to run later: on this thread, or in
        a forked child (web/forked.py), so the work reads what it is given and takes no
        lock. It answers the strategy's next query with its expected information gain
        (bits), and the `top` queries of most expected gain to compare it with. AUTO:
        exhaustive ISES on a set the kernels can list and score within SCORED_CELLS
        (query, hypothesis) pairs, sampled ISES (SAMPLED_BUDGET seconds) on any other
        (scoring every query there takes one model count per feedback, or, listed, far
        more kernel cells than a suggestion can afford). The `top` queries are scored
        where the suggestion could be, else not listed. AUTO on at most CHEAP_CELLS
        pairs is `cheap`."""
        with self.lock:
            self._fresh()
            belief, events, over = self.beliefs[-1], len(self.events), self._ended()
        if over:
            return Advice(lambda: {"over": True, "suggestion": None, "top": [],
                                   "seconds": 0.0}, cheap=True)
        if not self.game.model.queries:
            return Advice(lambda: {"suggestion": None, "top": [], "strategy": None,
                                   "scored": False, "seconds": 0.0,
                                   "note": "this game has no queries to choose: record "
                                           "what is observed"}, cheap=True)
        queries = sum(len(block.ranks) for block in self.loaded.light.blocks)
        return Advice(lambda: self._suggestion(belief, events, strategy, top,
                                               dict(options or {})),
                      cheap=strategy == AUTO and belief.size * queries <= CHEAP_CELLS)

    def _suggestion(self, belief: InformationSet, events: int, strategy: str, top: int,
                    options: dict[str, Any]) -> dict[str, Any]:
        start = time.perf_counter()
        scored = affordable(self.loaded.candidates, belief)
        if strategy == AUTO:
            chooser = self._auto(scored, options, events)
        else:
            chooser = make_strategy(strategy, self.loaded.candidates, seed=events, **options)
        q = chooser.choose(belief)
        try:
            gains = expected_gains(self.loaded.candidates, belief) if scored else []
        except SleuthError:  # a game one-step ISES does not score (its answers may lie)
            gains = []
        best = sorted(gains, key=lambda g: (-g[1], g[2]))[:max(0, top)]
        mine = next((g[1] for g in gains if g[0] == q), None)
        return {"suggestion": self._query_json(q, mine), "strategy": chooser.name,
                "top": [self._query_json(g[0], g[1]) for g in best],
                "scored": scored,
                "seconds": round(time.perf_counter() - start, 4)}

    def _auto(self, scored: bool, options: dict[str, Any], seed: int) -> Strategy:
        """AUTO's strategy: exhaustive ISES (entropy) on a set it can score, sampled ISES
        (SAMPLED_BUDGET seconds) on any other; where the game rules that one out (its
        answers may lie, say), the first strategy of the registry that plays it."""
        first = "entropy" if scored else "ises-sampled"
        if not scored:
            options.setdefault("budget", SAMPLED_BUDGET)
        try:
            return make_strategy(first, self.loaded.candidates, seed=seed, **options)
        except SleuthError as refused:
            for name in STRATEGIES:
                try:
                    return make_strategy(name, self.loaded.candidates, seed=seed)
                except SleuthError:
                    continue
            raise refused from None

    def first_guess(self) -> Advice:
        """A first suggestion while the chosen strategy works, as work to run later (as
        `advice`'s): QUICK, a sampled pass on the game's queries without their kept
        matrices; None when the game is over. `provisional` says it is not the
        strategy's answer."""
        with self.lock:
            self._fresh()
            belief, events, over = self.beliefs[-1], len(self.events), self._ended()
        if over or not self.game.model.queries:
            return Advice(lambda: None, cheap=True)

        def guess() -> dict[str, Any]:
            start = time.perf_counter()
            options = {k: v for k, v in QUICK.items() if k != "strategy"}
            chooser = make_strategy(QUICK["strategy"], self.loaded.light, seed=events,
                                    **options)
            q = chooser.choose(belief)
            return {"suggestion": self._query_json(q, None), "strategy": chooser.name,
                    "provisional": True, "seconds": round(time.perf_counter() - start, 4)}

        return Advice(guess, cheap=False)

    def _query_json(self, q: Query, gain: float | None) -> dict[str, Any]:
        args = self.loaded.light.args(q)
        return {"query": q.action, "args": {k: show_value(v) for k, v in args.items()},
                "text": " ".join([q.action, *(f"{k}={format_value(v)}"
                                              for k, v in args.items())]),
                "gain_bits": gain}


def affordable(candidates: Candidates, belief: InformationSet) -> bool:
    """Whether every query can be scored on the listed hypotheses within SCORED_CELLS
    (query, hypothesis) feedback cells. The count decides first: a set too large to
    score is never listed (listing 9 million secrets from a diagram can take a
    minute)."""
    if belief.size * max(1, sum(len(block.ranks) for block in candidates.blocks)) \
            > SCORED_CELLS:
        return False
    listed = belief.settled(exhaustive=True)
    if listed.listing() is None:
        return False
    queries = sum(len(block.ranks) for block in candidates.blocks_for(listed))
    return queries * listed.size <= SCORED_CELLS


def expected_gains(candidates: Candidates, belief: InformationSet
                   ) -> list[tuple[Query, float, tuple[int, int]]]:
    """Every allowed query (one per orbit where the game has symmetries) with the expected
    information its outcome carries, in bits (ISES's score): (query, gain, canonical
    order as (block, position)).
    Empty for an information set too large to list (its queries are scored by sampling)."""
    scorer = Entropy(candidates)
    prepared = scorer.prepared(belief)
    if prepared.listing() is None:
        return []
    out = []
    for b, block in enumerate(candidates.blocks_for(prepared)):
        positions = scorer.orbit_firsts(block, prepared)
        if not len(positions):
            continue
        scored = scorer.score_block(block, positions, prepared)
        gains = -np.asarray(scored.scores, dtype=float)
        for p, g in zip(scored.positions.tolist(), gains.tolist(), strict=True):
            out.append((Query(block.action.name, int(block.ranks[p])), g, (b, p)))
    return out


def open_worksheet(library: Library, sessions: Path, ident: str) -> Worksheet:
    """The worksheet of the session file `DIR/<ident>.json`."""
    if not ID_RE.match(ident) or ident.startswith("."):
        raise SleuthError(f"'{ident}' is not a session name")
    path = sessions / f"{ident}.json"
    if not path.is_file():
        raise SleuthError(f"no session '{ident}' on this server",
                          hint="GET /api/sessions lists them")
    return Worksheet(path, library)


def new_session(library: Library, sessions: Path, ref: str,
                params: dict[str, Any] | None) -> Worksheet:
    """A new session file for a spec of the catalogue."""
    game = library.game(ref, params).game
    slug = re.sub(r"[^a-z0-9]+", "-", game.name.lower()).strip("-")[:40] or "game"
    name = f"{slug}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    with saving("the new session"):
        sessions.mkdir(parents=True, exist_ok=True)
        Session.open(sessions / f"{name}.json", game, library.path(ref))
    return Worksheet(sessions / f"{name}.json", library)


PAGE = 50  # sessions one listing gives unless asked for fewer (at most MAX_PAGE)
MAX_PAGE = 200


def list_sessions(library: Library, sessions: Path, offset: int = 0, limit: int = PAGE
                  ) -> dict[str, Any]:
    """One page of the session files in the folder, newest first: `sessions` (unreadable
    ones are skipped), `total` files, and the page's `offset` and `limit`. Only the
    page's files are read; the others are only looked at (their times)."""
    limit = min(max(limit, 0), MAX_PAGE)
    offset = max(offset, 0)
    stamped = []
    for path in sessions.glob("*.json") if sessions.is_dir() else []:
        try:
            stamped.append((path.stat().st_mtime, path))
        except OSError:
            continue
    stamped.sort(key=lambda t: (-t[0], t[1].name))
    out = []
    for modified, path in stamped[offset:offset + limit]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            out.append({"id": path.stem, "game": str(data["game"]),
                        "spec": library.public(str(data["spec"])),
                        "steps": len(data.get("steps", [])), "modified": modified})
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            continue
    return {"sessions": out, "total": len(stamped), "offset": offset, "limit": limit}


__all__ = ["Advice", "NotSaved", "Worksheet", "expected_gains", "list_sessions", "new_session",
           "open_worksheet"]
