"""Shift-invariant idioms: a value `m` that cancels out of everything reading it (the max a stable
log-sum-exp, softmax or log-softmax subtracts and adds back) is read as `stop_gradient(m)`, so that
no derivative flows through it. Run on the primal before differentiating; the values computed
stay the user's, bit for bit (stop_gradient is the identity).

Why this is right: let `s` be any array of m's shape and read `m + s` for `m`. A forward pass over
the ops reading m proves, op by op, that each value v is either `v0 + k*s` ("add") or
`v0 * exp(k*s)` ("scale"), with s broadcast into v's axes (`Shift.sshape`), until every chain
reaches a value with k = 0, which does not depend on s at all. So every derivative through m is
zero, at every order, and holding m constant gives exactly the function's derivatives. An op with
no rule here, a use in a nested region or a returned value gives up: then nothing changes.
"""
from __future__ import annotations

import dataclasses
import heapq

from ..runtime import types as T
from ..runtime.custom import stop_gradient_prim
from ..tracer.cleanup import substitute
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Literal, Op, Region, Value, producers, readers, walk
from ..tracer.names import Namer
from .inline import all_names

#: how many ops reading m (directly or not) one proof may visit: a value read by a long chain of
#: arithmetic is left alone rather than making the pass quadratic in the program's length (the
#: idioms take 4 to 10)
BUDGET = 24

#: the ops a shift is subtracted before (exp(x - m) / sum, m + log(sum(exp(x - m))), softmax(x - m)):
#: where the candidates are found
_EXPONENTIALS = ("exp", "softmax", "log_softmax", "logsumexp")

#: ops that lay out their operand's entries anew (`m[:, None]`): a shift subtracted after one is
#: still a candidate
_LAYOUT = ("expand_dims", "getitem", "reshape", "squeeze")


@dataclasses.dataclass(frozen=True)
class Shift:
    """A value that is `v0 + k*s` (kind "add") or `v0 * exp(k*s)` (kind "scale"), k != 0, where s
    is the shift added to m laid out with the value's rank: `sshape` is 1 along each axis s is
    constant along, and the value's length along the others."""
    kind: str
    k: int
    sshape: tuple


#: an op's result that does not depend on the shift at all
INVARIANT = "invariant"


def hold_shifts(fn: Function) -> bool:
    """Read every shift all of whose uses cancel out (see the module's docstring) through a new
    `stop_gradient` op right after it. Returns whether anything changed."""
    changed = False
    while (found := _first_invariant(fn)) is not None:
        region, producer, m = found
        _hold(fn, region, producer, m)
        changed = True
    return changed


def _first_invariant(fn: Function):
    """The first shift that cancels out and is not held yet: (its region, its producer, it)."""
    read_by, made_by = readers(fn.body), producers(fn.body)
    home = {id(op): region for region in _regions(fn.body) for op in region.ops}
    positions: dict = {}
    for m in _shifts(fn, made_by):
        producer = made_by.get(m)
        if producer is None or producer.kind == stop_gradient_prim.name or len(producer.results) != 1 \
                or not isinstance(m.type, T.ArrayType) or not _real_float(m) or _shape(m) is None:
            continue
        region = home[id(producer)]
        position = positions.setdefault(id(region), {id(op): i for i, op in enumerate(region.ops)})
        if _cancels(m, region, position, read_by):
            return region, producer, m
    return None


def _shifts(fn: Function, made_by: dict):
    """The candidates: each `m` an exponential reads subtracted (`exp(x - m)`, also where m is
    laid out anew first: `exp(x - m[:, None])`, then that layout too). So the pass costs a few
    ops' visits per exponential, whatever the program's length."""
    for op in walk(fn.body):
        shifted = made_by.get(op.operands[0]) if op.kind in _EXPONENTIALS and op.operands else None
        if shifted is None or shifted.kind != "sub" or not isinstance(shifted.operands[1], Value):
            continue
        m = shifted.operands[1]
        layout = made_by.get(m)
        if layout is not None and layout.kind in _LAYOUT and isinstance(layout.operands[0], Value):
            yield layout.operands[0]
        yield m


def _regions(region: Region):
    yield region
    for op in region.ops:
        for sub in op.regions:
            yield from _regions(sub)


def _hold(fn: Function, region: Region, producer: Op, m: Value) -> None:
    """`m` becomes `stop_gradient(m')`: the new value keeps m's name (the generated code reads
    `m = stop_gradient(np.max(...))`), the one the producer makes gets a temporary's."""
    held = Value(m.name, m.type)
    m.name = Namer(all_names(fn.body)).fresh("t")
    substitute(fn.body, m, held)
    region.ops.insert(region.ops.index(producer) + 1,
                      Op(stop_gradient_prim.name, [m], [held], {}, [], producer.loc))


