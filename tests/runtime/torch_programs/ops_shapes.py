"""Programs over PyTorch's shape operations, one per function or small family: the result, whether
it is a view (`_base`), its grad_fn name, the gradient through it, negative dims, empty tensors and
the errors of misuse (sizes that do not fit, dims out of range). Memory layout (strides, is_contiguous)
is NumPy's and is not compared."""
from tests.runtime.torch_programs.tables import lambdas

_PROGRAM = '''
x = torch.arange(1.0, 25.0).reshape(2, 3, 4).requires_grad_()
for f in [{calls}]:
    out = attempt(lambda: f(x))
    try:
        got = f(x)
    except Exception:
        continue
    for part in (got if isinstance(got, (tuple, list)) else (got,)):
        print(part.shape, type(part.grad_fn).__name__, part._base is x)
        grad, = torch.autograd.grad((part * torch.arange(1.0, part.numel() + 1).reshape(part.shape)).sum(), x,
                                    allow_unused=True)
        print(grad if grad is None else grad.reshape(-1))
for f in [{errors}]:
    attempt(lambda: f(x))
'''

#: family -> (calls, misuses), each a lambda body over x of shape (2, 3, 4)
_FAMILIES = {
    "view": ("x.view(6, 4), x.view(-1), x.view(2, -1, 2), x.view(torch.Size([24])), x.view_as(torch.ones(4, 6))",
             "x.view(5, 5), x.view(-1, -1), x.transpose(0, 1).view(-1), x.view(7, -1), x.view(-2, 12)"),
    "reshape": ("x.reshape(6, 4), x.reshape(-1), x.reshape((4, -1)), x.transpose(0, 2).reshape(-1), x.reshape_as(x[0])",
                "x.reshape(5, 5), x.reshape(-1, -1), x.reshape(0, -1)"),
    "expand": ("x[:, :1].expand(2, 3, 4), x[0, 0].expand(3, 4), x[0].expand(5, 3, 4), x[:1].expand(-1, 3, 4), "
               "x[0, :1].expand_as(x)", "x.expand(3, 4), x.expand(2, 3, 5), x[0].expand(-1, 3, 4), x.expand(3, 3, 4)"),
    "broadcast_to": ("torch.broadcast_to(x[:, :1], (2, 3, 4)), x[0, 0].broadcast_to((2, 4))",
                     "torch.broadcast_to(x, (3, 4))"),
    "permute": ("x.permute(2, 0, 1), x.permute((1, 2, 0)), x.permute(-1, 0, -2), torch.permute(x, (0, 2, 1))",
                "x.permute(0, 1), x.permute(0, 0, 1), x.permute(0, 1, 3)"),
    "transpose": ("x.transpose(0, 1), x.transpose(-1, 0), torch.transpose(x, 1, 2), x.swapaxes(0, 2), "
                  "x.swapdims(1, 2), x.mT, x[0].t(), x[0].T, x[0, 0].t()", "x.transpose(0, 3), x.t()"),
    "squeeze": ("x[:, :1].squeeze(), x[:, :1].squeeze(1), x[:, :1].squeeze(-2), x.squeeze(0), "
                "x[:1, :1].squeeze((0, 1)), torch.squeeze(x[:1])", "x.squeeze(3), x.squeeze(-4)"),
    "unsqueeze": ("x.unsqueeze(0), x.unsqueeze(-1), x.unsqueeze(3), x[0, 0, 0].unsqueeze(0), x[None, :, "
                  "None].squeeze(2)",
                  "x.unsqueeze(4), x.unsqueeze(-5)"),
    "flatten": ("x.flatten(), x.flatten(1), x.flatten(0, 1), x.flatten(-2, -1), torch.flatten(x, 1, 1), x.ravel(), "
                "x[0, 0, 0].flatten()", "x.flatten(2, 1), x.flatten(0, 3)"),
    "unflatten": ("x.unflatten(2, (2, 2)), x.unflatten(-1, (-1, 2)), x.flatten().unflatten(0, (4, 6))",
                  "x.unflatten(2, (3, 2)), x.unflatten(3, (2, 2))"),
    "narrow": ("x.narrow(2, 1, 2), x.narrow(-1, 0, 1), torch.narrow(x, 0, 1, 1), x.narrow(1, 3, 0)",
               "x.narrow(2, 3, 2), x.narrow(3, 0, 1), x.narrow(0, -3, 1)"),
    "select": ("x.select(0, 1), x.select(-1, 2), torch.select(x, 1, -1)", "x.select(0, 2), x.select(3, 0)"),
    "index_select": ("x.index_select(0, torch.tensor([1, 0, 1])), torch.index_select(x, -1, torch.tensor([3, 3]))",
                     "x.index_select(0, torch.tensor([2])), x.index_select(0, torch.tensor([0.0])), "
                     "x.index_select(0, torch.tensor([[0]]))"),
    "gather": ("x.gather(2, torch.tensor([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 1], [2, 2]]])), "
               "torch.gather(x, 0, torch.zeros(1, 3, 4, dtype=torch.int64)), x.gather(1, torch.tensor([[[2]]]))",
               "x.gather(0, torch.tensor([[[2]]])), x.gather(0, torch.tensor([[0]])), "
               "x.gather(0, torch.tensor([[[0.0]]]))"),
    "scatter": ("x.scatter(2, torch.tensor([[[0], [1], [2]]] * 2), torch.zeros(2, 3, 1)), "
                "x.scatter(0, torch.tensor([[[1, 0, 1, 0]]]), -1.0), torch.scatter(x, 2, torch.tensor([[[3]]]), "
                "x[:1, :1, :1] * 2)",
                "x.scatter(0, torch.tensor([[[2]]]), 0.0), x.scatter(0, torch.tensor([[[0.0]]]), 0.0)"),
    "scatter_add": ("x.scatter_add(2, torch.tensor([[[0, 0], [1, 1], [2, 0]]] * 2), x[:, :, :2]), "
                    "torch.scatter_add(x, 0, torch.tensor([[[1, 1, 0, 0]]]), x[:1, :1])",
                    "x.scatter_add(0, torch.tensor([[[5]]]), x)"),
    "scatter_reduce": ("x.scatter_reduce(2, torch.tensor([[[0, 0], [1, 1], [2, 0]]] * 2), x[:, :, :2] * 2, 'sum'), "
                       "x.scatter_reduce(2, torch.tensor([[[0, 0], [1, 1], [2, 0]]] * 2), x[:, :, :2], 'amax')",
                       "x.scatter_reduce(0, torch.tensor([[[0]]]), x, 'median')"),
    "masked_select": ("x.masked_select(x > 12), torch.masked_select(x, torch.tensor([True, False, True, False])), "
                      "x.masked_select(x > 100)", "x.masked_select(torch.tensor([True, False])), "
                      "x.masked_select(x)"),
    "masked_fill": ("x.masked_fill(x > 12, 0.0), x.masked_fill(torch.tensor([True, False, True, False]), -1), "
                    "x.masked_fill(x < 3, torch.tensor(7.0))", "x.masked_fill(x, 0.0), "
                    "x.masked_fill(x > 1, torch.ones(2)), x.masked_fill(torch.tensor([True, False]), 0.0)"),
    "take": ("x.take(torch.tensor([0, 23, 5])), torch.take(x, torch.tensor([[1, -1], [2, 2]]))",
             "x.take(torch.tensor([24])), x.take(torch.tensor([0.0]))"),
    "take_along_dim": ("torch.take_along_dim(x, torch.tensor([[[0], [3], [1]]]), 2), "
                       "torch.take_along_dim(x, x.argmax(1, keepdim=True), dim=1), x.take_along_dim(torch.tensor([5]))",
                       # (an index out of range reads unspecified memory in PyTorch: no such program)
                       ""),
    "repeat": ("x.repeat(1, 2, 1), x.repeat(2, 1, 1, 1), x[0, 0].repeat(3), x.repeat(1, 1, 0)",
               "x.repeat(2, 2), x.repeat(1, -1, 1)"),
    "tile": ("x.tile((1, 2, 1)), x.tile(2,), torch.tile(x[0, 0], (2, 2))", "x.tile((-1,))"),
    "repeat_interleave": ("x.repeat_interleave(2), x.repeat_interleave(2, dim=1), "
                          "x.repeat_interleave(torch.tensor([1, 0, 2]), dim=1), torch.repeat_interleave(x, 3, 0)",
                          "x.repeat_interleave(torch.tensor([1, 2]), dim=1), x.repeat_interleave(-1)"),
    "flip": ("x.flip(0), x.flip(-1), x.flip((0, 2)), torch.flip(x, [1]), torch.fliplr(x), torch.flipud(x)",
             "x.flip(3), x.flip((0, 0))"),
    "roll": ("x.roll(1), x.roll(1, 0), x.roll(-1, -1), x.roll((1, 2), (1, 2)), torch.roll(x, 5, 2)",
             "x.roll(1, 3), x.roll((1, 2), 0)"),
    "rot90": ("x.rot90(), x.rot90(2, (1, 2)), torch.rot90(x, -1, [0, 2])", "x.rot90(1, (0, 0)), x.rot90(1, (0, 3))"),
    "chunk": ("x.chunk(2, 2), x.chunk(3, 2), torch.chunk(x, 5, -1), x.chunk(2, 1)", "x.chunk(0), x.chunk(2, 3)"),
    "split": ("x.split(2, 2), x.split([1, 3], -1), torch.split(x, 2, 1), x.split(5, 0), x.split([1, 1], 0)",
              "x.split([1, 2], 2), x.split(0, 2), x.split(2, 3)"),
    "tensor_split": ("x.tensor_split(3, 2), x.tensor_split([1, 3], -1), torch.tensor_split(x, 2, 1)",
                     "x.tensor_split(0, 2)"),
    "hsplit_vsplit_dsplit": ("x.hsplit(3), torch.vsplit(x, 2), x.dsplit([1, 3]), torch.hsplit(x, [1])",
                             "x.hsplit(2), x.dsplit(3)"),
    "unbind": ("x.unbind(), x.unbind(-1), torch.unbind(x, 1)", "x.unbind(3)"),
    "movedim": ("x.movedim(0, -1), x.movedim((0, 1), (2, 0)), torch.movedim(x, 2, 0), x.moveaxis(1, 0)",
                "x.movedim(0, 3), x.movedim((0, 0), (1, 2))"),
    "diagonal": ("x.diagonal(), x.diagonal(1, 1, 2), x.diagonal(-1, -1, -2), torch.diagonal(x, 0, 0, 2), "
                 "x[0].diag(), x[0].diag(1), x[0, 0].diag(), x[0, 0].diag(-2)",
                 "x.diagonal(0, 1, 1), x.diagonal(0, 0, 3), x.diag()"),
    "diag_embed": ("x.diag_embed(), torch.diag_embed(x[0], 1), torch.diag_embed(x, dim1=0, dim2=2)",
                   "x.diag_embed(0, 1, 1)"),
    "tril_triu": ("x.tril(), x.triu(1), torch.tril(x, -1), x.triu(-5), x[0].tril(2)",
                  "x[0, 0].tril(), x[0, 0].triu()"),
    "contiguous_clone": ("x.contiguous(), x.transpose(0, 1).contiguous(), x.clone(), torch.clone(x.mT)", ""),
    "atleast": ("torch.atleast_1d(x[0, 0, 0]), torch.atleast_2d(x[0, 0]), torch.atleast_3d(x[0]), "
                "torch.atleast_2d(x)", ""),
}



PROGRAMS = {f"shape_{name}": _PROGRAM.format(calls=lambdas(calls, "x"), errors=lambdas(errors, "x"))
            for name, (calls, errors) in _FAMILIES.items()}
