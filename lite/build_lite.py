"""Build the zero-install classroom: a JupyterLite site whose Python is Pyodide, running in each student's browser.

``python lite/build_lite.py STUDENT_LABS OUT`` (``make lite``: ``build/student-labs`` → ``build/lite``) writes a
static site that needs no server beyond one serving files and no network beyond that server:

- the labs: the student copies (answers blanked), as they are: no install cell, since rmqlab is already there;
  the Chinese labs (``labs/zh``, their student copies in ``STUDENT_LABS/zh``) in the site's ``zh`` folder;
- ``pypi/``: the rmqlab wheel and every wheel the labs and the kernel import (IPython, ipywidgets, anywidget,
  networkx, plotly and its narwhals, …), all pure Python, resolved for Pyodide's Python; the kernel never falls
  back to PyPI;
- ``static/pyodide/``: the Pyodide runtime from the npm package ``pyodide`` (the version the kernel extension
  was built for), so nothing is fetched from a CDN. Every wheel above, the kernel's own included (piplite,
  pyodide-kernel, the ipykernel stub), is either inside the runtime's standard library zip, imported from there
  and never unpacked (``lite_zip``), or beside it in a lock file that lists exactly those, named in the kernel
  settings' ``loadPyodideOptions.packages``: Pyodide loads them while it starts instead of the kernel installing
  IPython and its friends through piplite and a first ``%pip install`` cell installing rmqlab (bench/README.md).
  Every module carries bytecode compiled by this runtime (``lite_bytecode``); plotly, narwhals and nbformat are in
  the lock file but loaded after the start (:data:`DEFERRED`);
- the lab extensions the labs need (the Pyodide kernel, ipywidgets' manager, anywidget, plotly's renderer),
  nothing else from this environment.

Packages Pyodide ships only as wasm builds on its CDN are left out: PyYAML (scenario files in YAML) and
rpds-py (jsonschema ≥ 4.18). rmqlab's metadata asks for the last pure-Python jsonschema under Pyodide, so
JSON scenario files work in the site and YAML ones do not (README: "The zero-install site").

Needs the network of a build machine (PyPI and the npm registry) once; the downloads are cached in
``build/lite-cache``.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "lite") not in sys.path:  # imported as lite.build_lite (the tests): its sibling modules too
    sys.path.insert(0, str(ROOT / "lite"))
from lite_bytecode import SITE_PACKAGES, STDLIB, compiled_archives  # noqa: E402
from lite_slim import slim_jedi, slim_plotly  # noqa: E402
from lite_zip import stdlib_with_packages, zipped  # noqa: E402

LABEXTENSIONS = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
PARKED = Path("share") / "rmqlab-lite" / "labextensions"
"""Where, under the environment's prefix, the site builder keeps the Pyodide kernel's lab extension: out of
JupyterLab's path, where it only fails to load on every page ("Shared module @jupyterlite/services doesn't exist in
shared scope default", even when disabled in page_config) once the ``lite`` extra shares JupyterLab's environment."""
EXTENSIONS = (KERNEL_EXTENSION, "@jupyter-widgets/jupyterlab-manager", "anywidget", "jupyterlab-plotly")
"""Federated extensions the site carries: the kernel, ipywidgets' widget manager, anywidget's renderer, plotly's
renderer of the whole-run charts (``widgets.charts``, shipped inside the plotly wheel)."""
PYODIDE_ABI = "pyemscripten_2026_0_wasm32"
PYODIDE_PYTHON = "3.14"
LAB_PACKAGES = ("ipywidgets", "anywidget", "networkx", "plotly", "nbformat")
"""What the labs import besides rmqlab (the ``lab`` extra minus JupyterLab itself, jupytext and ipykernel), and
nbformat: plotly displays a figure only where nbformat is importable (JupyterLab's server brings it)."""
KERNEL_PACKAGES = ("ipython", "comm", "jedi")
"""What the Pyodide kernel installs at start (``pyodide_kernel`` needs IPython and comm; completion needs jedi)."""
LITE_JSONSCHEMA = "jsonschema==4.17.3"
"""The last jsonschema without rpds-py (its persistent maps come from pure-Python pyrsistent)."""
SHIPPED_WITH_THE_KERNEL = ("widgetsnbextension",)
"""The kernel extension's own index has a stub of it (4.0.999); the real one would only add 2 MB."""
INSTALL_CELL_TAG = "rmqlab-lite-install"
"""The tag of the install cell earlier sites put in front of each lab; one found in a notebook is removed."""
DEFERRED = ("plotly", "narwhals", "nbformat")
"""In the lock file but not loaded while the kernel starts: only the charts need them (plotly: thousands of files
to unpack); ``rmqlab.widgets.site_packages`` loads them in the background from the first ``rmqlab.widgets`` import
on, and an import that needs them waits (a cell's own ``import plotly`` too: the kernel loads what a cell imports
from the lock file's ``imports``)."""
KERNEL_WHEELS = ("piplite", "pyodide_kernel", "ipykernel", "widgetsnbextension-4")
"""The kernel extension's own wheels (its ``static/pypi``) that the kernel imports: preloaded with the others."""


