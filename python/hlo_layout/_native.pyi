"""Types of ``hlo_layout``: the library as a Python extension (``python/src/lib.rs``)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, TypedDict

TARGETS: List[str]
"""The targets ``assign`` takes: ``tpu-v5e`` (the default), ``tpu-v4``, ``tpu-v3``, ..."""

class Label(TypedDict):
    label: Optional[str]
    offset: int
    length: int
    line: Optional[int]
    column: Optional[int]

class Diagnostic(TypedDict):
    """A diagnostic as ``hlo-layout --format json`` gives it."""

    code: Optional[str]
    severity: str
    message: str
    help: Optional[str]
    labels: List[Label]

class Instruction(TypedDict):
    name: str
    opcode: str
    shape: str
    """The shape's text, layout included: ``f32[8,128]{1,0:T(8,128)}``."""
    layout: Optional[str]
    """The layout's text, ``{1,0:T(8,128)}``; None for tuples and arrays without one."""
    operands: List[str]
    """Operand names, index = operand slot."""
    called: List[str]

class Computation(TypedDict):
    name: str
    entry: bool
    root: Optional[str]
    instructions: List[Instruction]

class Explanation(TypedDict):
    """The keys of ``hlo-layout explain --format json`` but command, ok and version."""

    shape: str
    element_type: str
    dims: List[int]
    minor_to_major: List[int]
    tiles: List[List[Any]]
    """Each tile's sizes; ``"*"`` for a combined dim."""
    physical_dims: List[int]
    tiled_dims: List[int]
    padded_elements: int
    bytes: int
    unpadded_bytes: int
    padding_fraction: float
    linear_index: Optional[int]

class HloError(ValueError):
    """Text that is not valid HLO, or a module a pass cannot handle.

    ``str(error)`` is the rendered diagnostics as ``hlo-layout`` prints them;
    ``error.diagnostics`` the list the command's JSON gives.

    >>> try:
    ...     hlo_layout.parse("HloModule m\\n\\nENTRY e {\\n  ROOT p = f32[3 parameter(0)\\n}\\n")
    ... except hlo_layout.HloError as error:
    ...     error.diagnostics[0]["code"]
    'hlo::syntax::unexpected_token'
    """

    diagnostics: List[Diagnostic]

class Module:
    """A parsed HLO module. ``assign`` and ``run_passes`` return new modules and leave their
    argument as it was.

    >>> m = hlo_layout.parse("HloModule m\\n\\nENTRY e {\\n  ROOT p = f32[8] parameter(0)\\n}\\n")
    >>> m.name
    'm'
    >>> print(m)  # canonical text, as `hlo-layout fmt` prints it
    """

    @property
    def name(self) -> str:
        """The module's name, from its ``HloModule`` line."""
    @property
    def computations(self) -> List[Computation]:
        """The computations in print order, with their instructions.

        >>> import pandas as pd
        >>> pd.DataFrame(m.computations[0]["instructions"])
        """
    def to_json(self) -> Dict[str, Any]:
        """The command's JSON view of the module (an element of ``modules`` in
        ``hlo-layout fmt --format json``): name, entry, computations and text.

        >>> m.to_json()["computations"][0]["instructions"][0]["opcode"]
        'parameter'
        """
    def stats(self) -> Dict[str, Any]:
        """The ``stats`` object of ``hlo-layout stats --format json``: instructions by
        opcode, arrays by element type, logical and padded bytes, worst padding.

        >>> m.stats()["total"]["padding_fraction"]
        0.0
        """
    def __str__(self) -> str:
        """The canonical text, byte for byte what ``hlo-layout fmt`` prints."""

def parse(text: str) -> Module:
    """Parses HLO text into a module, as ``hlo-layout`` reads a file.

    Raises ``HloError`` with every error found.

    >>> m = hlo_layout.parse(jax.jit(f).lower(x).as_text(dialect="hlo"))
    """

def assign(
    module: Module, target: str = "tpu-v5e", entry_layouts: str = "given"
) -> Tuple[Module, Dict[str, Any]]:
    """Assigns layouts for ``target`` as ``hlo-layout assign`` does: the new module, and the
    report of ``hlo-layout assign --report --format json``. ``entry_layouts`` is ``"given"``
    or ``"auto"``. A module that does not verify raises ``HloError``.

    >>> assigned, report = hlo_layout.assign(m, target="tpu-v5e")
    >>> report["copies_inserted"]
    0
    """

def check(text: str) -> List[Diagnostic]:
    """The diagnostics of parsing and verifying ``text``, as ``hlo-layout check --format
    json`` lists them; empty when the module is valid.

    >>> hlo_layout.check(text)
    []
    """

def explain(shape: str, index: Optional[Sequence[int]] = None) -> Explanation:
    """Where the elements of an array shape live under its layout; with ``index``, that
    element's ``linear_index``. Bad input raises ``HloError``.

    >>> hlo_layout.explain("f32[3,5]{1,0:T(2,2)}", index=[2, 3])["linear_index"]
    17
    """

def run_passes(module: Module, passes: str) -> Module:
    """Runs a pipeline of passes as ``hlo-layout opt --passes`` does, verifying after each
    pass that changed the module; a bad pipeline or a failing pass raises ``HloError``.

    >>> hlo_layout.run_passes(m, "fixpoint(simplify-layout-ops,dce)")
    """
