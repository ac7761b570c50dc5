"""The corpus: varied Python/NumPy functions exercised in every mode (IR, reverse, forward, second order, Tensor bridge)."""  # noqa: E501
import dataclasses
from typing import Callable

# Constructs a corpus function can exercise.  `case(..., tags=...)` rejects any other name.
TAGS = frozenset({
    # straight-line arithmetic and NumPy calls (straight.py)
    "arith",            # + - * / ** on arrays or floats
    "floordiv_mod",     # // and %
    "matmul_op",        # the @ operator
    "unary",            # unary - and +
    "builtin_abs",      # builtins.abs
    "elementwise",      # exp log log1p expm1 sqrt square sin cos tan arcsin ... tanh
    "nonsmooth",        # maximum minimum where clip sign floor ceil np.abs relu
    "reduction",        # sum mean prod max min var std
    "axis",             # a reduction or op with an axis= argument
    "keepdims",         # keepdims=True
    "argmax",           # argmax/argmin used as an index
    "linalg",           # dot matmul outer einsum linalg.norm trace solve
    "einsum",           # np.einsum
    "shape_ops",        # transpose swapaxes reshape expand_dims squeeze concatenate stack ...
    "broadcasting",     # row + column, scalar + array
    "array_creation",   # zeros_like ones_like zeros ones arange eye
    "array_method",     # x.sum() x.reshape(...) x.dot(y) x.mean(axis=0) x.copy()
    "array_attr",       # x.T x.shape x.ndim x.size
    "math_module",      # math.exp math.sin math.sqrt ... on Python floats
    "builtin_cast",     # float(...) int(...)
    "builtin_len",      # len(...)
    "float_arg",        # a differentiable argument that is a Python float
    # indexing (indexing.py)
    "getitem_int",      # x[2], x[-1]
    "getitem_slice",    # x[1:4], x[::-1], x[::2]
    "getitem_newaxis",  # x[:, None], x[np.newaxis]
    "getitem_ellipsis",  # x[..., 0]
    "getitem_fancy",    # x[index_array]
    "getitem_mask",     # x[boolean_mask]
    "getitem_multi",    # x[i, j], x[:, 0]
    "setitem",          # a[i] = v, a[1:3] = v
    # control flow (control.py)
    "if",               # if/else on a value
    "elif",             # if/elif/else
    "ifexp",            # a if c else b
    "boolop",           # and / or
    "not",              # not
    "compare_chain",    # 0 < a < b
    "is_none",          # x is None / is not None
    "early_return",     # return inside a branch
    "assert",           # assert
    "nested_if",        # if inside if
    # loops (loops.py)
    "for_range",        # for i in range(n)
    "range_step",       # range(a, b, step)
    "for_array",        # for row in X
    "for_list",         # for v in [..]
    "enumerate",
    "zip",
    "while",
    "break",
    "continue",
    "return_in_loop",   # return inside a loop body
    "nested_loop",
    "loop_carried",     # several variables carried across iterations
    "for_else",
    "dynamic_trip",     # trip count depends on float values
    "int_arg",          # a non-differentiable int argument (loop count, index, recursion depth)
    # calls (calls.py)
    "call",             # calling a module-level helper
    "default_args",
    "keyword_args",
    "varargs",          # *args in a def or a call
    "kwonly",           # keyword-only parameters
    "closure",          # a def inside the function using outer variables
    "lambda",
    "recursion",
    "call_in_loop",     # a helper called inside a loop body
    "higher_order",     # a function passed as a value
    # containers (containers.py)
    "tuple",
    "unpack",           # a, b = ...
    "swap",             # a, b = b, a
    "tuple_output",     # returns a tuple
    "list",
    "list_append",
    "listcomp",
    "listcomp_if",
    "genexp",
    "builtin_sum",      # builtins.sum of a list or generator
    "dict",
    "dict_items",
    "augassign",        # += -= *= /= on names
    "augassign_subscript",  # a[i] += v
    # aliasing (aliasing.py)
    "alias",            # another name for an object updated in place
    "setitem_repeated",  # repeated fancy indices or masks in an update (the last write wins)
    "list_pop",         # xs.pop(), xs.pop(i)
    # models (models.py)
    "model",
    "ode",
    "rnn",
    "softmax",
    # meta-learning (meta.py)
    "transform_call",   # a wengert transform called inside the function (wengert.grad(g)(x))
    # misc (misc.py)
    "docstring",
    "print",
    "global_const",     # module-level float / tuple constant
    "global_array",     # module-level NumPy array constant
    "xp_alias",         # numpy under another name, or functions imported from numpy
    "np_constant",      # np.pi, np.e, math.pi, np.newaxis
    "annotations",
    # objects (objects.py)
    "object_arg",       # a dataclass, namedtuple or class instance argument read as `p.W`
    "method",           # a method of an object argument called in traced code
})


