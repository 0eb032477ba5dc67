"""``lite/lite_zip.py``: the site's wheels that import from a zip go into Pyodide's standard-library zip (modules,
bytecode, metadata; not their ``.data`` folders nor their test suites); the ones that read their own files by path,
or that the kernel's start loads by name, stay wheels; a file two archives both have stops the build."""

from __future__ import annotations

import re
import zipfile
import zipimport
from pathlib import Path

import pytest

from lite.lite_zip import UNPACKED, stdlib_with_packages, zipped


def _archive(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6)), f"# {name}\n")
    return path


def test_the_wheels_join_the_standard_library_without_their_data(tmp_path: Path) -> None:
    stdlib = _archive(tmp_path / "python_stdlib.zip", ["json/__init__.py", "json/__init__.pyc"])
    networkx = ["networkx/__init__.py", "networkx/__init__.pyc", "networkx-3.6.1.dist-info/METADATA",
                "networkx-3.6.1.data/data/share/x.json", "networkx/tests/test_all.py",
                "networkx/classes/tests/test_graph.pyc", "networkx/tests.py"]  # fmt: skip
    typing = ["typing_extensions.py", "typing_extensions.pyc", "typing_extensions-4.16.0.dist-info/METADATA"]
    wheels = [_archive(tmp_path / "networkx-3.6.1-py3-none-any.whl", networkx),
              _archive(tmp_path / "typing_extensions-4.16.0-py3-none-any.whl", typing)]  # fmt: skip
    out = tmp_path / "out.zip"
    assert stdlib_with_packages(stdlib, wheels, out) == ["networkx", "typing_extensions"]
    with zipfile.ZipFile(out) as merged:
        assert merged.namelist() == ["json/__init__.py", "json/__init__.pyc", "networkx/__init__.py",
                                     "networkx/__init__.pyc", "networkx-3.6.1.dist-info/METADATA", "networkx/tests.py",
                                     "typing_extensions.py", "typing_extensions.pyc",
                                     "typing_extensions-4.16.0.dist-info/METADATA"]  # fmt: skip
        assert merged.read("networkx/__init__.py") == b"# networkx/__init__.py\n"
    # and Python imports from it (asked of the zip's importer: the installed networkx may be imported already)
    spec = zipimport.zipimporter(str(out)).find_spec("networkx")
    assert spec is not None and spec.origin == str(out / "networkx" / "__init__.py")


def test_a_file_two_archives_both_have_stops_the_build(tmp_path: Path) -> None:
    stdlib = _archive(tmp_path / "python_stdlib.zip", ["six.py"])
    wheel = _archive(tmp_path / "six-1.17.0-py2.py3-none-any.whl", ["six.py"])
    clash = "six-1.17.0-py2.py3-none-any.whl and python_stdlib.zip both have six.py"
    with pytest.raises(SystemExit, match=re.escape(clash)):
        stdlib_with_packages(stdlib, [wheel], tmp_path / "out.zip")
    assert not (tmp_path / "out.zip").exists() and not (tmp_path / "out.part").exists()


def test_the_packages_that_read_their_own_files_or_that_the_kernel_loads_stay_wheels() -> None:
    assert not zipped(Path("rmqlab-0.1.0-py3-none-any.whl")) and not zipped(Path("jedi-0.20.1-py2.py3-none-any.whl"))
    assert not zipped(Path("pyodide_kernel-0.8.6-py3-none-any.whl"))  # canonical name: pyodide-kernel
    assert zipped(Path("networkx-3.6.1-py3-none-any.whl")) and zipped(Path("prompt_toolkit-3.0.53-py3-none-any.whl"))
    assert {"rmqlab", "jedi", "parso", "plotly", "ipython", "micropip", "piplite"} <= set(UNPACKED)
    # reads its metaschemas with importlib.resources: from the zip, the whole zip's directory again for each file
    assert not zipped(Path("jsonschema-4.17.3-py3-none-any.whl"))
