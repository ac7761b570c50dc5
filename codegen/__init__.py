"""wengert.codegen: IR passes and Python emission (reverse and forward mode).

Imports wengert.tracer and wengert.runtime; nothing imports it but the front door.
"""
