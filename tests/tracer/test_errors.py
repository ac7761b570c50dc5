"""Every construct the tracer rejects gets a pointed error: it names the construct, gives
`file:line:col` (1-based column of the offending node), the source line, a caret line under
exactly the node (to the end of the line for a node spanning several lines), and, where there is
one, a hint saying what to write instead. No internal exception or traceback reaches the user."""
import dataclasses
import itertools
import math
import sys
import textwrap

import numpy as np
import pytest

import wengert
from wengert.tracer.interpret import run

_FILES = itertools.count()
# Exception class names that would betray an internal failure; they may appear in a message only
# when the user's own source names them (`raise ValueError(...)`).
INTERNAL = ("Traceback", "KeyError", "AttributeError", "TypeError", "ValueError", "IndexError", "NameError",
            "AssertionError", "RuntimeError", "RecursionError", "StopIteration", "Static(", "LocalFunction",
            "gast.", " object at 0x")


def load(source: str, name: str = "f"):
    """Define the functions of `source` as if from a file of their own: (`name`, filename, source)."""
    filename = f"/wengert-tests/errors/case_{next(_FILES)}.py"
    source = textwrap.dedent(source)
    wengert.register_source(filename, source)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], filename, source


def trace_error(fn, *args) -> wengert.WengertError:
    with pytest.raises(wengert.WengertError) as info:
        wengert.ir(fn, *args)
    return info.value


def assert_clean(err: Exception, source: str = "") -> None:
    text = str(err)
    assert isinstance(err, wengert.WengertError)
    for name in INTERNAL:
        assert name not in text or name in source, (name, text)


def assert_points_at(err: wengert.TraceError, filename: str, source: str, at: str, on: str | None = None) -> None:
    """`err` points at the first `at` on the first line of `source` containing `on` (default `at`)."""
    lines = source.splitlines()
    lineno = next(i for i, line in enumerate(lines, 1) if (on or at) in line)
    text = lines[lineno - 1]
    col = text.index(at)
    indent = len(text) - len(text.lstrip())
    assert err.location == f"{filename}:{lineno}:{col + 1}", str(err)
    assert err.source_line == text.strip()
    assert err.caret == " " * (col - indent) + "^" * len(at), "\n" + str(err)
    assert str(err).splitlines() == [f"{err.location}: {err.message}", f"    {err.source_line}",
                                     f"    {err.caret}", *([err.hint] if err.hint else [])]


@dataclasses.dataclass
class Rejection:
    id: str
    source: str           # defines `f` (and whatever it calls)
    at: str               # the text the caret must underline
    message: str          # part of the message that names the construct
    hint: str | None      # part of the hint; "" when any non-empty hint will do; None: no hint expected
    on: str | None = None  # a text identifying the line, when `at` alone does not
    args: tuple = ()      # example arguments for a typed trace (untyped first)
    cls: type = wengert.UnsupportedSyntaxError


