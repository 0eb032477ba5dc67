"""``lite/lite_slim.py``: the site's jedi wheel keeps the type stubs of the site's packages and of the standard
library, and drops the other third-party stubs and Django's (IPython imports jedi at kernel start, so every file
of the wheel is unpacked into the student's browser before the first cell runs)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from lite.lite_slim import slim_jedi, slim_plotly

STUBS = "jedi/third_party/typeshed/stubs/"
FILES = ["jedi/__init__.py", "jedi/third_party/typeshed/stdlib/json/__init__.pyi", f"{STUBS}networkx/nx/__init__.pyi",
         f"{STUBS}Pygments/pygments/lexer.pyi", f"{STUBS}requests/requests/api.pyi", f"{STUBS}six/six/__init__.pyi",
         "jedi/third_party/django-stubs/django-stubs/__init__.pyi", "jedi-0.20.1.dist-info/METADATA"]  # fmt: skip


def _wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as whl:
        for name in FILES:
            whl.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6)), f"# {name}\n")
        whl.writestr("jedi-0.20.1.dist-info/RECORD", "".join(f"{name},sha256=x,9\n" for name in FILES))
    return path


def test_jedi_keeps_the_stubs_of_the_sites_packages_only(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "jedi-0.20.1-py2.py3-none-any.whl")
    slim = slim_jedi(wheel, {"networkx", "pygments", "rmqlab"}, tmp_path / "cache")
    kept = [n for n in FILES if n not in (f"{STUBS}requests/requests/api.pyi", f"{STUBS}six/six/__init__.pyi",
                                           "jedi/third_party/django-stubs/django-stubs/__init__.pyi")]  # fmt: skip
    with zipfile.ZipFile(slim) as whl:
        assert whl.namelist() == [*kept, "jedi-0.20.1.dist-info/RECORD"]
        assert whl.read("jedi-0.20.1.dist-info/RECORD").decode() == "".join(f"{n},sha256=x,9\n" for n in kept)
        assert whl.read(f"{STUBS}networkx/nx/__init__.pyi") == f"# {STUBS}networkx/nx/__init__.pyi\n".encode()
    again = slim_jedi(wheel, {"pygments", "networkx", "rmqlab"}, tmp_path / "other-cache")
    assert again.read_bytes() == slim.read_bytes() and again.name == wheel.name  # same input, same bytes


PLOTLY = ["plotly/__init__.py", "plotly/graph_objs/_figure.py", "plotly/package_data/templates/plotly.json",
          "plotly/package_data/plotly.min.js", "plotly/package_data/datasets/iris.csv.gz",
          "plotly/labextension/package.json", "plotly-7.1.0.data/data/etc/jupyter/nbconfig.json",
          "plotly-7.1.0.dist-info/METADATA"]  # fmt: skip


def test_plotly_drops_its_jupyterlab_extension_and_data_sets_only(tmp_path: Path) -> None:
    wheel = tmp_path / "plotly-7.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as whl:
        for name in PLOTLY:
            whl.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6)), f"# {name}\n")
        whl.writestr("plotly-7.1.0.dist-info/RECORD", "".join(f"{name},sha256=x,9\n" for name in PLOTLY))
    slim = slim_plotly(wheel, tmp_path / "cache")
    kept = [n for n in PLOTLY if "/labextension/" not in n and ".data/" not in n and "/datasets/" not in n]
    assert kept == PLOTLY[:4] + PLOTLY[-1:]  # the figure classes, the templates, plotly.js stay
    with zipfile.ZipFile(slim) as whl:
        assert whl.namelist() == [*kept, "plotly-7.1.0.dist-info/RECORD"]
        assert whl.read("plotly-7.1.0.dist-info/RECORD").decode() == "".join(f"{n},sha256=x,9\n" for n in kept)
    assert slim_plotly(wheel, tmp_path / "again").read_bytes() == slim.read_bytes()
