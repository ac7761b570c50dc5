"""The machinery of primitives: the `Primitive` record, `declare` (one declaration holds every
fact about a primitive), the bindings from Python callables, methods and operators to primitives,
`bind` (the one place a primitive is applied), and `ops` (primitives as functions, for rules).

Nothing here knows any particular primitive: they are declared in `runtime/prims/`.
"""
from __future__ import annotations

import dataclasses
import dis
import functools
import inspect
import sys
import threading
import types
from typing import Any, Callable

from . import types as T


@dataclasses.dataclass(frozen=True)
class Eager:
    """How the eager Tensor treats a primitive, in PyTorch's terms.

    - `node`: PyTorch's grad_fn class name, or `node(operands, params) -> name` where it depends on
      the operands; None: the name in PyTorch's style (`Arctan2` -> `Arctan2Backward0`).
    - `saves`: operand position -> the values the rule of that operand reads (operand positions and
      "out"): only those are saved (and checked by version). None: everything.
    - `promote`: "promote" (PyTorch's result dtype of the operands), "float" (the same, integers
      giving the default float dtype), or None (the operands as they are).
    - `quiet`: cannot raise floating-point warnings (only moves or compares values).
    - `view`: the result is a view of operand 0 when NumPy returns one.
    - `zero_gradient`: no derivative, but PyTorch records a node whose gradient is zero.
    - `recompute_out`: the rules read the result, PyTorch saves the operands instead (recomputed).
    - `structural`: operand positions holding structure (a shape), kept for the node's whole life.
    - `scalar_slot`: a Python-number operand 1 still takes an input slot (`(None, 0)`).
    - `promote_from`: the first operand promotion applies to (np.where's condition is not data).
    - `index_from`: operands from this position are an index, whose arrays the node keeps
      (getitem, setitem: IndexBackward0 saves its indices).
    - `copy_node`: the node's name when a view could not be made and the result is a copy
      (reshape: UnsafeViewBackward0).
    - `methods`: Tensor methods that apply the primitive to the tensor and the other arguments
      (dunders included); `reflected`: the same with the operands swapped (`__rsub__`);
      `inplace`: in-place methods (`mul_`); `functions`: `torch.<name>` functions calling the method.
    - `args`: PyTorch's parameters of the functions, a signature text in which `input` (else the first
      parameter) is the tensor, the methods' `self`: `"input, dim, *, dtype=None"`; or a dict of them by
      method or function name (`"*"`: the others), each a text or (text, params the spelling fixes:
      `{"mode": "hsplit"}`); None: the methods take the operands only. Parameters
      without a default are operands; those named as a param (or through `rename`, PyTorch's name -> the
      param's: `{"dim": "axis"}`) are params; any other must be left at its default. A function
      `space.name` is `torch.space.name` (`linalg.cholesky`).
    - `fields`: PyTorch's names of the results of a primitive of several (torch.return_types: a named
      tuple, `eigenvalues, eigenvectors`).
    """
    node: str | Callable | None = None
    saves: dict | None = None
    promote: str | None = None
    quiet: bool = False
    view: bool = False
    zero_gradient: bool = False
    recompute_out: bool = False
    structural: tuple = ()
    scalar_slot: bool = False
    promote_from: int = 0
    index_from: int | None = None
    copy_node: str | None = None
    methods: tuple = ()
    reflected: tuple = ()
    inplace: tuple = ()
    functions: tuple = ()
    args: str | dict | None = None
    rename: dict | None = None
    fields: tuple = ()


@dataclasses.dataclass(frozen=True)
class Sequences:
    """Python's meaning of an operator on lists and tuples besides its elementwise one (`+` joins
    two, `*` repeats one): where `joins(*operands)` is true (None: only the run time can tell) the
    cotangent of operand i is `vjp[i](g, out, *operands)`, and the tangent is the operator applied
    to the tangents of the sequences (it is linear in them)."""
    joins: Callable
    vjp: tuple


#: saves of a primitive whose rules read nothing (add, views, reductions by sum)
NOTHING = {0: (), 1: (), 2: ()}