REJECTIONS = [
    Rejection("try_except", """
        def f(x):
            try:
                y = np.sin(x)
            except ValueError:
                y = x
            return y
        """, "try:", "`try` statement", "`if`"),
    Rejection("try_finally", """
        def f(x):
            try:
                y = np.sin(x)
            finally:
                print("done")
            return y
        """, "try:", "`try` statement", "outside the differentiated function"),
    Rejection("with", """
        def f(x):
            with np.errstate(all="ignore"):
                y = np.log(x)
            return y
        """, 'with np.errstate(all="ignore"):', "`with` statement", "outside the differentiated function"),
    Rejection("yield", """
        def f(x):
            for v in x:
                yield v * 2.0
        """, "yield v * 2.0", "`yield`", "return a list"),
    Rejection("yield_from", """
        def f(x):
            yield from x
        """, "yield from x", "`yield from`", "return a list"),
    Rejection("async_def", """
        async def f(x):
            return x * 2.0
        """, "async def f(x):", "unsupported syntax: `async def`", "synchronous"),
    Rejection("await", """
        async def f(x):
            y = await x
            return y
        """, "async def f(x):", "unsupported syntax: `async def`", "synchronous"),
    Rejection("nested_async_def", """
        def f(x):
            async def g(y):
                return y
            return x
        """, "async def g(y):", "`async def` inside a function", "plain function"),
    Rejection("class", """
        def f(x):
            class Box:
                value = 1.0
            return x
        """, "class Box:", "`class` definition inside a function", "module level"),
    Rejection("import", """
        def f(x):
            import math
            return math.exp(x)
        """, "import math", "`import` inside a function", "top of the module"),
    Rejection("from_import", """
        def f(x):
            from math import exp
            return exp(x)
        """, "from math import exp", "`from ... import` inside a function", "top of the module"),
    Rejection("global_write", """
        counter = 0
        def f(x):
            global counter
            counter = 1
            return x
        """, "counter", "assigning to the global variable `counter`", "return the new value", on="counter = 1"),
    Rejection("nonlocal", """
        def f(x):
            y = 1.0
            def g():
                nonlocal y
                y = 2.0
            g()
            return x * y
        """, "nonlocal y", "`nonlocal`", "return the new value"),
    Rejection("del_item", """
        def f(x, i):
            a = [x, x]
            del a[i]
            return a
        """, "a[i]", "`del` of an item", "new container", on="del a[i]"),
    Rejection("del_attribute", """
        def f(x, obj):
            del obj.cache
            return x
        """, "obj.cache", "`del` of an item or attribute", ""),
    Rejection("walrus", """
        def f(x):
            if (n := np.sum(x)) > 0:
                return n
            return x
        """, "n := np.sum(x)", "the walrus operator `:=`", "own line"),
    Rejection("set_literal", """
        def f(x):
            s = {x, 1.0}
            return x
        """, "{x, 1.0}", "a set literal", "tuple or a list"),
    Rejection("set_comprehension", """
        def f(x):
            s = {v for v in x}
            return x
        """, "{v for v in x}", "a set comprehension", "list comprehension"),
    Rejection("match", """
        def f(x, n):
            match n:
                case 1:
                    return x
            return x
        """, "match n:", "`match` statement", "`if`/`elif`"),
    Rejection("decorated_nested_function", """
        def f(x):
            @staticmethod
            def g(y):
                return y
            return g(x)
        """, "staticmethod", "a decorator on a nested function", "module level"),
    Rejection("bare_raise", """
        def f(x):
            if x > 0:
                raise
            return x
        """, "raise", "a bare `raise`", "explicitly"),
    Rejection("raise_computed_message", """
        def f(x):
            if x > 0:
                raise ValueError(f"bad value {x}")
            return x
        """, 'ValueError(f"bad value {x}")', "`raise` of an exception built from traced values",
              "constant message"),
    Rejection("star_unpacking_in_call", """
        def f(x, xs):
            return np.add(*xs)
        """, "*xs", "`*` unpacking of a sequence whose length is not known", "pass the items explicitly",
              args=(np.ones(3), (np.ones(3), np.ones(3)))),
    Rejection("star_unpacking_in_list", """
        def f(x, xs):
            return [*xs, x]
        """, "*xs", "`*` unpacking of a sequence whose length is not known", ""),
    Rejection("kwargs_unpacking_in_call", """
        def f(x, options):
            return np.sum(x, **options)
        """, "**options", "`**` unpacking of a dict whose keys are not known while tracing",
        "pass the keywords explicitly"),
    Rejection("attribute_assignment", """
        def f(x, obj):
            obj.x = 1
            return x
        """, "obj.x", "assigning to the attribute `.x`", "local variable"),
    Rejection("augmented_attribute_assignment", """
        def f(x, obj):
            obj.total += x
            return x
        """, "obj.total", "augmented assignment to an attribute", "local variable"),
    Rejection("computed_callee", """
        def f(x):
            fs = [np.sin, np.cos]
            return fs[0](x)
        """, "fs[0]", "calling a computed value", "by its name"),
    Rejection("returned_closure", """
        def make_scaler(a):
            def scale(v):
                return a * v
            return scale

        def f(x):
            return make_scaler(2.0)(x)
        """, "scale", "the nested function `scale` used as a value", "call it where it is defined",
              on="return scale"),
    Rejection("returned_lambda", """
        def f(x):
            return lambda v: v * x
        """, "lambda v: v * x", "a lambda used as a value", "call it where it is defined"),
    Rejection("lambda_reading_locals_passed_on", """
        def apply(g, v):
            return g(v)

        def f(x):
            a = x * 2.0
            return apply(lambda v: v * a, x)
        """, "lambda v: v * a", "passing a lambda, which reads the local variable `a`, to `apply`",
              "pass those values as arguments"),
    Rejection("nested_function_reading_locals_passed_on", """
        def apply(g, v):
            return g(v)

        def f(x):
            a = x * 2.0
            def scaled(v):
                return v * a
            return apply(scaled, x)
        """, "scaled", "passing the nested function `scaled`, which reads the local variable `a`",
              "", on="return apply"),
    Rejection("varargs_lambda", """
        def f(x):
            g = lambda *a: a
            return g(x)
        """, "lambda *a: a", "`*args`, `**kwargs` or keyword-only parameters in a nested function",
              "positional parameters"),
    Rejection("unknown_method", """
        def f(x):
            return x.frobnicate()
        """, "x.frobnicate", "the method `.frobnicate()` of a traced value", "the NumPy function"),
    Rejection("unknown_attribute", """
        def f(x):
            return x.frob
        """, "x.frob", "the attribute `.frob` of a traced value", "shape"),
    Rejection("method_as_value", """
        def f(x):
            total = x.sum
            return total()
        """, "x.sum", "the method `.sum` used as a value", "call it"),
    Rejection("mutating_method_on_call_result", """
        def f(x):
            list(x).append(1.0)
            return x
        """, "list(x).append", "`.append()` on a call result", "variable first"),
    Rejection("unsupported_argument", """
        def f(x, y):
            return np.sum(x, out=y)
        """, "out=y", "the argument `out` of `np.sum`", "np.sum(x, axis=None, keepdims=False)",
              args=(np.ones(3), np.ones(3))),
    Rejection("unsupported_method_argument", """
        def f(x, y):
            return x.sum(out=y)
        """, "out=y", "the argument `out` of `.sum`", "x.sum(axis=None", args=(np.ones(3), np.ones(3))),
    Rejection("computed_axis", """
        def f(x, k):
            return np.sum(x, axis=k)
        """, "axis=k", "the `axis` argument of `np.sum` must be known while tracing", "axis=0",
              args=(np.ones(3), 0), cls=wengert.TraceError),
    Rejection("computed_positional_axis", """
        def f(x, k):
            return np.mean(x, k)
        """, "k", "the `axis` argument of `np.mean` must be known while tracing", "constant",
              on="np.mean", args=(np.ones(3), 0), cls=wengert.TraceError),
    Rejection("bad_dtype", """
        def f(x):
            return x + np.zeros(3, dtype="nope")
        """, 'dtype="nope"', "the `dtype` argument of `np.zeros` is not a NumPy dtype", "np.float32",
              cls=wengert.TraceError),
    Rejection("module_as_dtype", """
        def f(x):
            return x.astype(np)
        """, "np", "the `dtype` argument of `.astype` is not a NumPy dtype", "np.float32", on="astype",
              cls=wengert.TraceError),
    Rejection("yield_in_code_tracing_skips", """
        def f(x):
            if False:
                yield x
            return x
        """, "yield x", "`yield`", "return a list"),
    Rejection("global_declared_in_a_block", """
        def f(x):
            if False:
                global counter
            counter = 1
            return x
        """, "counter", "assigning to the global variable `counter`", "return the new value", on="counter = 1"),
    Rejection("frame_builtin", """
        def f(x):
            return locals()
        """, "locals()", "`locals()`, which looks into the running function", "name the values"),
    Rejection("too_many_arguments_for_numpy", """
        def f(x):
            return np.exp(x, x, x, x)
        """, "np.exp(x, x, x, x)", "bad call of `np.exp`", "np.exp(", cls=wengert.TraceError),
    Rejection("too_many_arguments_for_user_function", """
        def g(a):
            return a

        def f(x):
            return g(x, x)
        """, "g(x, x)", "bad call of `g`: too many positional arguments", "g(a)", cls=wengert.TraceError),
    Rejection("unpack_count", """
        def f(x):
            a, b = (x, x, x)
            return a
        """, "a, b", "cannot unpack 3 values into 2 names", None, cls=wengert.TraceError),
    Rejection("undefined_name", """
        def f(x):
            return x + undefined_thing
        """, "undefined_thing", "name `undefined_thing` is not defined", None, cls=wengert.TraceError),
    Rejection("read_before_assignment", """
        def f(x):
            y = z + x
            z = 1.0
            return y
        """, "z", "local variable `z` is read before it is assigned", None, on="y = z + x",
              cls=wengert.TraceError),
    Rejection("global_shadowed_by_local", """
        scale = 2.0
        def f(x):
            x = x * scale
            scale = 3.0
            return x
        """, "scale", "local variable `scale` is read before it is assigned", "another name",
              on="x = x * scale", cls=wengert.TraceError),
    Rejection("global_list_changed_in_place", """
        seen = []
        def f(x):
            seen.append(x)
            return x
        """, "seen", "local variable `seen` is read before it is assigned", "copy it",
              on="seen.append(x)", cls=wengert.TraceError),
    Rejection("function_reassigned_in_loop", """
        def f(x):
            g = np.sin
            for i in range(3):
                g = np.cos
            return g(x)
        """, "for i in range(3):", "`g` refers to a function or module before this loop", "another name",
              cls=wengert.TraceError),
    Rejection("non_ascii_before_the_node", """
        def f(x):
            α = "é" + undefined_thing
            return x
        """, "undefined_thing", "name `undefined_thing` is not defined", None, cls=wengert.TraceError),
    Rejection("deeper_in_a_callee", """
        def helper(v):
            with np.errstate(all="ignore"):
                return np.log(v)

        def f(x):
            return helper(x) * 2.0
        """, 'with np.errstate(all="ignore"):', "`with` statement", ""),
]
if sys.version_info >= (3, 11):  # syntax that Python 3.10 does not parse
    REJECTIONS.append(Rejection("star_in_index", """
        def f(x, idx):
            return x[*idx]
        """, "*idx", "`*` in an index", "x[i, j]"))
    REJECTIONS.append(Rejection("try_star", """
        def f(x):
            try:
                y = x
            except* ValueError:
                y = x
            return y
        """, "try:", "`try ... except*` statement", "outside the differentiated function"))


