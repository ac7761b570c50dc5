"""Programs over creation: factories with dtype and requires_grad, *_like and new_* functions,
ranges (arange, linspace, logspace), eye/diag/tri indices, tensors from data, and their errors.
(torch.empty's memory is uninitialised in PyTorch: only its shape and dtype are printed; random
factories draw other streams than PyTorch's: only shapes, dtypes and ranges are printed.)"""

PROGRAMS = {}

PROGRAMS["create_zeros_ones_full"] = '''
for f in [lambda: torch.zeros(2, 3), lambda: torch.ones((2,)), lambda: torch.zeros([]), lambda: torch.ones(0),
          lambda: torch.zeros(2, dtype=torch.int32), lambda: torch.ones(2, dtype=torch.bool),
          lambda: torch.ones(2, requires_grad=True), lambda: torch.full((2,), 7), lambda: torch.full((2,), 7.0),
          lambda: torch.full((2,), True), lambda: torch.full([2, 1], -1.5, dtype=torch.float64),
          lambda: torch.full((), 3.0, requires_grad=True), lambda: torch.zeros(torch.Size([1, 2])),
          lambda: torch.empty(2, 3).shape, lambda: torch.empty(0).dtype, lambda: torch.zeros(2, 3).size(-1)]:
    attempt(f)
attempt(lambda: torch.zeros(-1))
attempt(lambda: torch.ones(2, 3, dtype=torch.int64, requires_grad=True))
attempt(lambda: torch.full((2,), 1, dtype=torch.int64, requires_grad=True))
attempt(lambda: torch.zeros(2.5))
attempt(lambda: torch.zeros("a"))
'''

PROGRAMS["create_like_and_new"] = '''
x = torch.tensor([[1, 2], [3, 4]])
y = torch.tensor([1.5, 2.5], dtype=torch.float64, requires_grad=True)
for f in [lambda: torch.zeros_like(x), lambda: torch.ones_like(y), lambda: torch.full_like(x, 2.7),
          lambda: torch.full_like(y, 2), lambda: torch.zeros_like(x, dtype=torch.float32),
          lambda: torch.ones_like(y, requires_grad=True), lambda: torch.empty_like(y).shape,
          lambda: torch.rand_like(y).dtype, lambda: x.new_zeros(3), lambda: x.new_ones((1,
                    2)), lambda: y.new_full((2,), 3),
          lambda: y.new_tensor([1, 2]), lambda: x.new_tensor([1.5]), lambda: y.new_empty(2).shape,
          lambda: y.new_zeros(2, requires_grad=True), lambda: torch.zeros_like(y).requires_grad]:
    attempt(f)
attempt(lambda: torch.rand_like(x))
'''

PROGRAMS["create_ranges"] = '''
for f in [lambda: torch.arange(5), lambda: torch.arange(1, 4), lambda: torch.arange(0, 1, 0.25),
          lambda: torch.arange(5.0),
          lambda: torch.arange(0, 5, 2, dtype=torch.float64), lambda: torch.arange(3, requires_grad=True,
                    dtype=torch.float32),
          lambda: torch.arange(5, 0, -1), lambda: torch.arange(0), lambda: torch.arange(1, 2.5, 0.5),
          lambda: torch.linspace(0, 1, 5), lambda: torch.linspace(-1, 1, 1), lambda: torch.linspace(0, 10, 0),
          lambda: torch.linspace(0, 1, 3, dtype=torch.float64), lambda: torch.linspace(2, 0, 4, requires_grad=True),
          lambda: torch.logspace(0, 2, 3), lambda: torch.logspace(0, 3, 4,
                    base=2), lambda: torch.arange(torch.tensor(3))]:
    attempt(f)
attempt(lambda: torch.arange(0, 5, 0))
attempt(lambda: torch.arange(5, 0))
attempt(lambda: torch.linspace(0, 1, -1))
'''

PROGRAMS["create_eye_diag_tri"] = '''
for f in [lambda: torch.eye(3), lambda: torch.eye(2, 3), lambda: torch.eye(2, dtype=torch.int64), lambda: torch.eye(0),
          lambda: torch.eye(2, requires_grad=True), lambda: torch.diag(torch.tensor([1.0, 2.0])),
          lambda: torch.diag(torch.tensor([1, 2]), -1), lambda: torch.diagflat(torch.tensor([[1, 2], [3, 4]])),
          lambda: torch.tril_indices(3, 3), lambda: torch.triu_indices(3, 4,
                    1), lambda: torch.block_diag(torch.ones(1, 2), torch.eye(2))]:
    attempt(f)
attempt(lambda: torch.eye(-1))
'''

PROGRAMS["create_tensor_from_data"] = '''
for f in [lambda: torch.tensor([]), lambda: torch.tensor([[]]), lambda: torch.tensor(5), lambda: torch.tensor(5.0),
          lambda: torch.tensor(True), lambda: torch.tensor([1, 2.0]), lambda: torch.tensor([[True], [False]]),
          lambda: torch.tensor([1, 2], dtype=torch.float64), lambda: torch.tensor([1.9, -1.9], dtype=torch.int32),
          lambda: torch.tensor([1.0], requires_grad=True), lambda: torch.tensor(np.array([1.5, 2.5])),
          lambda: torch.tensor(np.array([1, 2], dtype=np.int16)), lambda: torch.tensor(np.float32(2.5)),
          lambda: torch.tensor([np.int64(1), 2]), lambda: torch.tensor(range(3)), lambda: torch.tensor([[1,
                    2]] * 2).shape,
          lambda: torch.as_tensor([1,
                    2]), lambda: torch.as_tensor(np.array([1.0])), lambda: torch.from_numpy(np.zeros(2)),
          lambda: torch.tensor(float("nan")), lambda: torch.tensor([1e40]), lambda: torch.tensor([2 ** 62])]:
    attempt(f)
for bad in [lambda: torch.tensor([[1, 2], [3]]), lambda: torch.tensor("a"), lambda: torch.tensor([1, "a"]),
            lambda: torch.tensor([2 ** 64]), lambda: torch.tensor(None), lambda: torch.tensor({1: 2}),
            lambda: torch.tensor([1.0], dtype=torch.int64, requires_grad=True), lambda: torch.from_numpy([1, 2])]:
    attempt(bad)
'''

PROGRAMS["create_random_shapes"] = '''
torch.manual_seed(0)
for f in [lambda: torch.rand(2, 3), lambda: torch.randn(4, dtype=torch.float64), lambda: torch.randint(0, 5, (3,)),
          lambda: torch.randint(5, (2, 2)), lambda: torch.randperm(4), lambda: torch.rand(2, requires_grad=True),
          lambda: torch.normal(0.0, 1.0, (3,)), lambda: torch.rand(0)]:
    t = f()
    print(t.shape, t.dtype, t.requires_grad, bool(((t >= -10) & (t < 10)).all()))
print(sorted(torch.randperm(5).tolist()), bool((torch.rand(100) < 1).all()), bool((torch.randint(2, 4,
          (50,)) >= 2).all()))
attempt(lambda: torch.randint(5, 2, (3,)))
attempt(lambda: torch.rand(2, 3, dtype=torch.int64))
'''
