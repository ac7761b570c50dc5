"""Early exits -> structured control flow, on the gast tree, before lowering.

After `restructure`, `return` and `raise` only end a path (the code after an `if` that may exit
is moved into the branches that fall through), and `break`/`continue` only end a loop body's
path. A `return` inside a loop becomes: store the value, set a flag, `break`; after the loop,
`if flag: return value`. A loop `else` that exits becomes an `if` after the loop (on a flag that
its `break`s set), so the code after the loop moves into its paths like after any `if`. Lowering
turns `break` into the loop's exit flag and `continue` into nothing. Synthesised names are Python
keywords or contain `?`, so they never clash with a user's.
"""
from __future__ import annotations

import copy

import gast

RETURN_VALUE = "return"   # the value a return inside a loop stores
RETURN_FLAG = "return?"   # whether a return inside a loop happened
BREAK_FLAG = "broke?"     # whether a `break` ended a loop whose `else` exits
EXITS = (gast.Return, gast.Raise, gast.Break, gast.Continue)


def _located(node, like):
    return gast.copy_location(node, like) if like is not None else node


def _name(id_, ctx, like=None):
    return _located(gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None), like)


def _assign(id_, value, like):
    return _located(gast.Assign(targets=[_name(id_, gast.Store(), like)], value=value, type_comment=None), like)


def _const(value, like):
    return _located(gast.Constant(value=value, kind=None), like)


def exits(stmts, loop_exits: bool = True) -> bool:
    """Whether `stmts` contain an exit that leaves them: return/raise anywhere (outside nested
    functions), break/continue when not inside a nested loop (if `loop_exits`)."""
    for stmt in stmts:
        if isinstance(stmt, (gast.Return, gast.Raise)):
            return True
        if isinstance(stmt, (gast.Break, gast.Continue)) and loop_exits:
            return True
        if isinstance(stmt, gast.If) and (exits(stmt.body, loop_exits) or exits(stmt.orelse, loop_exits)):
            return True
        if isinstance(stmt, (gast.For, gast.While)) and (exits(stmt.body, False) or exits(stmt.orelse, loop_exits)):
            return True
    return False


def has_break(stmts) -> bool:
    """Whether a `break` in `stmts` (not in a nested loop) ends the enclosing loop."""
    for stmt in stmts:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (has_break(stmt.body) or has_break(stmt.orelse)):
            return True
    return False


def _returns_in_loop(stmts) -> bool:
    for node in stmts:
        for sub in gast.walk(node):
            if isinstance(sub, gast.Return):
                return True
    return False


def restructure(stmts: list, in_loop: bool = False) -> list:
    """Rewrite a statement list so exits only end paths (see the module docstring)."""
    out: list = []
    pending = list(stmts)
    while pending:
        stmt = pending.pop(0)
        if isinstance(stmt, gast.Return) and in_loop:
            value = stmt.value if stmt.value is not None else _const(None, stmt)
            out += [_assign(RETURN_VALUE, value, stmt), _assign(RETURN_FLAG, _const(True, stmt), stmt),
                    _located(gast.Break(), stmt)]
            return out
        if isinstance(stmt, EXITS):
            out.append(stmt)
            return out  # what follows an exit is unreachable
        if isinstance(stmt, gast.If) and exits([stmt], in_loop):
            rest = pending
            body = restructure(stmt.body + _fresh(rest), in_loop)
            orelse = restructure(stmt.orelse + _fresh(rest), in_loop)
            out.append(_located(gast.If(test=stmt.test, body=body or [gast.Pass()], orelse=orelse), stmt))
            return out
        if isinstance(stmt, gast.If):
            # no exit leaves this `if`, but a loop in it may hold `break`s and `continue`s
            new = copy.copy(stmt)
            new.body, new.orelse = restructure(stmt.body, in_loop), restructure(stmt.orelse, in_loop)
            out.append(new)
            continue
        if isinstance(stmt, (gast.For, gast.While)) and stmt.orelse and exits(stmt.orelse, in_loop):
            pending[:0] = _else_as_if(stmt)
            continue
        if isinstance(stmt, (gast.For, gast.While)):
            loop_returns = _returns_in_loop(stmt.body)
            if loop_returns:
                out.append(_assign(RETURN_FLAG, _const(False, stmt), stmt))
            new = copy.copy(stmt)
            new.body = restructure(stmt.body, in_loop=True)
            new.orelse = restructure(stmt.orelse, in_loop) if stmt.orelse else []
            out.append(new)
            if loop_returns:
                check = _located(gast.If(test=_name(RETURN_FLAG, gast.Load(), stmt),
                                         body=[_located(gast.Return(value=_name(RETURN_VALUE, gast.Load(), stmt)),
                                                        stmt)],
                                         orelse=[]), stmt)
                pending.insert(0, check)
            continue
        out.append(stmt)
    return out


def _else_as_if(loop) -> list:
    """`for/while ... else: E` -> the loop without `else`, then `E` under `if not broke?` (or
    just `E` when no `break` can end the loop)."""
    new = copy.copy(loop)
    new.orelse = []
    if not has_break(loop.body):
        return [new] + loop.orelse
    new.body = _flag_breaks(loop.body)
    not_broke = _located(gast.UnaryOp(op=gast.Not(), operand=_name(BREAK_FLAG, gast.Load(), loop)), loop)
    return [_assign(BREAK_FLAG, _const(False, loop), loop), new,
            _located(gast.If(test=not_broke, body=loop.orelse, orelse=[]), loop)]


def _flag_breaks(stmts: list) -> list:
    """`stmts` with `broke? = True` before each `break` that ends their loop."""
    out: list = []
    for stmt in stmts:
        if isinstance(stmt, gast.Break):
            out += [_assign(BREAK_FLAG, _const(True, stmt), stmt), stmt]
        elif isinstance(stmt, gast.If):
            new = copy.copy(stmt)
            new.body, new.orelse = _flag_breaks(stmt.body), _flag_breaks(stmt.orelse)
            out.append(new)
        else:
            out.append(stmt)
    return out


def _fresh(stmts: list) -> list:
    """A copy of statements that will appear in two branches (each branch lowers its own)."""
    return [copy.deepcopy(s) for s in stmts]