@pytest.mark.parametrize("case", REJECTIONS, ids=lambda c: c.id)
def test_rejection_points_at_the_construct(case):
    fn, filename, source = load(case.source)
    err = trace_error(fn)
    assert type(err) is case.cls, f"{type(err).__name__}: {err}"
    if case.cls is wengert.UnsupportedSyntaxError:
        assert err.message.startswith("unsupported syntax: ")
    assert case.message in err.message
    if case.hint is None:
        assert err.hint == ""
    else:
        assert err.hint and case.hint in err.hint
    assert_points_at(err, filename, source, case.at, case.on)
    assert_clean(err, source)
    if case.args:  # with example arguments the same rejection comes out
        assert str(trace_error(fn, *case.args)) == str(err)


# ---------------------------------------------------------------------------------------------
# Rejections that have no source position to point at
# ---------------------------------------------------------------------------------------------

class Model:
    def loss(self, x):
        return np.sum(x)


def test_bound_method_is_traced_with_its_object():
    # the object is a constant of the graph (see tests/tracer/test_entry_callables.py)
    graph = str(wengert.ir(Model().loss, np.ones(3)))
    assert "sum" in graph


@pytest.mark.parametrize("builtin", [np.frexp, divmod, math.gamma, Model], ids=["ufunc", "divmod", "math", "class"])
def test_not_a_python_function(builtin):
    err = trace_error(builtin)
    assert type(err) is wengert.SourceNotFoundError
    assert err.message.startswith(f"cannot read the source of {builtin!r}: ")
    assert "not a Python function" in err.message or "is a class" in err.message
    assert err.hint and err.location == ""
    assert str(err) == f"{err.message}\n{err.hint}"
    assert_clean(err)