@dataclasses.dataclass(eq=False)
class Primitive:
    """One operation. `params` maps each static parameter to its default.

    The derivative is given one of three ways (see `declare`): `partials` (elementwise), `linear_in`
    (linear in those operands), or `vjp`/`jvp` rules of one shape: `rule(d, out, *operands, **params)`
    with `d` the cotangent of the result (vjp) or the tangent of that operand (jvp)."""
    name: str
    impl: Callable
    params: dict = dataclasses.field(default_factory=dict)
    arity: int | None = 1            # number of operands; None for variadic
    differentiable: bool = True      # False: the output carries no gradient (argmax, comparisons)
    linear: bool = False             # linear in its differentiable operands
    effect: bool = False             # has a side effect (print, assert); never removed
    results: int | None = 1          # number of results; None: given by the `n` parameter
    shape_rule: Callable | None = None
    doc: str = ""
    builtin: bool = True             # False for the primitives users define (custom_vjp)
    # the derivative
    vjp: tuple | Callable | None = None       # a rule per operand, or `i -> rule` (any number of operands)
    jvp: tuple | Callable | None = None       # a tangent term per operand (summed), or `i -> rule`
    partials: tuple | None = None             # elementwise: partials[i](g, out, *operands) is g * d out/d operand_i
    linear_in: tuple | str | None = None      # positions it is linear in, "all", or "rest" (all but the first)
    reads_containers: bool = False            # its rules take list/tuple operands as such (not as arrays)
    joins_pieces: bool = False                # it joins a list of arrays (np.concatenate, np.stack ...)
    reads_items: bool = False                 # linear_in: an item it reads of a tangent container may be None
    sequences: Sequences | None = None        # `+`/`*` on lists and tuples (see Sequences)
    batch: Callable | None = None             # its batch rule (runtime/batching.py); None: its shape rule's family's
    # what the tracer and generated code may assume of its result
    view_of_first: bool = False               # the result may share memory with operand 0 (NumPy returns a
    #                                           view; Eager.view is PyTorch's meaning)
    shape_checked: bool = False               # NumPy rejects it for its operands' shapes alone: an op whose
    #                                           types say it must fail is refused while tracing
    fancy_index: bool = False                 # the result is certainly an integer or boolean array: indexing
    #                                           with it is advanced indexing, which copies (no view)
    fresh: bool = False                       # the result is a new object no other value shares (generated
    #                                           code may update it in place)
    scalar: Callable | None = None            # its function of Python numbers (runtime/scalar.py), which
    #                                           generated code calls where no operand is an array
    # generated code and the eager Tensor
    spelling: str | None = None               # how generated code writes it: a template "{0} + {1}",
    #                                           "len({args})" (see codegen/emit.py)
    eager: Eager = Eager()
    group: str = ""                           # the module that declares it (runtime/prims/<group>.py)
    #: rules derived from the declaration (runtime/rules.py), memoised; cleared when rules are given later
    derived: dict = dataclasses.field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def num_results(self, params: dict) -> int:
        return params["n"] if self.results is None else self.results

    def infer(self, types: list, consts: list, params: dict) -> list:
        """Result types from operand types; `consts[i]` is the operand's value when known, else NOVALUE."""
        n = self.num_results(params)
        if self.shape_rule is None:
            return [T.UNKNOWN] * n
        try:
            out = self.shape_rule(types, consts, params)
        except Exception:  # a shape rule that cannot decide leaves the type unknown
            return [T.UNKNOWN] * n
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def vjp_of(self, i: int) -> Callable | None:
        """The declared cotangent rule of operand i (None: no cotangent flows there)."""
        if callable(self.vjp):
            return self.vjp(i)
        return self.vjp[i] if self.vjp is not None and i < len(self.vjp) else None


class _NoValue:
    def __repr__(self) -> str:
        return "NOVALUE"


NOVALUE = _NoValue()

PRIMITIVES: dict[str, Primitive] = {}


def declares(kind: str, fact: str) -> bool:
    """Whether the op `kind` is a primitive whose declaration sets `fact` (a field of Primitive);
    False for the IR's own ops (`if`, `for`, `call` ...). Read when asked, so that primitives
    declared later (custom_vjp, stop_gradient) count too."""
    prim = PRIMITIVES.get(kind)
    return prim is not None and bool(getattr(prim, fact))