def _cancels(m: Value, region: Region, position: dict, read_by: dict) -> bool:
    """Whether every use of m, followed through the ops of `region`, cancels out (see the
    module's docstring). Ops are visited in program order, so that an op reading two values that
    depend on m sees both."""
    shifts = {m: Shift("add", 1, _shape(m))}
    pending, queued, visited = [], set(), 0

    def queue(v: Value) -> bool:
        for user in read_by.get(v, ()):
            if not isinstance(user, Op) or id(user) not in position:
                return False   # returned, or read in a nested region: not followed
            if id(user) not in queued:
                queued.add(id(user))
                heapq.heappush(pending, (position[id(user)], id(user), user))
        return True

    if not queue(m):
        return False
    while pending:
        _, _, op = heapq.heappop(pending)
        visited += 1
        if visited > BUDGET or len(op.results) != 1:
            return False
        out = _transfer(op, [shifts.get(x) if isinstance(x, Value) else None for x in op.operands])
        if out is None:
            return False
        if out is not INVARIANT:
            shifts[op.results[0]] = out
            if not queue(op.results[0]):
                return False
    return True


# -- one op: how its result depends on the shift, given how its operands do ----------------------

def _transfer(op: Op, shifts: list):
    """The result's `Shift`, INVARIANT, or None where no rule here proves either."""
    shape, rule = _shape(op.results[0]), _RULES.get(op.kind)
    if rule is None or shape is None or not _real_float(op.results[0]):
        return None
    return rule(op, shifts, len(shape))


def _made(kind: str, k: int, sshape: tuple):
    return INVARIANT if k == 0 else Shift(kind, k, sshape)


def _pad(shift: Shift, rank: int) -> tuple:
    return (1,) * (rank - len(shift.sshape)) + shift.sshape


def _elementwise(op: Op, shifts: list, rank: int, signs: tuple):
    """add, sub, mul, div (the sign each operand's k counts with: +1, -1 for a subtrahend or a
    divisor). Sums and differences of "add" values add their k; products and quotients of
    "scale" values too; a sum of "scale" values, each with the same k, is one."""
    if len(op.operands) != 2 or op.params:
        return None
    terms = [(s, sign) for s, sign in zip(shifts, signs) if s is not None]
    sshapes = {_pad(s, rank) for s, _ in terms}
    kinds = {s.kind for s, _ in terms}
    if len(sshapes) != 1 or len(kinds) != 1:
        return None
    (sshape,), (kind,) = sshapes, kinds
    if op.kind in ("add", "sub"):
        if kind == "add":
            return _made("add", sum(s.k * sign for s, sign in terms), sshape)
        # v0 e^{ks} +- w0 e^{ks}: both operands scaled alike (a constant added is not scaled)
        same = len(terms) == 2 and terms[0][0].k == terms[1][0].k
        return Shift("scale", terms[0][0].k, sshape) if same else None
    if kind != "scale":
        return None
    return _made("scale", sum(s.k * sign for s, sign in terms), sshape)


def _unary(mapping: dict):
    """An elementwise function: {operand kind: (result kind, factor on k)}."""
    def rule(op: Op, shifts: list, rank: int):
        (s,) = shifts if len(shifts) == 1 else (None,)
        if s is None or op.params or s.kind not in mapping:
            return None
        kind, factor = mapping[s.kind]
        return _made(kind, s.k * factor, _pad(s, rank))
    return rule


def _axes(axis, rank: int) -> tuple | None:
    """A reduction's `axis` param as non-negative axes; None where it is not a plain int or tuple."""
    if axis is None:
        return tuple(range(rank))
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(type(a) is int and -rank <= a < rank for a in axes):
        return None
    return tuple(sorted({a % rank for a in axes}))


def _reduction(kinds: tuple, defaults: dict):
    """A reduction over `axis` whose result is the operand's kind (`kinds`): sum and mean of a
    scaled value (linear), mean of a shifted one, logsumexp of a shifted one. Only where s is
    constant along every reduced axis (it factors out)."""
    def rule(op: Op, shifts: list, rank: int):
        (s,) = shifts if len(shifts) == 1 else (None,)
        params = {**defaults, **op.params}
        if s is None or s.kind not in kinds or set(params) != set(defaults):
            return None
        sshape = _pad(s, len(_shape(op.operands[0])))
        axes = _axes(params["axis"], len(sshape))
        if axes is None or any(sshape[a] != 1 for a in axes):
            return None
        kept = sshape if params["keepdims"] else tuple(d for a, d in enumerate(sshape) if a not in axes)
        return Shift(s.kind, s.k, kept) if len(kept) == rank else None
    return rule


