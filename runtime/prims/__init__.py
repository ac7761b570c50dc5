"""The declarations of every built-in primitive, by group (imported in this order by
`runtime/primitives.py`)."""
