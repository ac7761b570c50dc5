"""Programs over linear algebra: matmul and its spellings (mm, bmm, mv, dot, vdot, inner, outer,
einsum, tensordot, kron, addmm, baddbmm, cross) and torch.linalg (norms, det, slogdet, inv, solve,
cholesky, qr, eigh, svd, pinv, matrix_power, multi_dot), each with its gradient, grad_fn name and the
errors of mismatched shapes and dtypes. Inputs are well conditioned, with distinct eigen/singular values."""
from tests.runtime.torch_programs.tables import lambdas

_A = "[[2.0, 1.0, 0.5], [1.0, 3.0, -0.5], [0.5, -0.5, 4.0]]"

_PROGRAM = '''
a = torch.tensor({a}, dtype=torch.float64, requires_grad=True)
b = torch.tensor([[1.0, -2.0], [0.5, 1.5], [-1.0, 0.25]], dtype=torch.float64, requires_grad=True)
v = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
for f in [{calls}]:
    out = attempt(lambda: f())
    try:
        got = f()
    except Exception:
        continue
    parts = [p for p in (got if isinstance(got, tuple) else (got,)) if p.is_floating_point()]
    if not parts:
        continue
    for p in parts:
        print(type(p.grad_fn).__name__, p.shape)
    total = sum((p * torch.linspace(0.5, 1.5, p.numel(), dtype=p.dtype).reshape(p.shape)).sum() for p in parts)
    grads = torch.autograd.grad(total, [a, b, v], allow_unused=True)
    print(*[None if g is None else g.round(decimals=6) for g in grads], sep="\\n")
for f in [{errors}]:
    attempt(f)
'''

_FAMILIES = {
    "matmul": ("a @ b, a.matmul(v), v @ a, v @ v, torch.matmul(a.expand(2, 3, 3), b), b.T @ a @ b, a @ a.expand(2, "
               "3, 3)",
               "a @ b.T, b @ v, a @ torch.ones(3, dtype=torch.float32), torch.ones(()) @ a"),
    "mm": ("a.mm(b), torch.mm(b.T, a), a.mm(a)", "a.mm(v), a.mm(b.T), torch.mm(a, b.float())"),
    "bmm": ("torch.bmm(a.expand(2, 3, 3), b.expand(2, 3, 2)), a[None].bmm(a[None])",
            "torch.bmm(a, b), torch.bmm(a.expand(2, 3, 3), b.expand(3, 3, 2))"),
    "mv": ("a.mv(v), torch.mv(b.T, v)", "a.mv(b), torch.mv(b, v)"),
    "dot": ("v.dot(v), torch.dot(v, a[0]), torch.vdot(v, a[1]), torch.inner(v, a[2])",
            "v.dot(a), torch.dot(v, v[:2]), torch.dot(v, v.float())"),
    "inner_outer": ("torch.inner(a, b.T), torch.outer(v, b[0]), v.outer(v), torch.ger(v, v), torch.inner(a, v)",
                    "torch.outer(a, v)"),
    "einsum": ("torch.einsum('ij,jk->ik', a, b), torch.einsum('ii', a), torch.einsum('ii->i', a), "
               "torch.einsum('i,i->', v, v), torch.einsum('ij->ji', b), torch.einsum('bij,bjk->bik', a[None], "
               "b[None]), "
               "torch.einsum('...j,j', a, v), torch.einsum('ij,ij->', a, a), torch.einsum(a, [0, 1], b, [1, 2], "
               "[0, 2])",
               "torch.einsum('ij,jk->ik', a, v), torch.einsum('ij->k', a), torch.einsum('ij,jk', a)"),
    "tensordot_kron": ("torch.tensordot(a, b, dims=1), torch.tensordot(a, a, dims=([0, 1], [1, 0])), "
                       "torch.tensordot(a, b, ([0], [0])), torch.kron(a[:2, :2], b)", "torch.tensordot(a, b, dims=2)"),
    "addmm_baddbmm": ("torch.addmm(b, a, b), torch.addmm(b, a, b, beta=0.5, alpha=2), b.addmm(a, b), "
                      "torch.addmv(v, a, v), torch.baddbmm(b[None], a[None], b[None]), torch.addr(a, v, v)",
                      "torch.addmm(a, a, b)"),
    "cross": ("torch.linalg.cross(a, a.flip(0)), torch.cross(v, a[0], dim=0), a.cross(b[:, :1].expand(3, 3), dim=0)",
              "torch.linalg.cross(b, b), torch.linalg.cross(a, a, dim=3)"),
    "norms": ("torch.linalg.norm(a), torch.linalg.norm(v, 1), torch.linalg.norm(a, 'fro'), torch.linalg.norm(a, "
              "'nuc'), "
              "torch.linalg.norm(a, 2), torch.linalg.norm(a, -2), torch.linalg.norm(a, float('inf')), "
              "torch.linalg.vector_norm(a, 3), torch.linalg.vector_norm(a, dim=0), torch.linalg.matrix_norm(a), "
              "torch.linalg.matrix_norm(a, 1), torch.linalg.vector_norm(b, float('-inf'), dim=1, keepdim=True), "
              "torch.linalg.vector_norm(v, 0)", "torch.linalg.matrix_norm(v), torch.linalg.norm(a, 3)"),
    "det_slogdet": ("torch.linalg.det(a), a.det(), torch.det(a), torch.linalg.slogdet(a), a.slogdet(), a.logdet()",
                    "torch.linalg.det(b), torch.linalg.det(v)"),
    "inv_solve": ("torch.linalg.inv(a), a.inverse(), torch.linalg.solve(a, b), torch.linalg.solve(a, v), "
                  "torch.linalg.pinv(b), torch.linalg.matrix_power(a, 3), torch.linalg.matrix_power(a, -2), "
                  "torch.linalg.matrix_power(a, 0), torch.linalg.multi_dot([a, a, b])",
                  "torch.linalg.inv(b), torch.linalg.solve(a, b.T), torch.linalg.inv(torch.zeros(2, 2))"),
    "decompositions": ("torch.linalg.cholesky(a), torch.linalg.eigh(a), torch.linalg.eigvalsh(a), "
                       "torch.linalg.svdvals(b), torch.linalg.qr(b), torch.linalg.cholesky(a, upper=True)",
                       "torch.linalg.cholesky(-a), torch.linalg.cholesky(b), torch.linalg.eigh(b)"),
    "triangular": ("torch.linalg.solve_triangular(a.triu(), b, upper=True), "
                   "torch.linalg.solve_triangular(a.tril(), b, upper=False), torch.linalg.matrix_rank(a), "
                   "torch.cholesky_solve(b, torch.linalg.cholesky(a)), torch.linalg.lstsq(a, b).solution",
                   "torch.linalg.solve_triangular(a, v, upper=True)"),
}

PROGRAMS = {f"linalg_{name}": _PROGRAM.format(a=_A, calls=lambdas(calls), errors=lambdas(errors))
            for name, (calls, errors) in _FAMILIES.items()}
