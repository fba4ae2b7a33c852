"""The documentation: the MkDocs site builds strictly, the generated references match the code,
and the README's first screen and links hold.

Oracles: MkDocs' own strict build (broken links and missing pages are errors), the registries and
the CLI parser as they are now, ``.ci/run`` for the test command, and the file system for links.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from anon_core import docs_reference
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.privacy.models import Param

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FIRST_SCREEN = 40


def _mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[dev]'")
    pytest.importorskip(
        "material", reason="mkdocs-material is not installed: pip install -e '.[dev]'"
    )
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(site.parent)},
    )


# ----------------------------------------------------------------------------- the site
def test_the_site_builds_strictly(tmp_path):
    run = _mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "configuration" / "index.html").is_file()


def test_the_strict_build_fails_on_a_broken_link(tmp_path):
    """The build test can fail: the same site with one link to a missing page does not build."""
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "docs", copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    page = copy / "docs" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    run = _mkdocs_build(copy / "mkdocs.yml", tmp_path / "site")
    assert run.returncode != 0
    assert "no-such-page.md" in run.stdout + run.stderr


def test_the_site_needs_no_network():
    """Material's default fonts come from Google Fonts; analytics would call out too."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["name"] == "material"
    assert config["theme"].get("font") is False, "set theme.font: false (no Google Fonts)"
    assert "analytics" not in (config.get("extra") or {})
    assert config.get("strict") is True
    text = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=\"https?://", text)


# ----------------------------------------------------------------------------- generated pages
@pytest.mark.parametrize("page", sorted(docs_reference.generated_pages(), key=str))
def test_generated_pages_match_the_code(page):
    expected = docs_reference.generated_pages()[page]
    path = ROOT / page
    assert path.is_file(), f"{page} is missing: run `{docs_reference.REGENERATE}`"
    assert path.read_text(encoding="utf-8") == expected, (
        f"{page} is out of date with the registries / CLI parser: run "
        f"`{docs_reference.REGENERATE}` and commit the result"
    )


def test_a_new_registry_parameter_changes_the_reference(monkeypatch):
    """What makes the comparison above fail when a registry gains a parameter."""
    before = docs_reference.render_configuration()
    extra = Param("shadow_width", "int", 7, 1, 9, help="a parameter the docs do not have yet")
    monkeypatch.setattr(KAnonymity, "params", (*KAnonymity.params, extra))
    after = docs_reference.render_configuration()
    assert after != before
    assert (
        "| `shadow_width` | int | `7` | 1 ≤ x ≤ 9 | a parameter the docs do not have yet |" in after
    )


def test_the_reference_lists_every_registered_entry():
    from anon_core.attacks import ATTACKS
    from anon_core.methods import METHODS
    from anon_core.privacy.models import MODELS
    from anon_core.quality.metrics import METRICS

    text = (ROOT / docs_reference.CONFIGURATION_PAGE).read_text(encoding="utf-8")
    for prefix, registry in (("model", MODELS), ("method", METHODS), ("attack", ATTACKS)):
        for name in registry:
            assert f"### `{name}` {{#{prefix}-{name}}}" in text, name
    for name in METRICS:
        assert f"| `{name}` |" in text, name
    assert "| `k` | int | **required** (suggested `5`) | x ≥ 1 |" in text  # k-anonymity's k


def test_the_configuration_file_page_names_every_field():
    """The hand-written page names every field the parser accepts (it lists them by hand)."""
    missing = docs_reference.undocumented_config_keys()
    assert not missing, f"{docs_reference.CONFIG_FILE_PAGE} does not describe {missing}"


def test_the_field_check_sees_a_missing_field(tmp_path):
    page = tmp_path / docs_reference.CONFIG_FILE_PAGE
    page.parent.mkdir(parents=True)
    text = (ROOT / docs_reference.CONFIG_FILE_PAGE).read_text(encoding="utf-8")
    page.write_text(text.replace("`engine_options`", "`engine_settings`"), encoding="utf-8")
    assert docs_reference.undocumented_config_keys(tmp_path) == ["engine_options"]


def test_the_cli_reference_has_every_command():
    text = (ROOT / docs_reference.CLI_PAGE).read_text(encoding="utf-8")
    for command in ("anonymize", "risk", "verify", "dp", "scan", "attack", "release", "compare"):
        assert f"\n## anon-core {command}\n" in text
        assert f"usage: anon-core {command} " in text


def test_the_generator_check_mode(tmp_path):
    """`--check` exits 1 on a stale page and 0 once the pages are written."""
    assert docs_reference.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs_reference.main(["--root", str(tmp_path)]) == 0
    assert docs_reference.main(["--check", "--root", str(tmp_path)]) == 0
    (tmp_path / docs_reference.CLI_PAGE).write_text("stale\n", encoding="utf-8")
    assert docs_reference.stale_pages(tmp_path) == [docs_reference.CLI_PAGE]


# ----------------------------------------------------------------------------- the README
def _readme_commands() -> list[str]:
    """The commands of the README's first code block (comments and blank lines left out)."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "the README's first screen has no ```bash block"
    return [
        line.strip()
        for line in block.group(1).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _ci_test_command() -> str:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    runs = [ln.strip() for ln in lines if "-m pytest" in ln and not ln.lstrip().startswith("#")]
    assert len(runs) == 1, f".ci/run should run pytest once, found {runs}"
    return runs[0]


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_first_screen_has_install_run_and_test_commands():
    first = "\n".join(README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])
    commands = _readme_commands()
    assert len(commands) == 2, commands
    install, test = commands
    assert install in first and test in first
    assert "pip install -e" in install and "streamlit run app.py" in install
    assert test == _ci_test_command(), "the README's test command must be the one .ci/run runs"


def test_readme_installs_the_extras_ci_installs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    install = _readme_commands()[0]
    extras = re.compile(r'-e "\.\[([^\]]*)\]"')
    assert extras.search(install) and extras.search(ci)
    assert extras.search(install).group(1) == extras.search(ci).group(1)


def _relative_links(text: str) -> list[str]:
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_every_relative_link_in_the_readme_resolves():
    links = _relative_links(README.read_text(encoding="utf-8"))
    assert links, "the README should link into docs/"
    missing = [t for t in links if not (ROOT / t.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_link_check_sees_a_missing_file():
    links = _relative_links("see [a](docs/nope.md#x), [b](https://example.org) and [c](#top)")
    assert links == ["docs/nope.md#x"]
    assert not (ROOT / "docs/nope.md").exists()