def _normalised(op: Op, shifts: list, rank: int):
    """softmax and log_softmax along `axis` of a shifted value: s constant along it cancels."""
    (s,) = shifts if len(shifts) == 1 else (None,)
    params = {"axis": -1, **op.params}
    if s is None or s.kind != "add" or set(params) != {"axis"}:
        return None
    axes = _axes(params["axis"], rank)
    return INVARIANT if axes is not None and len(axes) == 1 and _pad(s, rank)[axes[0]] == 1 else None


def _expand_dims(op: Op, shifts: list, rank: int):
    (s,) = shifts if len(shifts) == 1 else (None,)
    axis = op.params.get("axis")
    axes = (axis,) if type(axis) is int else axis
    if s is None or not isinstance(axes, tuple) or not all(type(a) is int and -rank <= a < rank for a in axes):
        return None
    inserted = {a % rank for a in axes}
    if len(inserted) != len(axes):
        return None
    rest = iter(_pad(s, rank - len(axes)))
    return Shift(s.kind, s.k, tuple(1 if a in inserted else next(rest) for a in range(rank)))


def _getitem(op: Op, shifts: list, rank: int):
    """Basic indexing by constants: a new axis (None) has s constant along it; a full slice keeps
    an axis as it is; an integer or another slice only an axis s is constant along."""
    s, *index = shifts
    keys = op.operands[1:]
    if s is None or any(x is not None for x in index) or not all(
            isinstance(x, Literal) and (x.value is None or type(x.value) in (int, slice)) for x in keys):
        return None
    rest = list(_pad(s, len(_shape(op.operands[0]))))
    sshape = []
    for key in (x.value for x in keys):
        if key is None:
            sshape.append(1)
        elif not rest or (key != slice(None) and rest[0] != 1):
            return None   # (more keys than axes: NumPy's error, not ours to follow)
        elif type(key) is int:
            rest.pop(0)
        else:
            sshape.append(rest.pop(0))
    sshape += rest
    return Shift(s.kind, s.k, tuple(sshape)) if len(sshape) == rank else None


def _squeeze(op: Op, shifts: list, rank: int):
    """Axes of length 1 dropped: s is constant along them."""
    (s,) = shifts if len(shifts) == 1 else (None,)
    source = _shape(op.operands[0])
    if s is None or source is None:
        return None
    axis = op.params.get("axis")
    dropped = {a for a, d in enumerate(source) if d == 1} if axis is None else set(_axes(axis, len(source)) or ())
    if not dropped or any(source[a] != 1 for a in dropped):
        return None
    sshape = tuple(d for a, d in enumerate(_pad(s, len(source))) if a not in dropped)
    return Shift(s.kind, s.k, sshape) if len(sshape) == rank else None


def _reshape(op: Op, shifts: list, rank: int):
    """A reshape of a value whose every entry has its own shift (m itself): the reshaped shift is
    as arbitrary as s."""
    s, *shape = shifts
    source = _shape(op.operands[0])
    if s is None or shape != [None] or source is None or _pad(s, len(source)) != tuple(source):
        return None
    return Shift(s.kind, s.k, tuple(_shape(op.results[0])))


_RULES = {
    "add": lambda op, shifts, rank: _elementwise(op, shifts, rank, (1, 1)),
    "sub": lambda op, shifts, rank: _elementwise(op, shifts, rank, (1, -1)),
    "mul": lambda op, shifts, rank: _elementwise(op, shifts, rank, (1, 1)),
    "div": lambda op, shifts, rank: _elementwise(op, shifts, rank, (1, -1)),
    "neg": _unary({"add": ("add", -1), "scale": ("scale", 1)}),
    "exp": _unary({"add": ("scale", 1)}),
    "log": _unary({"scale": ("add", 1)}),
    "square": _unary({"scale": ("scale", 2)}),
    "sum": _reduction(("scale",), {"axis": None, "keepdims": False}),
    "mean": _reduction(("scale", "add"), {"axis": None, "keepdims": False}),
    "logsumexp": _reduction(("add",), {"axis": None, "keepdims": False}),
    "softmax": _normalised,
    "log_softmax": _normalised,
    "expand_dims": _expand_dims,
    "getitem": _getitem,
    "squeeze": _squeeze,
    "reshape": _reshape,
}


# -- types ---------------------------------------------------------------------------------------

def _shape(x) -> tuple | None:
    t = type_of_operand(x)
    if isinstance(t, T.ArrayType):
        return tuple(t.shape) if t.known else None
    return () if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool") else None


def _real_float(x) -> bool:
    t = type_of_operand(x)
    return isinstance(t, T.ArrayType) and t.dtype[0] == "f" or isinstance(t, T.ScalarType) and t.kind == "float"
