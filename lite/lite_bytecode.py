"""Bytecode for the site's wheels, compiled by the site's own Python: Pyodide, run once in Node at build time.

Pyodide runs with ``sys.dont_write_bytecode`` and pure-Python wheels carry only sources, so every import in the
student's browser compiled its module from source, every time: in the kernel, ``builtins.compile`` was 44 % of
importing ``rmqlab.widgets`` (474 modules) under cProfile, and IPython's own import at kernel start is the same
story (bench/README.md, "The zero-install site"). compiled_archives returns copies of the wheels with a
``__pycache__/NAME.cpython-314.pyc`` beside every module, so the browser only unmarshals them.

The pycs are *unchecked-hash* ones (PEP 552): Python uses them without comparing them with the source's time
stamp, which Pyodide's unpacking does not keep. The sources stay in the wheel (tracebacks, ``inspect.getsource``,
the dashboards' "in the source" lines). Bytecode is tied to the exact Python, so it is compiled by the Pyodide
runtime the site ships (its npm package, in Node), not by the build machine's Python. Compiled wheels are cached
under the cache folder by the hash of the wheel they came from: a rebuild compiles only a changed rmqlab wheel.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

SITE_PACKAGES = "/lib/python3.14/site-packages"
"""Where Pyodide installs the wheels (``install_dir: site``): the file names compiled into the bytecode."""
STDLIB = "/lib/python314.zip"
"""Where Pyodide's standard library is imported from (``sys.path``), its ``python_stdlib.zip``."""

COMPILE = r"""
import json, os, py_compile, sys, zipfile

def compile_wheel(src, dst, where, legacy):
    tag = sys.implementation.cache_tag
    added = []
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst + ".part", "w", zipfile.ZIP_DEFLATED) as zout:
        record = None
        for info in zin.infolist():
            data = zin.read(info)
            top = info.filename.split("/")[0]
            if info.filename.endswith(".dist-info/RECORD"):
                record = (info, data)
                continue
            zout.writestr(info, data)
            if not info.filename.endswith(".py") or top.endswith((".data", ".dist-info")):
                continue
            with open("/tmp/module.py", "wb") as f:
                f.write(data)
            head, _, tail = info.filename.rpartition("/")
            pyc = (info.filename + "c" if legacy  # zipimport reads NAME.pyc beside NAME.py
                   else (head + "/" if head else "") + "__pycache__/" + tail[:-3] + "." + tag + ".pyc")
            try:
                py_compile.compile("/tmp/module.py", cfile="/tmp/module.pyc", dfile=where + "/" + info.filename,
                                   doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            except py_compile.PyCompileError:
                continue  # not Python 3 (a test fixture, a template): it was never importable either
            with open("/tmp/module.pyc", "rb") as f:  # dated as its source: the same wheel, byte for byte
                zout.writestr(zipfile.ZipInfo(pyc, date_time=info.date_time), f.read(), zipfile.ZIP_DEFLATED)
            added.append(pyc)
        if record is not None:  # bytecode is listed without a hash (PEP 376), as pip's own install does
            zout.writestr(record[0], record[1].decode() + "".join(p + ",,\n" for p in added))
    os.replace(dst + ".part", dst)
    return len(added)

jobs = json.load(open("/work/jobs.json"))
for src, dst, where, legacy in jobs["archives"]:
    n = compile_wheel(src, dst, where, legacy)
    print(f"[lite]   {os.path.basename(dst)}: {n} modules compiled", flush=True)
"""
"""Run inside Pyodide: each wheel rewritten with a pyc beside every module (``py_compile``, unchecked hash)."""

RUNNER = """
import { loadPyodide } from %(pyodide)s;
const py = await loadPyodide({ indexURL: %(index)s });
py.FS.mkdirTree("/work");
py.FS.mount(py.FS.filesystems.NODEFS, { root: %(work)s }, "/work");
py.runPython(%(code)s);
"""
"""Node's side: load the site's Pyodide, mount the work folder, run :data:`COMPILE`."""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _placement(where: str, legacy: bool) -> str:
    """A short key for where an archive is imported from and its pyc layout (part of its cache folder's name)."""
    return hashlib.sha256(f"{where}|{legacy}".encode()).hexdigest()[:8]


def compiled_archives(archives: list[tuple[Path, str, bool]], pyodide: Path, cache: Path) -> list[Path]:
    """Each (archive, where it is imported from, legacy ``NAME.pyc`` layout) compiled, from ``cache`` if done
    before (keyed by the archive's and the runtime's hashes, and by where and how: the same wheel is compiled once
    for site-packages and once for the standard library's zip, with other file names inside)."""
    pyodide, cache = pyodide.resolve(), cache.resolve()
    runtime = digest(pyodide / "pyodide.asm.wasm")[:8]
    compiled = [cache / f"{digest(path)[:16]}-{runtime}-{_placement(where, legacy)}" / path.name
                for path, where, legacy in archives]  # fmt: skip
    todo = [(job, out) for job, out in zip(archives, compiled, strict=True) if not out.is_file()]
    if not todo:
        return compiled
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not on the PATH: the site's wheels are compiled by Pyodide in Node")
    with tempfile.TemporaryDirectory(prefix="rmqlab-pyc-") as tmp:
        work = Path(tmp)
        jobs = []
        for number, ((path, where, legacy), _) in enumerate(todo):
            (work / str(number)).mkdir()
            shutil.copy2(path, work / str(number) / path.name)
            jobs.append([f"/work/{number}/{path.name}", f"/work/{number}/out-{path.name}", where, legacy])
        (work / "jobs.json").write_text(json.dumps({"archives": jobs}))
        runner = RUNNER % {"pyodide": json.dumps((pyodide / "pyodide.mjs").as_uri()),
                           "index": json.dumps(str(pyodide) + "/"), "work": json.dumps(str(work)),
                           "code": json.dumps(COMPILE)}  # fmt: skip
        (work / "runner.mjs").write_text(runner)
        subprocess.run([node, str(work / "runner.mjs")], check=True)
        for number, ((path, _, _), out) in enumerate(todo):
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(work / str(number) / f"out-{path.name}", out)
    return compiled
