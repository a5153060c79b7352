"""The package gives what the command gives on the same input.

The command is `$HLO_LAYOUT` or `hlo-layout` on PATH, else the checkout's debug build
(`target/debug/hlo-layout`, or `$CARGO_TARGET_DIR/debug/hlo-layout`); the corpus is
`../shared/corpus` beside the checkout. Tests that need either say so when they skip.
"""

import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

import hlo_layout

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def find_command():
    candidates = [os.environ.get("HLO_LAYOUT"), shutil.which("hlo-layout")]
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        candidates.append(str(Path(target) / "debug" / "hlo-layout"))
    candidates.append(str(ROOT / "target" / "debug" / "hlo-layout"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


COMMAND = find_command()
needs_command = pytest.mark.skipif(
    COMMAND is None,
    reason="no hlo-layout command: set HLO_LAYOUT or run `cargo build` first",
)


def run(*args, stdin=None):
    """The command's exit code, stdout and stderr, without colour."""
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run(
        [COMMAND, *args, "--color", "never"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def run_json(*args, stdin=None):
    """The command's JSON document and the object of its one file."""
    _, out, _ = run(*args, "--format", "json", stdin=stdin)
    document = json.loads(out)
    return document, document["files"][0] if "files" in document else None


def corpus_files(*folders, limit=None):
    """The corpus files of `folders` (sorted), or one skipped parameter when it is absent."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CORPUS} is absent"))]
    files = []
    for folder in folders:
        found = sorted((CORPUS / folder).glob("*.hlo"))
        files.extend(found[:limit] if limit else found)
    return [pytest.param(path, id=f"{path.parent.name}/{path.name}") for path in files]


EXAMPLES = [
    pytest.param(path, id=f"examples/{path.name}") for path in sorted((ROOT / "examples").glob("*.hlo"))
]

VALID = EXAMPLES + corpus_files("jax", "tpu-real")
BAD = corpus_files("xla-parser-bad", limit=60)

SMALL = """HloModule small

ENTRY main {
  p = f32[512,3] parameter(0)
  q = f32[3,512]{0,1} parameter(1)
  t = f32[512,3] transpose(q), dimensions={1,0}
  ROOT a = f32[512,3] add(p, t)
}
"""


def read(path):
    return path.read_text(encoding="utf-8")


@needs_command
@pytest.mark.parametrize("path", VALID)
def test_assign_prints_what_the_command_prints(path):
    text = read(path)
    code, out, _ = run("assign", str(path))
    _, json_file = run_json("assign", str(path))
    if code != 0:
        with pytest.raises(hlo_layout.HloError) as error:
            hlo_layout.assign(hlo_layout.parse(text))
        assert error.value.diagnostics == json_file["diagnostics"]
        return
    module = hlo_layout.parse(text)
    before = str(module)
    assigned, report = hlo_layout.assign(module)
    assert str(assigned) == out
    assert report == json_file["report"]
    assert str(module) == before, "assign changed its argument"


@needs_command
@pytest.mark.parametrize("path", corpus_files("jax", limit=8))
def test_assign_auto_and_other_targets(path):
    text = read(path)
    module = hlo_layout.parse(text)
    for target, entry_layouts in [("tpu-v4", "given"), ("tpu-v5e", "auto"), ("cpu", "given")]:
        args = ["assign", str(path), "--target", target, "--entry-layouts", entry_layouts]
        _, out, _ = run(*args)
        _, json_file = run_json(*args)
        assigned, report = hlo_layout.assign(module, target=target, entry_layouts=entry_layouts)
        assert str(assigned) == out
        assert report == json_file["report"]


@needs_command
@pytest.mark.parametrize("path", VALID)
def test_fmt_json_and_stats_agree_with_the_command(path):
    text = read(path)
    _, out, _ = run("fmt", str(path))
    _, fmt_file = run_json("fmt", str(path))
    _, stats_file = run_json("stats", str(path))
    if not stats_file["ok"]:
        with pytest.raises(hlo_layout.HloError) as error:
            hlo_layout.parse(text)
        assert error.value.diagnostics == stats_file["diagnostics"]
        return
    module = hlo_layout.parse(text)
    assert str(module) == out
    assert module.to_json() == fmt_file["modules"][0]
    assert module.stats() == stats_file["stats"]
    # The computations are the JSON view's, with each shape's text and layout.
    view = module.to_json()["computations"]
    computations = module.computations
    assert [c["name"] for c in computations] == [c["name"] for c in view]
    for computation, json_computation in zip(computations, view):
        assert computation["entry"] == json_computation["entry"]
        assert computation["root"] == json_computation["root"]
        assert len(computation["instructions"]) == len(json_computation["instructions"])
        for instruction, json_instruction in zip(
            computation["instructions"], json_computation["instructions"]
        ):
            assert instruction["name"] == json_instruction["name"]
            assert instruction["opcode"] == json_instruction["opcode"]
            assert instruction["shape"] == json_instruction["shape"]["text"]
            assert instruction["layout"] == json_instruction["shape"].get("layout")
            assert instruction["operands"] == json_instruction["operands"]


@needs_command
@pytest.mark.parametrize("path", VALID + BAD)
def test_check_lists_the_command_diagnostics(path):
    _, check_file = run_json("check", str(path))
    assert hlo_layout.check(read(path)) == check_file["diagnostics"]


@needs_command
@pytest.mark.parametrize("path", BAD)
def test_parse_errors_carry_the_command_diagnostics(path):
    text = read(path)
    code, _, stderr = run("stats", "-", stdin=text)
    _, stats_file = run_json("stats", "-", stdin=text)
    if code == 0:
        hlo_layout.parse(text)
        return
    with pytest.raises(hlo_layout.HloError) as error:
        hlo_layout.parse(text)
    assert isinstance(error.value, ValueError)
    assert error.value.diagnostics == stats_file["diagnostics"]
    assert error.value.diagnostics, "an error without diagnostics"
    # The command names standard input `-`; the package names its text `<string>`.
    assert str(error.value) == stderr.replace("[-:", "[<string>:").rstrip()


def test_a_bad_module_raises_hlo_error():
    with pytest.raises(hlo_layout.HloError) as error:
        hlo_layout.parse("HloModule m\n\nENTRY e {\n  p = f32[3 parameter(0)\n}\n")
    (diagnostic,) = error.value.diagnostics
    assert diagnostic["code"] == "hlo::syntax::unexpected_token"
    assert diagnostic["severity"] == "error"
    assert diagnostic["labels"][0]["line"] == 4
    assert set(diagnostic) == {"code", "severity", "message", "help", "labels"}
    assert set(diagnostic["labels"][0]) == {"label", "offset", "length", "line", "column"}
    assert "unexpected `parameter`" in str(error.value)


NON_ASCII = 'HloModule m\n\nENTRY e {\n  ROOT p = f32[8] parameter(0), metadata={op_name="größe"}\n}\n'


def test_text_that_is_not_ascii():
    # The package reads Python's own UTF-8 buffer of the string, as the command reads the file.
    module = hlo_layout.parse(NON_ASCII)
    assert 'op_name="größe"' in str(module)
    assert hlo_layout.parse(str(module)).to_json() == module.to_json()
    bad = NON_ASCII.replace("ROOT p", "ROOT é")
    (diagnostic,) = hlo_layout.check(bad)
    label = diagnostic["labels"][0]
    # Offsets and lengths count UTF-8 bytes, as the command's JSON does.
    assert bad.encode()[label["offset"] : label["offset"] + label["length"]] == "é".encode()
    with pytest.raises(TypeError):
        hlo_layout.parse(NON_ASCII.encode())


EXPLAINED = [
    ("f32[3,5]{1,0:T(2,2)}", [2, 3]),
    ("f32[3,5]{1,0:T(2,2)}", None),
    ("bf16[4,8]{1,0:T(2,4)(2,1)}", [2, 3]),
    ("s8[100,7,33]{0,2,1:T(8,128)(4,1)}", [99, 6, 0]),
    ("f32[2,3]{0,1}", [1, 2]),
    ("f32[]", None),
    ("f32[3,5]{1,0:T(2,2)}", [2, 5]),
    ("f32[3,5]{1,0:T(2,2)}", [2]),
    ("f32[3,?]{1,0}", None),
    ("f32[3,5]{1,0:T(2,2)", None),
    ("(f32[2], s32[])", None),
]


@needs_command
@pytest.mark.parametrize("shape,index", EXPLAINED)
def test_explain_agrees_with_the_command(shape, index):
    args = ["explain", shape]
    if index is not None:
        args.append("--index=" + ",".join(map(str, index)))
    document, _ = run_json(*args)
    if document["ok"]:
        expected = {k: v for k, v in document.items() if k not in ("command", "ok", "version")}
        assert hlo_layout.explain(shape, index) == expected
    else:
        with pytest.raises(hlo_layout.HloError) as error:
            hlo_layout.explain(shape, index)
        assert error.value.diagnostics == document["diagnostics"]


def test_explain_without_the_command():
    explained = hlo_layout.explain("f32[3,5]{1,0:T(2,2)}", index=(2, 3))
    assert explained["linear_index"] == 17
    assert explained["tiled_dims"] == [2, 3, 2, 2]
    assert hlo_layout.explain("f32[3,5]{1,0:T(2,2)}")["linear_index"] is None


PIPELINES = ["dce,simplify-layout-ops", "fixpoint(simplify-layout-ops,dce),verify{layout-sensitive}"]


@needs_command
@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("path", EXAMPLES + corpus_files("jax", limit=10))
def test_run_passes_prints_what_opt_prints(path, pipeline):
    text = read(path)
    code, out, _ = run("opt", str(path), "--passes", pipeline)
    module = hlo_layout.parse(text)
    if code != 0:
        _, opt_file = run_json("opt", str(path), "--passes", pipeline)
        with pytest.raises(hlo_layout.HloError) as error:
            hlo_layout.run_passes(module, pipeline)
        assert error.value.diagnostics == opt_file["diagnostics"]
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert str(hlo_layout.run_passes(module, pipeline)) == out


def test_run_passes_on_assigned_layouts():
    assigned, _ = hlo_layout.assign(hlo_layout.parse(SMALL))
    simplified = hlo_layout.run_passes(assigned, "fixpoint(simplify-layout-ops,dce)")
    assert "transpose" in str(assigned) or "bitcast" in str(assigned)
    assert hlo_layout.check(str(simplified)) == []


def test_a_bad_pipeline_raises_hlo_error():
    with pytest.raises(hlo_layout.HloError) as error:
        hlo_layout.run_passes(hlo_layout.parse(SMALL), "dec")
    assert "dce" in str(error.value)
    assert error.value.diagnostics


def test_bad_arguments_raise_value_error():
    module = hlo_layout.parse(SMALL)
    with pytest.raises(ValueError, match="tpu-v5e"):
        hlo_layout.assign(module, target="tpu-v9")
    with pytest.raises(ValueError, match="given"):
        hlo_layout.assign(module, entry_layouts="sometimes")


def test_assign_of_a_module_that_does_not_verify_raises():
    text = SMALL.replace("ROOT a = f32[512,3] add(p, t)", "ROOT a = f32[512,4] add(p, t)")
    module = hlo_layout.parse(text)
    assert hlo_layout.check(text)
    with pytest.raises(hlo_layout.HloError) as error:
        hlo_layout.assign(module)
    assert error.value.diagnostics == hlo_layout.check(text)


def test_modules_work_from_several_threads():
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        printed = list(pool.map(lambda _: str(hlo_layout.assign(hlo_layout.parse(SMALL))[0]), range(8)))
    assert len(set(printed)) == 1


@needs_command
def test_a_jax_program():
    jax = pytest.importorskip("jax", reason="jax is not installed")
    jnp = pytest.importorskip("jax.numpy")

    def model(w, x):
        h = jnp.tanh(x @ w)
        return jnp.sum(h * h, axis=1), h.T

    w = jnp.ones((64, 3), jnp.float32)
    x = jnp.ones((512, 64), jnp.float32)
    text = jax.jit(model).lower(w, x).as_text(dialect="hlo")
    assert hlo_layout.check(text) == []
    module = hlo_layout.parse(text)
    _, fmt_out, _ = run("fmt", "-", stdin=text)
    assert str(module) == fmt_out
    assigned, report = hlo_layout.assign(module)
    _, out, _ = run("assign", "-", stdin=text)
    _, json_file = run_json("assign", "-", stdin=text)
    assert str(assigned) == out
    assert report == json_file["report"]
    assert hlo_layout.check(str(assigned)) == []
