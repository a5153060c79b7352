"""XLA's HLO text in Python: parse and print modules, check them, explain tiled layouts and
assign TPU layouts, with exactly the results of the ``hlo-layout`` command.

>>> import jax, jax.numpy as jnp, hlo_layout
>>> text = jax.jit(lambda x: jnp.tanh(x) @ x.T).lower(jnp.ones((512, 3))).as_text(dialect="hlo")
>>> assigned, report = hlo_layout.assign(hlo_layout.parse(text))
>>> print(assigned)                  # the module with TPU layouts, as `hlo-layout assign` prints it
>>> report["cost"]["padded_bytes"]   # as `hlo-layout assign --report --format json` gives it
"""

from ._native import (
    TARGETS,
    HloError,
    Module,
    assign,
    check,
    explain,
    parse,
    run_passes,
)

__all__ = [
    "TARGETS",
    "HloError",
    "Module",
    "assign",
    "check",
    "explain",
    "parse",
    "run_passes",
]