def primitive(name: str, impl: Callable, **kw) -> Primitive:
    """Declare a primitive (see `declare`, which also binds the Python it stands for)."""
    prim = Primitive(name, impl, **kw)
    prim.group = prim.group or _declaring_module()
    if name in PRIMITIVES:
        raise ValueError(f"primitive {name} declared twice")
    if prim.partials is not None and prim.vjp is not None:
        raise ValueError(f"primitive {name}: give partials or vjp rules, not both")
    PRIMITIVES[name] = prim
    if not prim.group.startswith(_SHIPPED):   # wengert's own rules: checked by its tests, not each import
        try:
            check_rule_names(prims=[prim])
        except NameError:
            del PRIMITIVES[name]
            raise
    _bind_implementation(prim)
    for watcher in _WATCHERS:
        watcher(prim)
    return prim


_WATCHERS: list = []


def on_declare(watcher: Callable) -> None:
    """Call `watcher(prim)` for every primitive declared so far and every one declared later: how
    the tables derived from declarations (the Tensor's methods, the torch.* functions) stay whole.
    A watcher sees every group: those declared on first need are declared now."""
    declare_pending()
    _WATCHERS.append(watcher)
    for prim in list(PRIMITIVES.values()):
        watcher(prim)


#: groups of primitives declared on first need, by the module whose callables they stand for
#: (scipy.special): importing that module is what costs, so it waits until something needs it
_PENDING: dict[str, Callable] = {}
_DECLARING = threading.RLock()


def declare_later(module: str, declare_group: Callable) -> None:
    """Call `declare_group()` (which declares primitives standing for `module`'s callables) when
    first needed: now if `module` is imported already, else when the tracer meets a callable it does
    not know while `module` is imported, when a rule names a primitive not declared yet
    (`ops.<name>`), when a table watches every declaration (`on_declare`), or on `declare_pending()`."""
    _PENDING[module] = declare_group
    if module in sys.modules:
        declare_pending(module)


def declare_pending(*modules: str) -> bool:
    """Declare the pending groups of `modules` (none named: every pending group); whether any was."""
    declared = False
    with _DECLARING:   # another thread needing the group waits until it is declared
        for module in modules or list(_PENDING):
            declare_group = _PENDING.pop(module, None)
            if declare_group is not None:
                declare_group()
                declared = True
    return declared


def _declare_imported() -> bool:
    """Declare the pending groups whose module the user has imported since; whether any was."""
    imported = [module for module in _PENDING if module in sys.modules]
    return bool(imported) and declare_pending(*imported)


def _declaring_module() -> str:
    """The module whose code declares the primitive being made (the first caller outside this one)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return "" if frame is None else frame.f_globals.get("__name__", "")


def declare(name: str, impl: Callable, *, callables: list = (), spec: str | None = None, operands: str = "",
            params_spec: str = "", fixed: dict | None = None, array_method: str | None = None,
            **facts) -> Primitive:
    """The one declaration of a primitive: `primitive(name, impl, **facts)`, and, when `spec` is
    given, the Python `callables` (and the array method `array_method`) it stands for, called with
    the signature `spec` whose `operands` are operands and `params_spec` are params."""
    prim = primitive(name, impl, **facts)
    if spec is not None:
        stands_for(prim, list(callables), spec, operands, params_spec, fixed, array_method)
    return prim


def _bind_implementation(prim: Primitive) -> None:
    """Generated code calls some primitives by their implementation (`sum_to(g, shape)`); the
    tracer must see those calls as the primitive again, so that generated code can be traced and
    differentiated (second order). Callables declared with `stands_for` take precedence."""
    if id(prim.impl) in _CALLABLES:
        return
    _CALLABLES[id(prim.impl)] = (prim.impl, Binding(prim, lambda: _implementation_signature(prim), ("operands",),
                                                   tuple(prim.params)))


def _implementation_signature(prim: Primitive) -> inspect.Signature:
    """`impl(*operands, **params)`, each param keyword-only with its default."""
    parameters = [inspect.Parameter("operands", inspect.Parameter.VAR_POSITIONAL)]
    parameters += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in prim.params.items()]
    return inspect.Signature(parameters)


# ---------------------------------------------------------------------------------------------
# Binding Python callables to primitives
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Binding:
    """How a call of a Python callable maps onto a primitive: the callable's signature (`spec`),
    which arguments are operands (in order; a `*name` operand is spread), and which are params.
    `written` is the signature, its text or a function making it: most bindings are never used in a
    process, so `spec` is made on first use."""
    prim: Primitive
    written: inspect.Signature | str | Callable
    operands: tuple
    params: tuple
    fixed: tuple = ()   # params set by the callable itself, e.g. np.amax -> max

    @functools.cached_property
    def spec(self) -> inspect.Signature:
        written = self.written
        return written if isinstance(written, inspect.Signature) else \
            signature(written) if isinstance(written, str) else written()

    def split(self, args: tuple, kwargs: dict) -> tuple[list, dict]:
        """Bind a call's arguments; return (operands, params). Raises TypeError on a bad call."""
        bound = self.spec.bind(*args, **kwargs)
        bound.apply_defaults()
        operands: list = []
        for name in self.operands:
            value = bound.arguments[name]
            if self.spec.parameters[name].kind is inspect.Parameter.VAR_POSITIONAL:
                operands.extend(value)
            else:
                operands.append(value)
        params = {name: bound.arguments[name] for name in self.params}
        params.update(dict(self.fixed))
        return operands, params

    def unsupported(self, args: tuple, kwargs: dict) -> list:
        """Keyword arguments of the call that wengert does not model (`out=`, `where=` ...)."""
        return [name for name in kwargs if name not in self.spec.parameters]