def log(message: str) -> None:
    print(f"[lite] {message}", flush=True)


def park_kernel_extension(prefix: Path = Path(sys.prefix)) -> Path | None:
    """Move the Pyodide kernel's lab extension from JupyterLab's path to :data:`PARKED` (a newer install replaces
    the parked copy); return where it is now, or None if it is not installed. ``make`` runs this after each install
    of the ``lite`` extra (``--park``), and every build does too."""
    installed = prefix / "share" / "jupyter" / "labextensions" / KERNEL_EXTENSION
    parked = prefix / PARKED / KERNEL_EXTENSION
    if installed.is_dir():
        shutil.rmtree(parked, ignore_errors=True)
        parked.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(installed, parked)
        with contextlib.suppress(OSError):  # the empty @jupyterlite folder, unless another extension is in it
            installed.parent.rmdir()
    return parked if parked.is_dir() else None


def kernel_extension() -> Path:
    where = park_kernel_extension()
    if where is None:
        raise SystemExit(f"{KERNEL_EXTENSION} is not installed: pip install -e '.[lite]' (make lite does)")
    return where


def pyodide_version() -> str:
    """The Pyodide release the installed kernel extension loads by default (its settings schema says which)."""
    schema = kernel_extension() / "static" / "schema" / "kernel.v0.schema.json"
    default = json.loads(schema.read_text())["properties"]["pyodideUrl"]["default"]
    match = re.search(r"/pyodide/v([^/]+)/", default)
    if match is None:
        raise SystemExit(f"cannot read the Pyodide version from {schema}: pyodideUrl default is {default!r}")
    return match.group(1)


def run(argv: list[str], **kwargs: Any) -> None:
    log(" ".join(argv))
    started = time.monotonic()
    subprocess.run(argv, check=True, **kwargs)
    log(f"  ({time.monotonic() - started:.1f} s)")


