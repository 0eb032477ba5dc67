"""Smaller wheels for the site: jedi without the type stubs of packages the site does not have.

IPython imports jedi (its completer) while the kernel starts, so Pyodide unpacks jedi's wheel into the browser's
memory before the first cell runs: 5,626 files, of which 4,314 are typeshed's stubs of third-party packages
(``jedi/third_party/typeshed/stubs/<distribution>``) and 477 Django's. Unpacking jedi was 2.5 s of the start at
load 8 (bench/README.md). jedi reads a package's stubs only to complete that package's names, so the stubs of the
site's own packages (networkx, Pygments, jsonschema, …) stay and the others go; the standard library's stay.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

STUBS = "jedi/third_party/typeshed/stubs/"
DJANGO = "jedi/third_party/django-stubs/"


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def slim_jedi(wheel: Path, keep: set[str], cache: Path) -> Path:
    """``wheel`` (jedi's) without the stubs of distributions not in ``keep`` (canonical names), and without
    Django's; the same bytes for the same input (entries keep their dates), cached in ``cache``."""
    kept = sorted(canonical(name) for name in keep)
    key = hashlib.sha256(wheel.read_bytes() + "\n".join(kept).encode()).hexdigest()[:16]
    out = cache / key / wheel.name
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)

    def wanted(name: str) -> bool:
        if name.startswith(DJANGO):
            return False
        if name.startswith(STUBS):
            return canonical(name[len(STUBS) :].split("/")[0]) in kept
        return True

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
