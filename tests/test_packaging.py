"""Every package of the project is listed in pyproject.toml: setuptools installs only the
listed ones, so a package left out is missing from a plain ``pip install .``."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_with_an_init_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for top in ROOT.glob("gamehall*") if top.is_dir()
             for init in top.rglob("__init__.py")}
    assert found - listed == set()
