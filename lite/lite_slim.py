"""Smaller wheels for the site: jedi without the type stubs of packages the site does not have, plotly without the files
only a JupyterLab server install or pandas would read.

IPython imports jedi (its completer) while the kernel starts, so Pyodide unpacks jedi's wheel into the browser's
memory before the first cell runs: 5,626 files, of which 4,314 are typeshed's stubs of third-party packages
(``jedi/third_party/typeshed/stubs/<distribution>``) and 477 Django's. Unpacking jedi was 2.5 s of the start at
load 8 (bench/README.md). jedi reads a package's stubs only to complete that package's names, so the stubs of the
site's own packages (networkx, Pygments, jsonschema, …) stay and the others go; the standard library's stay.

plotly is unpacked in the kernel's worker while the first lab cells run (``rmqlab.widgets.site_packages`` starts its
load in the background), so its unpacking takes the worker from them: in lab 03's Run All, 1.3–1.9 s in Node's
Pyodide at load 6–8 for 3,057 files, 58.7 MB. Its JupyterLab extension (``plotly/labextension`` and the same files
in ``plotly-<version>.data/data``, 9.7 MB: a server install's; the site brings its own) and the sample data sets
(``plotly/package_data/datasets``: ``plotly.data`` reads them with pandas, which the site does not have) go; the
figure classes, the templates and plotly.js (for ``write_html``) stay.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

STUBS = "jedi/third_party/typeshed/stubs/"
DJANGO = "jedi/third_party/django-stubs/"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def slim_jedi(wheel: Path, keep: set[str], cache: Path) -> Path:
    """``wheel`` (jedi's) without the stubs of distributions not in ``keep`` (canonical names), and without
    Django's; the same bytes for the same input (entries keep their dates), cached in ``cache``."""
    kept = sorted(canonical(name) for name in keep)

    def wanted(name: str) -> bool:
        if name.startswith(DJANGO):
            return False
        if name.startswith(STUBS):
            return canonical(name[len(STUBS) :].split("/")[0]) in kept
        return True

    return _slim(wheel, wanted, "\n".join(kept), cache)


def slim_plotly(wheel: Path, cache: Path) -> Path:
    """``wheel`` (plotly's) without its JupyterLab extension (both copies) and its sample data sets; cached so."""
    version = wheel.name.split("-")[1]
    dropped = ("plotly/labextension/", f"plotly-{version}.data/", "plotly/package_data/datasets/")

    def wanted(name: str) -> bool:
        return not name.startswith(dropped)

    return _slim(wheel, wanted, "\n".join(dropped), cache)


def _slim(wheel: Path, wanted: Callable[[str], bool], rule: str, cache: Path) -> Path:
    """``wheel`` with only the entries ``wanted`` keeps (and its RECORD's lines for them); the same bytes for the same
    input and ``rule`` (entries keep their dates), cached in ``cache``."""
    key = hashlib.sha256(wheel.read_bytes() + rule.encode()).hexdigest()[:16]
    out = cache / key / wheel.name
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as zin, zipfile.ZipFile(out.with_suffix(".part"), "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(line for line in lines if wanted(line.split(",")[0])).encode()
            if wanted(info.filename):
                zout.writestr(info, data)
    out.with_suffix(".part").replace(out)
    return out
