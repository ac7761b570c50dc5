"""torch.special on the eager Tensor (`import wengert as torch`: `torch.special.erf(t)`): each function
is the torch function of the same meaning (torch.special.expit is torch.sigmoid). Those of scipy.special's
primitives (erf, gammaln, digamma ...) exist only where SciPy is installed (runtime/prims/special.py)."""
from .runtime.functional import FUNCTIONS as _FUNCTIONS, log_softmax, softmax  # noqa: F401

#: torch.special's name -> the torch function it is
_SAME_AS = {"expit": "sigmoid", "logit": "logit", "erf": "erf", "erfc": "erfc", "gammaln": "lgamma",
            "digamma": "digamma", "psi": "digamma", "polygamma": "polygamma", "xlogy": "xlogy",
            "logsumexp": "logsumexp"}
globals().update({name: _FUNCTIONS[same] for name, same in _SAME_AS.items() if same in _FUNCTIONS})
__all__ = ["softmax", "log_softmax", *(name for name, same in _SAME_AS.items() if same in _FUNCTIONS)]
