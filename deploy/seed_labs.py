"""Give a student their own copy of the labs: copy every file of SOURCE that TARGET lacks; never overwrite.

Usage (the hub runs it, not the student)::

    python3 seed_labs.py SOURCE TARGET [--owner USER]

Both classroom set-ups call it when a student's server first has a home: Zero to JupyterHub from the
single-user pod's ``postStart`` hook (``z2jh/config.yaml``), The Littlest JupyterHub from the plugin's
``tljh_new_user_create`` hook (``tljh/tljh_rmqlab.py``). A notebook the student already has, edited or not,
is kept: a new image or a re-install brings new labs without touching anyone's answers. ``--owner`` (run as
root) hands what it created to that user. Standard library only: it runs in any Python 3.8+.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path


def seed(source: Path, target: Path, owner: str | None = None) -> tuple[list[Path], list[Path]]:
    """Copy the files of ``source`` missing from ``target``; returns (created, kept), paths relative to target."""
    if not source.is_dir():
        raise SystemExit(f"seed_labs: SOURCE={str(source)!r} is not a folder (the student copy of the labs)")
    created: list[Path] = []
    kept: list[Path] = []
    new_dirs: list[Path] = []
    if not target.exists():
        new_dirs.append(target)
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if any(part.startswith(".") for part in rel.parts):  # .ipynb_checkpoints and the like
            continue
        dest = target / rel
        if path.is_dir():
            if not dest.exists():
                dest.mkdir(parents=True)
                new_dirs.append(dest)
            continue
        if dest.exists():
            kept.append(rel)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
        os.chmod(dest, 0o644)  # the source is read-only for students; their copy is theirs to edit
        created.append(rel)
    if owner is not None:
        for p in [*new_dirs, *(target / rel for rel in created)]:
            shutil.chown(p, user=owner, group=None)
    return created, kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the student copy of the labs (labs/make_student.py wrote it)")
    parser.add_argument("target", type=Path, help="the student's folder, e.g. ~/labs")
    parser.add_argument("--owner", help="user to own what is created (when run as root)")
    args = parser.parse_args(argv)
    created, kept = seed(args.source, args.target, args.owner)
    print(f"seed_labs: {len(created)} files copied into {args.target}, {len(kept)} already there kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
