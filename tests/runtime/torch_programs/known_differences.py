"""Programs of this package that still print otherwise than PyTorch 2.13, with where each first
differs. The pytest test expects each of these to differ (a strict xfail): a program that comes to
match must leave this table. `python -m tests.runtime.torch_programs` counts them as differing."""

KNOWN = {
    'binary_pow':
        'line 33: torch -> tensor([25, 49,  0]) / wengert ValueError: Integers to negative integer '
        'powers are not allowed.',
    'binary_atan2':
        'line 12: torch tensor([ 0.7854, -2.3562,  0.0000], grad_fn=<Atan2Backward0>) tensor([0., 0'
        '., 0.]) / wengert tensor([ 0.7854, -2.3562,  0.0000], grad_fn=<Atan2Backward0>) tensor([0.'
        ', 0., nan])',
    'binary_arctan2':
        'line 12: torch tensor([ 0.7854, -2.3562,  0.0000], grad_fn=<Atan2Backward0>) tensor([0., 0'
        '., 0.]) / wengert tensor([ 0.7854, -2.3562,  0.0000], grad_fn=<Atan2Backward0>) tensor([0.'
        ', 0., nan])',
    'binary_remainder':
        'line 14: torch tensor([[nan, nan, 0., 0., 0., nan], / wengert tensor([[nan, nan, 0., 0., -'
        '0., nan],',
    'binary_maximum':
        'line 21: torch tensor([[0.5000, 0.5000, 0.0000, 0.0000, 1.0000, 1.0000], / wengert tensor('
        '[[0.5000, 0.5000, 0.0000, 0.0000, 1.0000, 0.0000],',
    'binary_minimum':
        'line 21: torch tensor([[0.5000, 0.5000, 1.0000, 1.0000, 0.0000, 1.0000], / wengert tensor('
        '[[0.5000, 0.5000, 1.0000, 1.0000, 0.0000, 0.0000],',
    'binary_fmax':
        'line 5: torch tensor([[1., 0., 9.]]) tensor([[2.], / wengert tensor([[1., 0., 6.]]) tensor'
        '([[ 2.],',
    'binary_fmin':
        'line 5: torch tensor([[4., 7., 6.]]) tensor([[4.], / wengert tensor([[4., 7., 3.]]) tensor'
        '([[4.],',
    'binary_logaddexp2':
        'line 12: torch tensor([ 3.0000e+00, -1.0602e-08,  1.0000e+00], grad_fn=<Logaddexp2Backward'
        '0>) tensor([1., 1., 1.]) / wengert tensor([3., 0., 1.], grad_fn=<Logaddexp2Backward0>) ten'
        'sor([1., 1., 1.])',
    'binary_copysign':
        'line 24: torch [nan, nan, nan, nan, nan, nan], / wengert [ 1., -1.,  1.,  1., -1.,  1.],',
    'binary_xlogy':
        'line 7: torch -> tensor([[1.0397, 0.0000, 2.0794]]) / wengert -> tensor([[1.0397, 0.0000, '
        '2.0794]], dtype=torch.float64)',
    'binary_floor_divide':
        'line 2: torch [-2.,  1., -1.]], grad_fn=<NotImplemented>) / wengert [-2.,  1., -1.]])',
    'binary_ldexp':
        "line 39: torch -> tensor([[  6., -16.,  48.]]) / wengert AttributeError: 'Tensor' object h"
        "as no attribute 'ldexp_'",
    'binary_operators':
        'line 21: torch RuntimeError: derivative for aten::floor_divide is not implemented / wenger'
        't RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn',
    'compare_maximum_values':
        'line 17: torch -> tensor([0.]) / wengert -> tensor([-0.])',
    'index_errors':
        'line 10: torch warning: UserWarning Using a non-tuple sequence for multidimensional indexi'
        'ng is deprecated and will be change / wengert ValueError: step must be greater than zero',
    'index_setitem':
        'line 4: torch [7., 7., 7.]], grad_fn=<FillBackward3>) FillBackward3 None / wengert [7., 7.'
        ', 7.]], grad_fn=<CopySlices>) CopySlices None',
    'linalg_einsum':
        'line 3: torch [-3.7500, -0.7500]], dtype=torch.float64, grad_fn=<ViewBackward0>) / wengert'
        ' [-3.7500, -0.7500]], dtype=torch.float64, grad_fn=<EinsumBackward0>)',
    'linalg_tensordot_kron':
        'line 45: torch RuntimeError: contracted dimensions need to match, but first has size 3 in '
        'dim -1 and second has size 2 in dim / wengert ValueError: shape-mismatch for sum',
    'linalg_norms':
        'line 20: torch -> tensor(9.0000, dtype=torch.float64, grad_fn=<SumBackward1>) / wengert ->'
        ' tensor(9., dtype=torch.float64, grad_fn=<SumBackward1>)',
    'reduce_nanmean':
        'line 25: torch RuntimeError: nanmean(): expected input to have floating point or complex d'
        'type but got Long / wengert warning: RuntimeWarning Mean of empty slice',
    'reduce_log_softmax':
        'line 30: torch -> tensor([[-4.0493e-01, -4.0493e-01,  8.0986e-01], / wengert -> tensor([[-'
        '0.4049, -0.4049,  0.8099],',
    'reduce_quantile':
        'line 17: torch [ 2.7000]]], grad_fn=<SqueezeBackward4>) / wengert [ 2.7000]]], dtype=torch'
        '.float64, grad_fn=<SqueezeBackward4>)',
    'reduce_nanquantile':
        'line 1: torch tensor(-0.0625, grad_fn=<SqueezeBackward4>) / wengert <the program raised At'
        "tributeError: module 'wengert' has no attribute 'nanquantile'>",
    'reduce_aminmax':
        'line 46: torch RuntimeError: Trying to backward through the graph a second time (or direct'
        'ly access saved tensors after they  / wengert -> tensor([[0.5000, 0.5000, 1.0000],',
    'reduce_var_mean':
        'line 45: torch RuntimeError: Trying to backward through the graph a second time (or direct'
        'ly access saved tensors after they  / wengert -> tensor([[ 0.5000,  0.5000, -0.3000],',
    'reduce_std_mean':
        'line 45: torch RuntimeError: Trying to backward through the graph a second time (or direct'
        'ly access saved tensors after they  / wengert -> tensor([[ 0.3881,  0.3881, -0.1433],',
    'reduce_diff':
        'line 44: torch -> tensor([[-1.,  0.,  1.], / wengert -> tensor([[-1., -0.,  1.],',
    'reduce_renorm':
        'line 12: torch tensor([[-2.6122e+00,  9.8765e-09, -4.0000e-01,  7.1405e+00], / wengert ten'
        'sor([[-2.6122,  0.0000, -0.4000,  7.1405],',
    'reduce_dim_keywords_and_errors':
        'line 6: torch torch.Size([1, 3, 1]) StdBackward0 tensor(1.4901e-08) / wengert torch.Size(['
        '1, 3, 1]) StdBackward0 tensor(0.)',
    'reduce_ties_everywhere':
        'line 40: torch [4., 5., 6.]]) / wengert [5., 5., 5.]])',
    'shape_scatter_reduce':
        "line 1: torch -> tensor([[[ 7.,  2.,  3.,  4.], / wengert AttributeError: 'Tensor' object "
        "has no attribute 'scatter_reduce'",
    'shape_diag_embed':
        'line 95: torch [16., 20., 24.]]]], grad_fn=<DiagEmbedBackward0>) / wengert [16., 20., 24.]'
        ']]], grad_fn=<PermuteBackward0>)',
    'unary_abs':
        'line 7: torch tensor([0., 0., inf, inf, nan], dtype=torch.float64, grad_fn=<AbsBackward0>)'
        ' tensor([ 0.,  0.,  1., -1.,  0.], / wengert tensor([0., 0., inf, inf, nan], dtype=torch.f'
        'loat64, grad_fn=<AbsBackward0>) tensor([ 0.,  0.,  1., -1., nan],',
    'unary_square':
        'line 9: torch -> tensor([1, 0]) / wengert -> tensor([1, 0], dtype=torch.int8)',
    'unary_erfinv':
        'line 7: torch tensor([0., -0., nan, nan, nan], dtype=torch.float64, / wengert tensor([0., '
        '0., nan, nan, nan], dtype=torch.float64, grad_fn=<ErfinvBackward0>) tensor([0.8862, 0.8862'
        ',    nan',
    'unary_lgamma':
        'line 7: torch tensor([inf, inf, inf, inf, nan], dtype=torch.float64, / wengert tensor([inf'
        ', inf, inf, -inf, nan], dtype=torch.float64,',
    'unary_digamma':
        'line 8: torch grad_fn=<DigammaBackward0>) tensor([inf, inf, 0., nan, nan], dtype=torch.flo'
        'at64) / wengert grad_fn=<DigammaBackward0>) tensor([inf, inf, 0., inf, nan], dtype=torch.f'
        'loat64)',
    'unary_logit':
        'line 8: torch grad_fn=<LogitBackward0>) tensor([inf, inf, nan, nan, nan], dtype=torch.floa'
        't64) / wengert grad_fn=<LogitBackward0>) tensor([inf, -inf, nan, nan, nan], dtype=torch.fl'
        'oat64)',
    'unary_absolute':
        'line 7: torch tensor([0., 0., inf, inf, nan], dtype=torch.float64, grad_fn=<AbsBackward0>)'
        ' tensor([ 0.,  0.,  1., -1.,  0.], / wengert tensor([0., 0., inf, inf, nan], dtype=torch.f'
        'loat64, grad_fn=<AbsBackward0>) tensor([ 0.,  0.,  1., -1., nan],',
}
