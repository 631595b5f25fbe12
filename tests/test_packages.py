"""Two products, two packages: the model's wheel requires nothing, and nothing shadows a dependency.

The wheel the reader's browser runs (``kvpage/``, its own project ``kvpage/pyproject.toml``) holds
the model (with the labs its book may show) and only it, and its METADATA lists no requirement:
installing it pulls nothing. The generator (the root ``pyproject.toml``, ``sitegen/``) has the
build's requirements and the ``kvpage-book`` command. No module this checkout puts on
``sys.path`` (``build.py``, the two packages, ``tests``, ``bench``) has the name of a module an
installed distribution provides.
"""

from __future__ import annotations

import email.parser
import io
import zipfile
from importlib import metadata

from sitegen.labs.discovery import enabled_labs, other_labs
from tests.conftest import ROOT, Built


def wheel_of(built: Built) -> zipfile.ZipFile:
    (wheel,) = [data for name, data in built.files.items() if name.endswith(".whl")]
    return zipfile.ZipFile(io.BytesIO(wheel))


def test_the_models_wheel_requires_nothing_and_holds_only_the_model(built: Built) -> None:
    with wheel_of(built) as archive:
        names = archive.namelist()
        (meta,) = [name for name in names if name.endswith(".dist-info/METADATA")]
        fields = email.parser.Parser().parsestr(archive.read(meta).decode("utf-8"))
    assert fields["Name"] == "kvpage"
    assert fields.get_all("Requires-Dist") is None
    shipped = {name for name in names if not name.startswith("kvpage-")}
    model = {path.relative_to(ROOT).as_posix() for path in (ROOT / "kvpage").rglob("*.py")}
    # Every module of the model but the labs this book does not enable, and nothing else (no
    # pyproject.toml, no sitegen): tests/sitegen/runtime/test_bundle.py checks which labs a wheel holds.
    assert shipped == model - other_labs(enabled_labs())


def test_the_generator_has_the_command_and_the_builds_requirements() -> None:
    generator = metadata.distribution("kvpage-book")
    assert [entry.value for entry in generator.entry_points if entry.name == "kvpage-book"] == [
        "sitegen.cli.entry:main"
    ]
    required = {requirement.split(">")[0].split("[")[0].lower() for requirement in generator.requires or []}
    assert {"jinja2", "markdown-it-py", "hatchling"} <= required
    assert "kvpage" not in required  # the model comes from this checkout, never from an index


def test_no_module_of_the_checkout_shadows_an_installed_one() -> None:
    ours = {"build", "sitegen", "kvpage", "tests", "bench"}
    assert {path.stem for path in ROOT.glob("*.py")} | {"sitegen", "kvpage", "tests", "bench"} == ours
    provided = metadata.packages_distributions()
    clashes = {name: provided[name] for name in ours if name in provided and provided[name] != ["kvpage-book"]}
    assert clashes == {}, f"installed distributions provide modules named like ours: {clashes}"
