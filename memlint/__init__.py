"""memlint: lint AI-agent memory stores."""
__version__ = "0.1.0"