def npm_pyodide(version: str, cache: Path) -> Path:
    """The npm package ``pyodide@version`` unpacked in the cache (``npm pack``: no node_modules, no scripts)."""
    unpacked = cache / f"pyodide-{version}"
    if not (unpacked / "pyodide.mjs").exists():
        cache.mkdir(parents=True, exist_ok=True)
        run(["npm", "pack", "--silent", f"pyodide@{version}", "--pack-destination", str(cache)])
        with tarfile.open(cache / f"pyodide-{version}.tgz") as tar:
            tar.extractall(cache / "npm", filter="data")
        shutil.rmtree(unpacked, ignore_errors=True)
        (cache / "npm" / "package").rename(unpacked)
    return unpacked


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pip_download(requirements: list[str], dest: Path, constraints: Path | None) -> None:
    """Pure-Python wheels for Pyodide's Python (``--platform`` makes pip refuse anything built for Linux), into a
    fresh ``dest``; kept when ``dest`` holds the wheels of the very same request (requirements, constraints, target)
    from an earlier build: the second build of a session, or of a day, asks no index (a test session builds the site
    once; a developer rebuilding it waited about 8 s for pip to resolve the same wheels again)."""
    abi = "cp" + PYODIDE_PYTHON.replace(".", "")
    options = ["--only-binary=:all:", "--platform", PYODIDE_ABI, "--python-version", PYODIDE_PYTHON,
               "--implementation", "cp", "--abi", abi]  # fmt: skip
    pins = constraints.read_text() if constraints is not None else ""
    request = json.dumps({"options": options, "requirements": requirements, "constraints": pins}, indent=1)
    stamp = dest / ".request.json"
    if stamp.is_file() and stamp.read_text() == request and any(dest.glob("*.whl")):
        log(f"{dest}: the wheels of this same request, downloaded by an earlier build")
        return
    shutil.rmtree(dest, ignore_errors=True)
    argv = [sys.executable, "-m", "pip", "download", "--quiet", *options, "--dest", str(dest)]
    if constraints is not None:
        argv += ["-c", str(constraints)]
    run(argv + requirements)
    stamp.write_text(request)


def canonical(name: str) -> str:
    """A distribution name as Pyodide's lock file keys it (PEP 503: lower case, runs of ``-_.`` as ``-``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_entry(wheel: Path) -> dict[str, Any]:
    """A pyodide-lock.json entry for a pure-Python wheel; no ``depends``: its dependencies are preloaded, or
    deferred and loaded on import too. A :data:`DEFERRED` package lists its top-level modules as ``imports``."""
    name, version = wheel.name.split("-")[:2]
    imports = top_level_modules(wheel) if canonical(name) in DEFERRED else []
    return {"name": canonical(name), "version": version, "file_name": wheel.name, "sha256": sha256(wheel),
            "install_dir": "site", "package_type": "package", "imports": imports, "depends": [],
            "unvendored_tests": False}  # fmt: skip


def top_level_modules(wheel: Path) -> list[str]:
    """The importable top-level names of a wheel (its first-level folders and modules)."""
    with zipfile.ZipFile(wheel) as whl:
        tops = {name.split("/")[0].removesuffix(".py") for name in whl.namelist()}
    return sorted(t for t in tops if t.isidentifier())


def pyodide_dist(version: str, cache: Path, wheels: Path, out: Path, preload: list[Path]) -> list[str]:
    """``static/pyodide``: the npm runtime, its standard library's zip with every ``preload`` wheel that imports
    from a zip added (``lite_zip``: nothing of theirs is unpacked at start), micropip and the other wheels beside it,
    and a lock file naming only those; returns the names to load at start (all but :data:`DEFERRED`). The standard
    library and every wheel carry bytecode compiled by this very runtime (``lite_bytecode``: nothing is compiled in
    the browser)."""
    npm = npm_pyodide(version, cache)
    out.mkdir(parents=True)
    for item in npm.iterdir():
        if item.suffix != ".map" and item.name not in {"README.md", "package.json", "console.html", "console-v2.html"}:
            shutil.copy2(item, out / item.name)
    lock = json.loads((npm / "pyodide-lock.json").read_text())
    entry = dict(lock["packages"]["micropip"])
    micropip = next(wheels.glob(f"micropip-{entry['version']}-py3-none-any.whl"))
    in_zip = [w for w in preload if zipped(w) and canonical(w.name.split("-")[0]) not in DEFERRED]
    unpacked = [w for w in preload if w not in in_zip]
    archives = [(npm / "python_stdlib.zip", STDLIB, True), *[(w, STDLIB, True) for w in in_zip],
                *[(w, SITE_PACKAGES, False) for w in [micropip, *unpacked]]]  # fmt: skip
    stdlib, *compiled = compiled_archives(archives, npm, cache / "pyc")
    stdlib_with_packages(stdlib, compiled[: len(in_zip)], out / "python_stdlib.zip")
    micropip, *unpacked = compiled[len(in_zip) :]
    shutil.copy2(micropip, out / micropip.name)
    entry.update(file_name=micropip.name, sha256=sha256(micropip), install_dir="site", depends=[])
    lock["packages"] = {"micropip": entry}
    for wheel in unpacked:
        shutil.copy2(wheel, out / wheel.name)
        lock["packages"][canonical(wheel.name.split("-")[0])] = lock_entry(wheel)
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return sorted(name for name in lock["packages"] if name not in DEFERRED)


def lab_notebooks(student_labs: Path, dest: Path) -> list[str]:
    """The student copies as they are (an install cell of an earlier build removed), with Pyodide's kernel: the
    English labs at the top of the file browser, the Chinese ones (``STUDENT_LABS/zh``, from ``labs/zh``) in its
    ``zh`` folder, each folder with its README. Returns the notebooks' paths in the site (``zh/00_tour.ipynb``)."""
    names = _notebooks(student_labs, dest, ROOT / "labs")
    if any((ROOT / "labs" / "zh").glob("[0-9][0-9]*_*.ipynb")):
        if not any((student_labs / "zh").glob("*.ipynb")):
            raise SystemExit(f"no Chinese labs in {student_labs / 'zh'}: run `make student` first")
        names += [f"zh/{name}" for name in _notebooks(student_labs / "zh", dest / "zh", ROOT / "labs" / "zh")]
    return names


