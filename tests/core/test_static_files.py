"""Our scripts and style sheets as production serves them: minified at collectstatic (core/static_files.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from django.core.files.base import ContentFile

from core.static_files import MinifiedStaticFilesStorage, minified

STATIC = Path(__file__).resolve().parents[2] / "static"
OWN_SCRIPTS = sorted(STATIC.glob("js/*.js"))
# A template literal inside another's ${…}: rJSmin reads only unnested ones.
NESTED_TEMPLATE = re.compile(r"`[^`]*\$\{[^`}]*`")


def _node() -> str | None:
    try:
        from playwright._impl._driver import compute_driver_executable

        return compute_driver_executable()[0]  # the Node that ships inside Playwright's package
    except Exception:  # noqa: BLE001 - no Playwright: the check below is skipped
        return None


@pytest.mark.parametrize("script", OWN_SCRIPTS, ids=lambda path: path.name)
def test_a_minified_script_still_parses_and_writes_no_nested_template_literal(script, tmp_path):
    source = script.read_text()
    assert not NESTED_TEMPLATE.search(source), "rJSmin would minify inside the inner literal: concatenate instead"
    small = minified(f"js/{script.name}", source.encode())
    assert len(small) < 0.8 * len(source.encode())
    assert minified(f"js/{script.name}", small) == small  # the hashed copy is minified again: no change
    node = _node()
    if not node or not Path(node).exists():
        pytest.skip("no Node to parse the minified script with")
    (tmp_path / script.name).write_bytes(small)
    checked = subprocess.run([node, "--check", str(tmp_path / script.name)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_style_sheets_are_minified_and_vendored_files_left_as_shipped():
    css = (STATIC / "css" / "lantern.css").read_bytes()
    small = minified("css/lantern.css", css)
    assert len(small) < 0.8 * len(css) and b"/*" not in small and b"--card" in small
    vendored = b"/* htmx */\nvar a = 1;\n"
    assert minified("django_htmx/htmx-2.min.js", vendored) == vendored
    assert minified("admin/js/core.js", vendored) == vendored


def test_collectstatic_saves_our_files_minified(tmp_path):
    storage = MinifiedStaticFilesStorage(location=tmp_path, base_url="/static/")
    storage.save("js/demo.js", ContentFile(b"// why\nconst a = 1;\n\nfunction b() {\n  return `${a} x`;\n}\n"))
    storage.save("admin/js/demo.js", ContentFile(b"// theirs\nvar a = 1;\n"))
    assert (tmp_path / "js" / "demo.js").read_bytes() == b"const a=1;function b(){return`${a} x`;}"
    assert (tmp_path / "admin" / "js" / "demo.js").read_bytes() == b"// theirs\nvar a = 1;\n"
