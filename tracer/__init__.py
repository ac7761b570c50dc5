"""wengert.tracer: Python function -> IR graph (capture, desugar, lower, print, parse, verify).

Imports wengert.runtime only (to resolve callables to primitives).
"""
