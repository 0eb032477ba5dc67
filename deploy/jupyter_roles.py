"""Who sees nbgrader in JupyterLab: the configuration of a student's and a teacher's Jupyter.

    python deploy/jupyter_roles.py ROLE CONFIG_DIR

writes ``CONFIG_DIR/jupyter_server_config.d/zz-rmqlab-role.json`` (which nbgrader server extensions load) and
``CONFIG_DIR/labconfig/page_config.json`` (which of nbgrader's JupyterLab plugins are off), merged into what is
there. ``CONFIG_DIR`` is a Jupyter config directory: ``JUPYTER_CONFIG_DIR`` (``make lab``), an environment's
``etc/jupyter`` (Binder's, the hub image's, TLJH's user environment), or a teacher's ``~/.jupyter``, which takes
precedence over the environment's. The roles:

* ``student`` — self-check (``make lab``, Binder): no nbgrader at all, whether or not it is installed;
* ``hub-student`` — a graded class on a hub: only the Assignments list (fetch and submit); no formgrader, no
  "Create Assignment", no Validate button, no course list;
* ``teacher`` — everything of nbgrader on (``make teacher``; on a hub, in the teacher's ``~/.jupyter``).

The file names sort after nbgrader's own ``nbgrader.json``, so a later file in the same directory wins. A user's
config directory takes precedence over the environment's only with ``JUPYTER_PREFER_ENV_PATH=0`` (jupyter_core
prefers a venv's or conda env's own ``etc/jupyter`` by default): ``make lab`` and the hub configs set it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SERVER_EXTENSIONS = ("formgrader", "validate_assignment", "assignment_list", "course_list")
"""nbgrader's server extensions (``nbgrader.server_extensions.<name>``)."""
LAB_PLUGINS = ("formgrader", "create-assignment", "validate-assignment", "assignment-list", "course-list", "menu")
"""nbgrader's JupyterLab plugins (``@jupyter/nbgrader:<name>``)."""

ROLES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "student": (frozenset(), frozenset()),
    "hub-student": (frozenset({"assignment_list"}), frozenset({"assignment-list", "menu"})),
    "teacher": (frozenset(SERVER_EXTENSIONS), frozenset(LAB_PLUGINS)),
}
"""Role → (the nbgrader server extensions it loads, the nbgrader lab plugins it shows)."""
SERVER_FILE = Path("jupyter_server_config.d") / "zz-rmqlab-role.json"
PAGE_CONFIG = Path("labconfig") / "page_config.json"


def server_config(role: str) -> dict[str, Any]:
    """The ``jupyter_server_config`` of ``role``: each nbgrader server extension on or off."""
    on, _ = ROLES[role]
    extensions = {f"nbgrader.server_extensions.{name}": name in on for name in SERVER_EXTENSIONS}
    return {"ServerApp": {"jpserver_extensions": extensions}}


def disabled_plugins(role: str) -> dict[str, bool]:
    """The ``disabledExtensions`` of ``role``'s page config (``False`` re-enables one a lower level disabled)."""
    _, shown = ROLES[role]
    if not shown:
        return {"@jupyter/nbgrader": True}
    plugins = {f"@jupyter/nbgrader:{name}": name not in shown for name in LAB_PLUGINS}
    return {"@jupyter/nbgrader": False, **plugins}


def write(role: str, config_dir: Path) -> list[Path]:
    """Write ``role``'s configuration into ``config_dir`` (merged into an existing page config); the files written."""
    if role not in ROLES:
        raise SystemExit(f"role={role!r} is not allowed: expected one of {', '.join(ROLES)}")
    server = config_dir / SERVER_FILE
    server.parent.mkdir(parents=True, exist_ok=True)
    server.write_text(json.dumps(server_config(role), indent=2) + "\n")
    page = config_dir / PAGE_CONFIG
    page.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = json.loads(page.read_text()) if page.exists() else {}
    disabled = data.get("disabledExtensions", {})
    if isinstance(disabled, list):  # the old list form
        disabled = dict.fromkeys(disabled, True)
    disabled = {k: v for k, v in disabled.items() if not k.startswith("@jupyter/nbgrader")}
    data["disabledExtensions"] = {**disabled, **disabled_plugins(role)}
    page.write_text(json.dumps(data, indent=2) + "\n")
    return [server, page]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: python deploy/jupyter_roles.py {{{','.join(ROLES)}}} CONFIG_DIR", file=sys.stderr)
        return 2
    for path in write(argv[0], Path(argv[1])):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
