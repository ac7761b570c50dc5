"""Derivatives from declarations: `vjp_rule(name, i)` and `jvp_rule(name)` turn what a primitive's
declaration says (partials, linearity, or per-operand VJP/JVP rules; see `registry.Primitive`) into
the rules reverse mode, forward mode and the eager Tensor call. Rules are plain functions over
primitives (through `ops`), so the same rule computes on arrays, records a Tensor graph, or emits
IR when the code generators call it on symbolic values.

`vjp_rule(name, i)(g, out, *operands, **params)` is the cotangent of operand `i` given the
cotangent `g` of the result `out` (tuples for several results); None means a zero cotangent.
`jvp_rule(name)(tangents, out, *operands, **params)` is the tangent of the result (`tangents[i]`
is None where operand i has none).
"""
from __future__ import annotations

from typing import Callable

from . import primitives as P
from .calculus import (add_tangents, broadcast_like, is_container, like_kind, maybe_container, ops, unbroadcast,
                       zero_tangent)


def declared_vjp(prim: P.Primitive, i: int) -> Callable | None:
    """The cotangent rule of operand i as the declaration gives it: from its partials (summed down
    to the operand's shape where operands broadcast), or its own rule."""
    if prim.partials is not None:
        partial = prim.partials[i] if i < len(prim.partials) else None
        return partial if partial is None or len(prim.partials) == 1 else _unbroadcasting(partial, i)
    return prim.vjp_of(i)


def vjp_rule(name: str, i: int) -> Callable | None:
    """The cotangent rule of operand `i` of primitive `name`, or None when none flows there."""
    prim = P.PRIMITIVES[name]
    key = ("vjp", i)
    if key not in prim.derived:
        prim.derived[key] = _derive_vjp(prim, i)
    return prim.derived[key]


def _derive_vjp(prim: P.Primitive, i: int) -> Callable | None:
    if prim.sequences is not None:
        return _sequence_vjp(prim, i)
    rule = declared_vjp(prim, i)
    return rule if rule is None or _reads_containers(prim) else _structured(_of_operand_kind(rule, i), i)


def _of_operand_kind(rule: Callable, i: int) -> Callable:
    """The cotangent of a real operand is real, of a complex one complex (see calculus.like_kind):
    a complex result of real operands (`x * 1j`) gives them the real part of its cotangent."""
    def of_operand_kind(g, out, *operands, **params):
        return like_kind(rule(g, out, *operands, **params), operands[i], out, *operands)
    return of_operand_kind


def _reads_containers(prim: P.Primitive) -> bool:
    return prim.reads_containers or prim.joins_pieces or prim.sequences is not None


def _structured(rule: Callable, i: int) -> Callable:
    """A NumPy function reads a list/tuple operand as an array, and its rule gives an array
    cotangent: give it the list's structure, as every cotangent of a list has (rules of list
    operations index into it, and second order differentiates them)."""
    def structured(g, out, *operands, **params):
        ct = rule(g, out, *operands, **params)
        if ct is None or not is_container(operands[i]) or is_container(ct):
            return ct
        return ops.rows_like(ct, operands[i])
    return structured


def has_vjp(name: str) -> bool:
    prim = P.PRIMITIVES[name]
    return prim.partials is not None or prim.vjp is not None


def defvjp(prim: P.Primitive, *rules) -> None:
    """Give a primitive declared without a derivative (a user's custom_vjp) its cotangent rules,
    one per operand (None: no gradient flows there)."""
    if has_vjp(prim.name):
        raise ValueError(f"the rule of {prim.name} is declared twice")
    prim.vjp = tuple(rules)
    prim.derived.clear()


def _sequence_vjp(prim: P.Primitive, i: int) -> Callable:
    """`+` / `*` of lists (tuples) joins / repeats them: where the operands' types say so, the
    declared sequence rules replace the elementwise ones (`list + array` stays NumPy's sum)."""
    elementwise = declared_vjp(prim, i)
    elementwise = None if elementwise is None else _structured(_of_operand_kind(elementwise, i), i)
    joins, sequence_rule = prim.sequences.joins, prim.sequences.vjp[i]

    def rule(g, out, *operands):
        chosen = sequence_rule if joins(*operands) else elementwise
        return None if chosen is None else chosen(g, out, *operands)
    return rule


