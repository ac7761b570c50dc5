"""wengert.runtime: primitives, gradient rules and (later) the eager Tensor.

The bottom layer: it imports none of wengert's other layers.
"""
