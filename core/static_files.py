"""Lantern's own scripts and style sheets minified as ``collectstatic`` gathers them (issue 39: a phone's first
sheet within 40 KB). Comments and indentation are half of static/js and static/css; the files in the repository
keep them, production serves them without.

rJSmin and rCSSmin (the minifiers django-compressor uses) only drop comments and whitespace, never rename or
reorder code: nothing to configure, no Node toolchain. rJSmin reads template literals but not nested ones
(`a ${`b`}`), so our scripts write none (tests/core/test_static_files.py holds them to it). Vendored files
(htmx, the admin's, the API docs') are left as their makers shipped them. WhiteNoise then writes each file's
gzip and Brotli copies (Brotli when the ``Brotli`` package is installed: about a tenth smaller than gzip).
"""

from __future__ import annotations

import re

import rcssmin
import rjsmin
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

# static/js and static/css of this repository (their hashed copies too): no app ships files under these folders.
OWN = re.compile(r"^(js/[^/]+\.js|css/[^/]+\.css)$")


def minified(name: str, data: bytes) -> bytes:
    """The file as production serves it: ours minified, anything else as it is."""
    if not OWN.match(name.replace("\\", "/")):
        return data
    text = data.decode()
    return (rjsmin.jsmin(text) if name.endswith(".js") else rcssmin.cssmin(text)).encode()


class MinifiedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage (names by content hash, gzip and Brotli copies) over minified copies of our files."""

    def _save(self, name, content):
        if OWN.match(name.replace("\\", "/")):
            content.seek(0)
            content = ContentFile(minified(name, content.read()))
        return super()._save(name, content)

    def url(self, name, force=False):
        """A file's hashed URL, worked out once per name: the manifest is read once, when the process starts, and
        the base template asks for the same nine on every page (issue 39)."""
        if force:
            return super().url(name, force)
        urls = self.__dict__.setdefault("_lantern_urls", {})
        if name not in urls:
            urls[name] = super().url(name)
        return urls[name]
