"""The kernel of `iterate`: a step applied to every cell of a block, on the cells still
changing only.

A block holds one state per (row, hypothesis) cell. A cell whose state the step maps to
itself is final: every later step gives the same state again (ir.Iterate). So after each
step only the cells that changed go on, gathered into flat arrays with the values the step
reads (its free names: secret variables, arguments, enclosing locals); the step is
evaluated on those alone and its results are written back. A ray that leaves the box in
three steps then costs three steps, not as many as the longest ray of its block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from sleuth.compiler import ir
from sleuth.compiler.arrays import any_of, component_parts, dtype_of
from sleuth.compiler.ir import BoolT, FloatT, IntT, RecordT, SeqT, TupleT, Type

Fn = Callable[[Any], Any]


def iterate_kernel(compile: Any, node: ir.Iterate, make_ctx: Callable[..., Any]) -> Fn:
    """`iterate(step, init, limit)` over blocks; `compile` turns nodes into kernels and
    `make_ctx(env, it)` makes a context for the step's evaluation on the changing cells."""
    assert node.body is not None
    init, body = compile(node.init), compile(node.body)
    names, t = node.names, node.type
    reads = sorted(free_names(node.body) - set(names))

    def run(ctx: Any) -> Any:
        start = flatten(as_state(t, init(ctx)))
        inputs = {key: ctx.env[key] for key in reads}
        final = np.broadcast_shapes(*(np.shape(a) for a in start + flatten(list(
            inputs.values()))))
        shape = final or (1,)  # cells in one flat axis, a scalar state in one cell
        state = [np.array(np.broadcast_to(a, shape)).reshape(-1) for a in start]
        lanes = np.arange(int(np.prod(shape)))
        where = np.unravel_index(lanes, shape)
        env = {key: gather(v, shape, where) for key, v in inputs.items()}
        now = list(state)
        for k in range(node.steps):
            bound = bind(names, unflatten(t, iter(now)))
            sub = make_ctx({**env, **bound}, {**ctx.it, **dict.fromkeys(names, k)})
            nxt = flatten(as_state(t, body(sub)))
            moved = np.broadcast_to(any_of([np.not_equal(a, b) for a, b in
                                            zip(nxt, now, strict=True)]), lanes.shape)
            if not moved.any():
                break  # every cell is final
            keep = lanes[moved]
            for whole, part in zip(state, nxt, strict=True):
                whole[keep] = np.broadcast_to(part, lanes.shape)[moved]
            lanes = keep
            now = [whole[lanes] for whole in state]
            env = {key: compress(v, moved) for key, v in env.items()}
        return unflatten(t, (whole.reshape(final) for whole in state))

    return run


def free_names(node: ir.Node) -> set[str]:
    """The variables an expression reads from its context (by the key they are bound to),
    not counting the ones it binds itself."""
    reads, bound = set(), set()
    stack = [node]
    while stack:
        n = stack.pop()
        match n:
            case ir.Name(ref=(("secret" | "arg" | "answer" | "local"), key)):
                reads.add(key)
            case ir.Let(bindings=bindings):
                bound.update(uid for uid, _ in bindings)
            case ir.Generator(loops=loops):
                bound.update(name for lp in loops for name in lp.names)
            case ir.Iterate(names=names):
                bound.update(names)
        stack.extend(ir.children(n))
    return reads - bound


def as_state(t: Type, value: Any) -> Any:
    """A value in the dtypes of type t (an iteration's state keeps one dtype per part
    while its step may compute a narrower one)."""
    if isinstance(value, tuple):
        return tuple(as_state(ct, v) for ct, v in zip(component_parts(t, len(value)), value,
                                                      strict=True))
    if isinstance(t, IntT | FloatT | BoolT):
        return np.asarray(value, dtype=dtype_of(t))
    return np.asarray(value)


def flatten(value: Any) -> list[Any]:
    """The arrays of an encoded value, tuples opened up."""
    if isinstance(value, tuple | list):
        return [x for v in value for x in flatten(v)]
    return [value]


def unflatten(t: Type, arrays: Iterator[Any]) -> Any:
    """An encoded value of type t from its arrays in `flatten`'s order."""
    if isinstance(t, SeqT | TupleT | RecordT):
        return tuple(unflatten(ct, arrays) for ct in ir.component_types(t))
    return next(arrays)


def bind(names: list[str], state: Any) -> dict[str, Any]:
    """The step's parameters bound to a state (a tuple state unpacked into several)."""
    if len(names) == 1:
        return {names[0]: state}
    return dict(zip(names, state, strict=True))


def gather(value: Any, shape: tuple[int, ...], where: tuple[np.ndarray, ...]) -> Any:
    """A value broadcast to the block's shape, read at the cells `where` (flat arrays);
    scalars stay as they are."""
    if isinstance(value, tuple):
        return tuple(gather(v, shape, where) for v in value)
    if not isinstance(value, np.ndarray) or value.ndim == 0:
        return value
    return np.broadcast_to(value, shape)[where]


def compress(value: Any, keep: np.ndarray) -> Any:
    """A gathered value at the cells that go on."""
    if isinstance(value, tuple):
        return tuple(compress(v, keep) for v in value)
    if not isinstance(value, np.ndarray) or value.ndim == 0:
        return value
    return value[keep]


__all__ = ["as_state", "free_names", "iterate_kernel"]