def test_not_callable():
    err = trace_error(3)
    assert type(err) is wengert.TraceError and err.message == "expected a Python function, got int 3"
    assert_clean(err)


@pytest.mark.parametrize("source, name", [("def h(x):\n    return x * 2.0\n", "h"), ("h = lambda x: x * 2.0\n", "h")],
                         ids=["def", "lambda"])
def test_exec_without_registered_source(source, name):
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    err = trace_error(namespace[name])
    assert type(err) is wengert.SourceNotFoundError
    qualname = namespace[name].__qualname__
    assert err.message == (f"cannot read the source of `{qualname}`: `{qualname}` was defined in <generated>, "
                           "which keeps no source")
    assert "wengert.register_source(filename, source)" in err.hint
    assert_clean(err)


def test_bad_example_arguments():
    fn, _, _ = load("def f(x, y):\n    return x + y\n")
    err = trace_error(fn, np.ones(3))
    assert type(err) is wengert.WengertError and "cannot take these arguments" in str(err)
    assert_clean(err)


# ---------------------------------------------------------------------------------------------
# What the rejections send users to does work
# ---------------------------------------------------------------------------------------------

def test_registered_source_traces():
    fn, filename, _ = load("def f(x):\n    return np.sin(x) * 2.0\n")
    module = wengert.ir(fn, np.ones(3))
    assert module.main.source == f"{filename}:1"
    np.testing.assert_allclose(run(module, np.ones(3)), np.sin(np.ones(3)) * 2.0)


def test_lambda_traces():
    scale = lambda x: x * 2.0  # noqa: E731
    assert str(wengert.ir(scale)).startswith("def @test_lambda_traces.<lambda>(%x):")


def test_lambdas_on_one_line_are_told_apart():
    double, shift = (lambda x: x * 2.0), (lambda x: x + 1.0)
    assert run(wengert.ir(double), 3.0) == 6.0
    assert run(wengert.ir(shift), 3.0) == 4.0


def test_two_raises_keep_their_own_exceptions():
    fn, _, _ = load("""
        def f(x, k):
            if k > 0:
                raise ValueError("positive")
            if k < 0:
                raise ValueError("negative")
            return x
        """)
    module = wengert.ir(fn)
    for k, message in ((1, "positive"), (-1, "negative")):
        with pytest.raises(ValueError, match=message):
            run(module, 1.0, k)


def test_objects_used_as_data_become_globals():
    fn, _, _ = load("""
        def f(x):
            if isinstance(x, float):
                return x
            return x * 2.0
        """)
    module = wengert.ir(fn)
    assert wengert.tracer.ir.structurally_equal(module, wengert.parse_ir(str(module)))
    assert run(module, 3.0) == 3.0 and run(module, 3) == 6.0
