"""The exception hierarchy every layer raises from: all of wengert's errors are `WengertError`s."""


class WengertError(Exception):
    """Base class of every error wengert raises on purpose."""