def _sequence_jvp(prim: P.Primitive, elementwise: Callable) -> Callable:
    """The tangent of `+` / `*` where it joins / repeats sequences: the operator applied to the
    sequences' tangents (zeros where none), the other operand (a repeat count) as it is."""
    elementwise = _reading_arrays(elementwise)

    def rule(tangents, out, *operands):
        if not prim.sequences.joins(*operands):
            return elementwise(tangents, out, *operands)
        positions = [i for i, x in enumerate(operands) if maybe_container(x)]   # (a tuple grown in a loop)
        if all(tangents[i] is None for i in positions):
            return None
        return P.bind(prim, *[(tangents[i] if tangents[i] is not None else zero_tangent(x)) if i in positions else x
                              for i, x in enumerate(operands)])
    return rule


def _unbroadcasting(partial, i):
    def rule(g, out, *operands, **params):
        term = partial(g, out, *operands, **params)
        return None if term is None else unbroadcast(term, operands[i])
    return rule


def declared_jvp(prim: P.Primitive) -> Callable | None:
    """The tangent rule as the declaration gives it: from its partials, from its linearity (the
    primitive applied to the tangents), or the sum of its per-operand tangent terms."""
    if prim.partials is not None:
        return _elementwise_jvp(prim.partials)
    if prim.linear_in is not None:
        return _linear_jvp(prim, prim.linear_in)
    if prim.jvp is not None:
        return _summed_terms(prim)
    return None


def _summed_terms(prim: P.Primitive) -> Callable:
    """jvp[i](t, out, *operands, **params) is operand i's term of the result's tangent."""
    def rule(tangents, out, *operands, **params):
        terms = []
        for i, t in enumerate(tangents):
            term_rule = None if t is None else (prim.jvp(i) if callable(prim.jvp) else
                                                prim.jvp[i] if i < len(prim.jvp) else None)
            terms.append(None if term_rule is None else term_rule(t, out, *operands, **params))
        if prim.results != 1:   # several results: each term is a tuple, summed item by item
            present = [term for term in terms if term is not None]
            return tuple(add_tangents(list(items)) for items in zip(*present)) if present else None
        return add_tangents(terms)
    return rule


def jvp_rule(name: str):
    prim = P.PRIMITIVES[name]
    rule = declared_jvp(prim)
    if rule is None:
        return None
    if prim.sequences is not None:
        return _sequence_jvp(prim, rule)
    if prim.joins_pieces:
        return _dense_pieces(rule)
    return rule if _reads_containers(prim) else _reading_arrays(_of_result_kind(rule))


def _of_result_kind(rule: Callable) -> Callable:
    """The tangent of a real result is real (x.astype(float) of a complex x), of a complex one complex."""
    def of_result_kind(tangents, out, *operands, **params):
        return like_kind(rule(tangents, out, *operands, **params), out, *operands)
    return of_result_kind


def _elementwise_jvp(partials):
    def rule(tangents, out, *operands, **params):
        terms = [None if d is None or p is None else p(d, out, *operands, **params) for d, p in zip(tangents, partials)]
        return add_tangents([None if term is None else broadcast_like(term, out) for term in terms])
    return rule


def _linear_jvp(prim: P.Primitive, linear):
    """A primitive linear in the operands at positions `linear` ("all", or "rest": all but the
    first; the others are data: shapes, indices): its tangent is the primitive applied to their
    tangents, zeros where an operand has none."""
    def rule(tangents, out, *operands, **params):
        positions = range(len(operands)) if linear == "all" else range(1, len(operands)) if linear == "rest" \
            else linear
        if all(tangents[i] is None for i in positions):
            return None
        args = [(tangents[i] if tangents[i] is not None else zero_tangent(x)) if i in positions else x
                for i, x in enumerate(operands)]
        result = P.bind(prim, *args, **params)
        # an item read from a container of tangents may be None (zero): make it a real zero (also
        # when the operand's type is unknown: it may be a container)
        return ops.or_zeros(result, out) if prim.reads_items and maybe_container(operands[0]) else result
    return rule


def _dense_pieces(rule: Callable) -> Callable:
    """np.concatenate / np.stack of the pieces' tangents: a None (zero) tangent is zeros shaped
    like its piece."""
    def dense_pieces(tangents, out, seq, *operands, **params):
        first = tangents[0] if tangents[0] is None or not maybe_container(seq) else ops.dense_items(tangents[0], seq)
        return rule([first, *tangents[1:]], out, seq, *operands, **params)
    return dense_pieces


def _reading_arrays(rule: Callable) -> Callable:
    """A NumPy function reads a list/tuple operand as an array: so does its rule the operand's
    tangent (a list, whose None items are zeros)."""
    def reading_arrays(tangents, out, *operands, **params):
        tangents = [ops.array_of(t, x) if t is not None and is_container(x) else t
                    for t, x in zip(tangents, operands)]
        return rule(tangents, out, *operands, **params)
    return reading_arrays

