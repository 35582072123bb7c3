"""The README's promises that can be checked mechanically."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PLUGINS = (ROOT / "docs" / "plugins.md").read_text()


def test_ci_runs_the_readme_test_command_verbatim():
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert len(commands) >= 2
    test_command = next(c for c in commands if "pytest" in c)
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_the_plugin_example_in_the_docs_is_the_tested_one():
    shown = re.findall(r"`([\w/]+\.py)`:\n\n```python\n(.*?)```\n", PLUGINS, re.S)
    assert len(shown) == 4
    for path, text in shown:
        assert (ROOT / "tests" / "plugin_example" / path).read_text() == text, path


def _ignored(name: str) -> bool:
    """Whether the repository's .gitignore (plain name patterns, no negation) ignores ``name``."""
    from fnmatch import fnmatchcase
    patterns = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    return any(fnmatchcase(name, p) for p in patterns if p and not p.startswith("#") and "/" not in p)


def test_the_quick_start_files_are_not_committed_by_git_add_all():
    # the quick start's store and what the hall writes beside it: the admin password above all
    for name in ("gamehall.sqlite", "gamehall.sqlite.admin", "gamehall.sqlite-wal",
                 "gamehall.sqlite-shm", "gamehall.sqlite-journal", "twistd.log", "twistd.pid"):
        assert _ignored(name), name