@dataclasses.dataclass(frozen=True)
class Case:
    fn: Callable            # the user function (module-level def in a corpus module)
    make_args: Callable     # make_args(rng: np.random.Generator) -> tuple of example arguments
    wrt: tuple              # indices of the arguments that are differentiable (float64 arrays / floats)  # noqa: E501
    tags: frozenset         # constructs it exercises, from TAGS below
    scalar_output: bool     # True when fn returns a scalar (float or 0-d) — most should
    autograd_ok: bool       # True when HIPS autograd (autograd.numpy) can differentiate it as written after swapping numpy for autograd.numpy  # noqa: E501
    second_order: bool      # True when twice differentiable and suitable for Hessian tests (smooth, no abs/max/where kinks near inputs)  # noqa: E501

    @property
    def name(self):
        return self.fn.__name__

    @property
    def module(self):
        """The short name of the corpus module defining the case ("straight", "loops", ...)."""
        return self.fn.__module__.rsplit(".", 1)[-1]

    def __repr__(self):
        return f"<Case {self.module}.{self.name}>"


CASES: list[Case] = []
_BY_NAME: dict = {}


def case(make_args, wrt=(0,), tags=(), scalar_output=True, autograd_ok=True, second_order=True):
    """Decorator registering a corpus function."""
    if not callable(make_args):
        raise TypeError("case(make_args, ...): make_args must be a callable taking an rng")
    if isinstance(tags, str):
        raise TypeError("tags must be a collection of tag names, not a string")
    tags = frozenset(tags)
    unknown = tags - TAGS
    if unknown:
        raise ValueError(f"unknown corpus tags: {sorted(unknown)}")
    wrt = tuple(wrt)
    if not wrt or not all(isinstance(i, int) and i >= 0 for i in wrt):
        raise ValueError(f"wrt must be a non-empty tuple of argument indices, got {wrt!r}")

    def register(fn):
        entry = Case(fn=fn, make_args=make_args, wrt=wrt, tags=tags,
                     scalar_output=bool(scalar_output), autograd_ok=bool(autograd_ok),
                     second_order=bool(second_order))
        previous = _BY_NAME.get(fn.__name__)
        if previous is not None:
            where = (previous.fn.__module__, previous.fn.__qualname__)
            if where != (fn.__module__, fn.__qualname__):
                raise ValueError(f"corpus case {fn.__name__!r} defined twice "
                                 f"({previous.fn.__module__} and {fn.__module__})")
            CASES[CASES.index(previous)] = entry   # a module reload replaces its cases
        else:
            CASES.append(entry)
        _BY_NAME[fn.__name__] = entry
        return fn

    return register


def by_tag(tag):
    """The cases carrying `tag` (a name from TAGS)."""
    if tag not in TAGS:
        raise ValueError(f"unknown corpus tag: {tag!r}")
    return [c for c in CASES if tag in c.tags]


def get(name):
    """The case whose function is called `name`."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no corpus case named {name!r}") from None


from . import straight, indexing, control, loops, calls, containers, models, misc, aliasing, meta, objects  # noqa: E402,F401