def _notebooks(student_labs: Path, dest: Path, sources: Path) -> list[str]:
    dest.mkdir(parents=True)
    names = []
    for path in sorted(student_labs.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nb.cells = [c for c in nb.cells if INSTALL_CELL_TAG not in c.get("metadata", {}).get("tags", [])]
        nb.metadata["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
        nbformat.write(nb, dest / path.name)
        names.append(path.name)
    if not names:
        raise SystemExit(f"no labs in {student_labs}: run `make student` first")
    for extra in ("README.md",):
        if (sources / extra).exists():
            shutil.copy2(sources / extra, dest / extra)
    return names


def build(student_labs: Path, out: Path, cache: Path, wheel: Path | None = None) -> dict[str, Any]:
    """Write the site to ``out`` from ``student_labs``; ``wheel``: an rmqlab wheel of this tree built already (the
    tests build it once per run for everything that needs it), else it is built here."""
    started = time.monotonic()
    version = pyodide_version()
    src = out.with_name(out.name + "-src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    (src / "pypi").mkdir(parents=True)
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)

    # 1. wheels: rmqlab itself, then what it, the labs and the kernel need, for Pyodide's Python
    for old in wheels.glob("rmqlab-*.whl"):
        old.unlink()
    if wheel is not None:
        shutil.copy2(wheel, wheels / wheel.name)
    else:
        run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
             str(ROOT)], stdout=subprocess.DEVNULL)  # fmt: skip
    rmqlab_wheel = next(wheels.glob("rmqlab-*.whl"))
    pins = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if not line.startswith("jsonschema")]
    constraints = cache / "constraints-lite.txt"
    constraints.write_text("\n".join(pins) + "\n")
    pure = cache / "pure"
    pip_download(["sortedcontainers", LITE_JSONSCHEMA, *LAB_PACKAGES, *KERNEL_PACKAGES, "micropip"], pure, constraints)
    for wheel in [rmqlab_wheel, *sorted(pure.glob("*.whl"))]:
        name = wheel.name.split("-")[0].lower().replace("_", "-")
        if name not in SHIPPED_WITH_THE_KERNEL and name != "micropip":
            shutil.copy2(wheel, src / "pypi" / wheel.name)

    # 2. the runtime, the labs, the extensions, the settings
    kernel_wheels = sorted(w for w in (kernel_extension() / "static" / "pypi").glob("*.whl")
                           if w.name.startswith(KERNEL_WHEELS))  # fmt: skip
    preload = [*sorted((src / "pypi").glob("*.whl")), *kernel_wheels]
    site = {wheel.name.split("-")[0] for wheel in [*preload, *pure.glob("*.whl")]}
    preload = [slim_jedi(w, site, cache / "slim") if w.name.startswith("jedi-") else w for w in preload]
    preload = [slim_plotly(w, cache / "slim") if w.name.startswith("plotly-") else w for w in preload]
    packages = pyodide_dist(version, cache, pure, src / "static" / "pyodide", preload)
    names = lab_notebooks(student_labs, src / "files")
    for ext in EXTENSIONS:
        origin = kernel_extension() if ext == KERNEL_EXTENSION else LABEXTENSIONS / ext
        shutil.copytree(origin, src / "labextensions" / ext, ignore=shutil.ignore_patterns("*.map"))
    # (the lite dir's own extensions/ folder is not picked up by jupyterlite-core 0.8.6's build step)
    config = {"FederatedExtensionAddon": {"extra_labextensions_path": [str(src / "labextensions")]}}
    (src / "jupyter_lite_config.json").write_text(json.dumps(config, indent=2) + "\n")
    (src / "jupyter-lite.json").write_text(json.dumps({
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "rmqlab",
            "exposeAppInBrowser": "true",  # a string: the app compares it with "true"
            "litePluginSettings": {KERNEL_EXTENSION + ":kernel": {
                "disablePyPIFallback": True, "loadPyodideOptions": {"packages": packages}}},
        },
    }, indent=2) + "\n")  # fmt: skip
    # no "news" check, no update check: the site must not reach out
    overrides = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}
    (src / "overrides.json").write_text(json.dumps(overrides, indent=2) + "\n")
    run([sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", str(src), "--output-dir", str(out),
         "--contents", str(src / "files"), "--ignore-sys-prefix", "--no-sourcemaps",
         "--settings-overrides", str(src / "overrides.json")], cwd=src)  # fmt: skip
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    wheel_names = sorted(p.name for p in (out / "pypi").glob("*.whl"))
    summary: dict[str, Any] = {
        "pyodide": version,
        "labs": names,
        "wheels": wheel_names,
        "bytes": size,
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "rmqlab-lite.json").write_text(json.dumps(summary, indent=1) + "\n")
    log(f"{out}: {len(names)} labs, {len(wheel_names)} wheels, Pyodide {version}, "
        f"{size / 2**20:.1f} MiB in {summary['seconds']} s")  # fmt: skip
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("student_labs", type=Path, nargs="?", help="the student copies (build/student-labs)")
    parser.add_argument("out", type=Path, nargs="?", help="the site to write (replaced), e.g. build/lite")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "lite-cache", help="downloads kept here")
    parser.add_argument("--park", action="store_true", help="only move the kernel's lab extension out of JupyterLab")
    parser.add_argument("--wheel", type=Path, help="an rmqlab wheel of this tree built already (else built here)")
    args = parser.parse_args(argv)
    if args.park:
        park_kernel_extension()
        return 0
    if args.student_labs is None or args.out is None:
        parser.error("STUDENT_LABS and OUT are required (or --park)")
    if args.wheel is not None and not args.wheel.name.startswith("rmqlab-"):
        parser.error(f"--wheel {args.wheel}: not an rmqlab wheel (rmqlab-*.whl)")
    if args.wheel is not None and not args.wheel.is_file():
        parser.error(f"--wheel {args.wheel}: no such file")
    build(args.student_labs.resolve(), args.out.resolve(), args.cache.resolve(),
          args.wheel.resolve() if args.wheel is not None else None)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
