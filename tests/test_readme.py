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