@functools.lru_cache(maxsize=None)   # many callables share one (`x, /`); a Signature is immutable
def signature(text: str) -> inspect.Signature:
    scope: dict = {}
    exec(f"def spec({text}): pass", {}, scope)  # the spec text is ours, never user input
    return inspect.signature(scope["spec"])


_CALLABLES: dict[int, tuple[Any, Binding]] = {}
METHODS: dict[str, Binding] = {}
PROPERTIES: dict[str, Primitive] = {}
OPERATORS: dict[Any, Primitive] = {}
#: methods that mutate their receiver: the tracer rebinds the receiver's name to the result
MUTATING_METHODS: dict[str, Binding] = {}


def stands_for(prim: Primitive, callables: list, spec: str, operands: str = "",
               params: str = "", fixed: dict | None = None, method: str | None = None) -> Binding:
    """Declare that each of `callables` (and `ndarray.<method>`, whose receiver is the first
    operand) is `prim` called with the signature `spec`."""
    binding = Binding(prim, spec, tuple(operands.split()), tuple(params.split()), tuple((fixed or {}).items()))
    for fn in callables:
        _CALLABLES[id(fn)] = (fn, binding)
    if method:
        METHODS[method] = binding
    return binding


def method(name: str, prim: Primitive, spec: str, operands: str, params: str = "",
           table: dict | None = None) -> Binding:
    """Declare that the method `name` (of arrays, lists or dicts; the receiver the first operand)
    is `prim` called with the signature `spec`."""
    binding = Binding(prim, spec, tuple(operands.split()), tuple(params.split()))
    (METHODS if table is None else table)[name] = binding
    return binding


#: primitives whose callable stands for another primitive with some params (np.linalg.svd(x,
#: compute_uv=False) is svdvals): name -> choose(params) -> (primitive, its params)
VARIANTS: dict[str, Callable] = {}


def variant(prim: Primitive, params: dict) -> tuple[Primitive, dict]:
    """The primitive (and its params) that a call bound to `prim` with `params` stands for."""
    choose = VARIANTS.get(prim.name)
    return (prim, params) if choose is None else choose(params)


def lookup_callable(fn: Any) -> Binding | None:
    entry = _CALLABLES.get(id(fn))
    if entry is not None and entry[0] is fn:
        return entry[1]
    if _PENDING and _declare_imported():   # scipy.special.erf after `import scipy.special`
        return lookup_callable(fn)
    return None


def bound_callables() -> list:
    """(callable, binding) for every Python callable bound to a primitive, in declaration order."""
    return list(_CALLABLES.values())


def unbind_callable(fn: Any) -> None:
    """Forget `fn`'s binding (a declaration that binds it again, with its own signature, follows)."""
    _CALLABLES.pop(id(fn), None)


