"""Questions about a function's syntax tree (gast), asked before or while lowering it: which
names a block assigns or changes in place, which a nested function reads, a node's source text.
"""
from __future__ import annotations

import gast

from ..runtime import primitives as P


def target_names(target) -> list:
    return [n.id for n in gast.walk(target) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)] + [
        n.id for n in gast.walk(target) if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
        for n in [n.value]]


def assigned_in(stmts) -> list:
    """Names a statement list may rebind, in order of first appearance (nested defs excluded)."""
    names: list = []
    for stmt in stmts:
        _collect_assigned(stmt, names)
    return names


def _collect_assigned(node, names: list) -> None:
    if isinstance(node, (gast.FunctionDef, gast.Lambda)):
        if isinstance(node, gast.FunctionDef):
            names.append(node.name)
        return
    if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp)):
        for gen in node.generators:
            _collect_assigned(gen.iter, names)
        return
    if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
        names.append(node.id)
    elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
        names.extend(_root_name(node.value, (gast.Subscript, gast.Attribute)))
    elif isinstance(node, gast.AugAssign):
        names.extend(_root_name(node.target, (gast.Subscript, gast.Attribute)))
    elif _mutating_call(node):
        names.extend(_root_name(node.func.value, gast.Subscript))
    elif isinstance(node, gast.Break):
        names.append("break")
    elif isinstance(node, gast.For) or isinstance(node, gast.While):
        pass
    for child in gast.iter_child_nodes(node):
        _collect_assigned(child, names)


def updated_in_place(stmts) -> set:
    """Names whose object a statement list may change in place: `a[i] = v`, `a += v`, `a.append(v)`."""
    names = set()
    for stmt in stmts:
        for node in gast.walk(stmt):
            base = None
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
                base = node.value
            elif isinstance(node, gast.AugAssign):
                base = node.target
            elif _mutating_call(node):
                base = node.func.value
            names.update(_root_name(base, gast.Subscript))
    return names


def _mutating_call(node) -> bool:
    """`a.append(v)` and the other methods that change their receiver; a call the method's
    signature cannot take is a module's function of the same name (`np.append(x, y)`)."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr in P.MUTATING_METHODS):
        return False
    try:
        P.MUTATING_METHODS[node.func.attr].spec.bind(None, *node.args, **{k.arg: None for k in node.keywords})
    except TypeError:
        return False
    return True


def _root_name(node, through) -> list:
    """[`a`] for `a` reached from `node` through the node kinds `through` (`a[i].b`), else []."""
    while isinstance(node, through):
        node = node.value
    return [node.id] if isinstance(node, gast.Name) else []


def assigned_names(fn_node) -> set:
    args = fn_node.args
    names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    names |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    body = [fn_node.body] if isinstance(fn_node, gast.Lambda) else fn_node.body
    names |= set(assigned_in(body)) - {"break"}
    return names


def free_names(fn_node) -> list:
    """Names a nested function reads that it does not define itself, in order of appearance."""
    own = assigned_names(fn_node)
    out: list = []
    body = [fn_node.body] if isinstance(fn_node, gast.Lambda) else fn_node.body
    for stmt in body:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in own \
                    and node.id not in out:
                out.append(node.id)
    return out


def own_nodes(fn_node) -> list:
    """The nodes of a function's own body, not of the functions or classes defined in it, in
    source order (those without a position last)."""
    nodes = []
    pending = [fn_node.body] if isinstance(fn_node, gast.Lambda) else list(fn_node.body)
    while pending:
        node = pending.pop()
        nodes.append(node)
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            pending += list(gast.iter_child_nodes(node))
    return sorted(nodes, key=lambda n: (getattr(n, "lineno", None) is None, getattr(n, "lineno", 0),
                                        getattr(n, "col_offset", 0)))


def first_store(fn_node, name: str):
    """The first place `fn_node`'s own body (not a nested function's) assigns the name `name`."""
    return next((n for n in own_nodes(fn_node)
                 if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)), None)


def comprehension_targets(node) -> list:
    return [n for gen in node.generators for n in target_names(gen.target)]


def dotted(node) -> str:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return type(node).__name__


def source_text(node) -> str:
    """The source text of an expression, for messages."""
    try:
        return gast.unparse(node).strip()
    except Exception:  # noqa: BLE001 - a message falls back to the node's kind
        return describe_node(node)


def describe_node(node) -> str:
    return {"Attribute": "an attribute", "Subscript": "an item", "Starred": "a starred target",
            "Call": "a call result"}.get(type(node).__name__, type(node).__name__)
