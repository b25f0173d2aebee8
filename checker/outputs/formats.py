"""Every `--output-format`: the report module's own and those built on it (one table for the CLI)."""
from __future__ import annotations

from . import html, report

FORMATS = {**report.FORMATS, "html": lambda res, options: html.render(res)}