# ---------------------------------------------------------------------------------------------
# bind: apply a primitive to arguments of any kind
# ---------------------------------------------------------------------------------------------

#: the `__wengert_bind__` of Python's and NumPy's own types (they cannot gain one), found once: a
#: lookup that misses costs more than a small array operation
_BIND_HOOKS: dict = {}


def _bind_hook(kind: type):
    hook = getattr(kind, "__wengert_bind__", None)
    if kind.__module__ in ("builtins", "numpy"):
        _BIND_HOOKS[kind] = hook
    return hook


def bind(prim: Primitive, *operands, **params):
    """Apply `prim`. An operand whose type defines `__wengert_bind__` (a Tensor, a symbolic IR
    value) takes over, the highest `__wengert_priority__` first; plain values just compute.
    This is where the three interpreters of one rule part: arrays compute here, Tensors record a
    node (runtime/tensor.py), IR values append an equation (tracer/ir.py, codegen/build.py)."""
    handler = None
    for x in operands:
        hook = _BIND_HOOKS.get(type(x), _bind_hook)
        if hook is _bind_hook:
            hook = _bind_hook(type(x))
        if hook is not None and (handler is None or type(x).__wengert_priority__ > handler[0]):
            handler = (type(x).__wengert_priority__, hook)
    if handler is not None:
        return handler[1](prim, operands, params)
    return prim.impl(*operands, **({**prim.params, **params} if params else prim.params))


# ---------------------------------------------------------------------------------------------
# ops: primitives as functions, for writing rules; a misspelt name fails when the rules load
# ---------------------------------------------------------------------------------------------

class _Ops:
    """`ops.mul(x, y)` is `bind(P.mul, x, y)`; a trailing underscore is dropped (`ops.print_`)."""

    def __getattr__(self, name: str) -> Callable:
        prim = PRIMITIVES.get(name.rstrip("_"))
        if prim is None and _PENDING:
            declare_pending()
            prim = PRIMITIVES.get(name.rstrip("_"))
        if prim is None:
            raise AttributeError(f"no primitive named {name.rstrip('_')!r}")

        def apply(*operands, **params):
            for x in operands:
                if _BIND_HOOKS.get(type(x), _bind_hook) is not None:   # (not a plain value: see bind)
                    return bind(prim, *operands, **params)
            return prim.impl(*operands, **({**prim.params, **params} if params else prim.params))
        apply.__name__ = name
        setattr(self, name, apply)   # (a primitive is never declared again: the next `ops.<name>` finds it here)
        return apply


ops = _Ops()

_LOADS = ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF")
_ATTRS = ("LOAD_ATTR", "LOAD_METHOD")


def ops_names(code: types.CodeType) -> set:
    """The names read as `ops.<name>` in `code` and the functions and lambdas nested in it."""
    names: set = set()
    previous = None
    for ins in dis.get_instructions(code):
        if ins.opname in _ATTRS and previous is not None and previous.opname in _LOADS and previous.argval == "ops":
            names.add(ins.argval)
        previous = ins
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= ops_names(const)
    return names


#: the modules whose declarations wengert ships (tests/runtime/test_declarations.py checks their rules)
_SHIPPED = __name__.rpartition(".")[0] + "."


def check_rule_names(*modules, prims=None) -> None:
    """Raise when a rule in `modules` (or a rule a primitive of `prims` holds; None: every declared
    one) names a primitive through `ops` that is not declared: a typo fails when the rules load (a
    primitive declared outside wengert: when declared), not when one first runs."""
    codes = []
    for module in modules:
        codes += [v.__code__ for v in vars(module).values()
                  if isinstance(v, types.FunctionType) and v.__module__ == module.__name__]
    for prim in PRIMITIVES.values() if prims is None else prims:
        for rules in (prim.vjp, prim.jvp, prim.partials):
            for rule in (rules if isinstance(rules, tuple) else (rules,)):
                if isinstance(rule, types.FunctionType):
                    codes.append(rule.__code__)
    for code in codes:
        for name in ops_names(code):
            if name.rstrip("_") not in PRIMITIVES:
                raise NameError(f"{code.co_filename}:{code.co_firstlineno}: a rule uses ops.{name}, "
                                f"but no primitive is named {name.rstrip('_')!r}")
