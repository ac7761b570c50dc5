"""From a Python function and argument types to compiled adjoint code: trace, inline, reverse,
optimize, verify, emit. The verifier runs after every stage."""
from __future__ import annotations

import dataclasses
import os

from ..runtime import types as T
from ..runtime.names import python_identifier
from ..tracer.cleanup import substitute
from ..tracer.ir import Literal, Module
from ..tracer.pipeline import deep_recursion, refuse_output, trace
from ..tracer.verify import IRVerificationError, verify
from .accumulate import batch_products
from .derivative import carries_derivative
from .emit import emit_function
from .hoist import hoist_invariants
from .idioms import hold_shifts
from .inline import NotDifferentiableError, inline_calls
from .optimize import eliminate_dead_code
from .optimize import optimize as run_optimizer
from .optimize import writable_results
from .forward import tangent
from .reverse import adjoint


@dataclasses.dataclass
class Compiled:
    """Generated code: `fn(*ir_args, out_bar) -> (out, *grads)` for an adjoint."""
    source: str
    fn: object
    module: Module
    output_type: T.Type


def source_files(module: Module) -> dict:
    """Base name -> path of every file the module's functions come from (to quote user lines)."""
    files = {}
    for f in module.functions.values():
        path = f.source.rsplit(":", 1)[0]
        files[os.path.basename(path)] = path
    return files


def compile_adjoint(fn, arg_types: list, wrt: list[int], optimize: bool = True,
                    constants: dict | None = None) -> Compiled:
    """`arg_types` and `wrt` index the parameters that are not `constants` (name -> value).
    The generated function is `f_adjoint(*args, f_bar) -> (f(*args), *cotangents)`."""
    return _compile(fn, arg_types, wrt, optimize, constants, adjoint, "adjoint")


def compile_tangent(fn, arg_types: list, wrt: list[int], optimize: bool = True,
                    constants: dict | None = None) -> Compiled:
    """Forward mode: `f_tangent(*args, *tangents of wrt) -> (f(*args), tangent of the result)`."""
    return _compile(fn, arg_types, wrt, optimize, constants, tangent, "tangent")


def compile_unit_tangent(fn, arg_types: list, wrt: list[int], optimize: bool = True,
                         constants: dict | None = None) -> Compiled:
    """Forward mode along a tangent of 1.0 (the derivative with respect to one float: the
    gradient): the tangent is still a parameter, but the code is written for 1.0 (`x_dot * r`
    is `r`)."""
    return _compile(fn, arg_types, wrt, optimize, constants, tangent, "tangent", unit=True)


def compile_derivative(fn, arg_types: list, wrt: list[int], optimize: bool = True,
                       constants: dict | None = None) -> Compiled:
    """Forward mode for the derivative alone: `f_tangent(*args, *tangents) -> (None, tangent)`;
    what only the value needs is not computed (a Hessian-vector product's gradient)."""
    return _compile(fn, arg_types, wrt, optimize, constants, tangent, "tangent", value=False)


def _compile(fn, arg_types, wrt, optimize, constants, transform, suffix, value=True, unit=False) -> Compiled:
    with deep_recursion():   # deep user code: every pass and the emitter recurse with its nesting
        return _compile_deep(fn, arg_types, wrt, optimize, constants, transform, suffix, value, unit)


def _drop_value(entry) -> None:
    """The generated function returns None for the value: the dead-code pass removes what only
    the value needed."""
    (result,) = entry.body.yields
    made = [op for op in entry.body.ops if result in op.results]
    if made and made[0].kind == "tuple":
        made[0].operands[0] = Literal(None)
        result.type = T.TupleType((T.ScalarType("none"), *result.type.elems[1:]))


def _compile_deep(fn, arg_types, wrt, optimize, constants, transform, suffix, value=True, unit=False) -> Compiled:
    module = trace(fn, arg_types, constants)
    files = source_files(module)
    entry = inline_calls(module)
    flat = Module({entry.name: entry}, entry.name)
    flat.reads = getattr(module, "reads", ())   # what makes the code stale (tracer/records.py: Reads)
    _verify(flat, "inlining")
    for i in wrt:
        t = entry.params[i].type
        if not carries_derivative(t):
            name = entry.params[i].name
            raise NotDifferentiableError(
                f"{entry.source}: cannot differentiate `{entry.name}` with respect to `{name}`: it is {t.text()}, "
                "not a floating-point value; pass floats (e.g. np.asarray(x, float)) or leave it out of wrt")
    output_type = entry.body.yields[0].type if hasattr(entry.body.yields[0], "type") else T.UNKNOWN
    names = ", ".join(entry.params[i].name for i in wrt)
    if optimize:   # differentiate the simplest program: items of tuples read directly, no dead code
        _stage(lambda: run_optimizer(entry), "optimizing")
        hold_shifts(entry)   # no derivative through the max a stable softmax subtracts (codegen/idioms.py)
        _verify(flat, "optimizing")
        _stage(lambda: hoist_invariants(entry) and run_optimizer(entry), "hoisting loop invariants")
        _verify(flat, "hoisting loop invariants")
    refuse_output(fn, entry.body.yields[0])   # after optimizing: a branch on a shape is folded
    shared = transform(entry, wrt, files)   # values that may share another's Python variable
    _verify(flat, "reverse mode" if suffix == "adjoint" else "forward mode")
    if not value:
        _drop_value(entry)
    if unit:
        for seed in entry.params[len(entry.params) - len(wrt):]:
            substitute(entry.body, seed, Literal(1.0))
    if optimize:
        _stage(lambda: run_optimizer(entry), "optimizing the derivative")
        _verify(flat, "optimizing the derivative")
        if batch_products(entry):   # per-step products summed in a loop: one product after it
            _verify(flat, "batching products")   # (dead code only: the arrays it fills stay distinct)
            _stage(lambda: run_optimizer(entry, [eliminate_dead_code]), "batching products")
    if suffix == "adjoint":
        writable_results(entry)
    name = python_identifier(entry.name) + "_" + suffix
    doc = f"Adjoint of {entry.name}: returns (value, gradient w.r.t. {names})." if suffix == "adjoint" else \
        f"Tangent of {entry.name}: returns (value, derivative along the tangents of {names})."
    source, compiled = emit_function(entry, name, files, doc, shared)
    return Compiled(source, compiled, flat, output_type or T.UNKNOWN)


def verify_after(module: Module, after: str) -> None:
    """Verify the graph a stage (named `after`) left; an invalid one is reported as wengert's bug."""
    _stage(lambda: verify(module), after)


_verify = verify_after


def _stage(run, name: str) -> None:
    """Run a stage; an invalid graph it leaves is wengert's bug, and is reported as one."""
    try:
        run()
    except IRVerificationError as exc:
        raise IRVerificationError(f"internal error in wengert after {name}: {exc} (the graph a pass produced "
                                  "is invalid; this is a bug in wengert, not in your code: please report it "
                                  "with the function)") from None
