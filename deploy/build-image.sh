#!/usr/bin/env bash
# Build the classroom image for Zero to JupyterHub with repo2docker, from what is committed (a fresh clone:
# no .venv, no build/), and optionally push it:
#
#     deploy/build-image.sh registry.example.org/rmqlab/classroom:2026.12 [--push]
#
# The image is Binder's (environment.yml) plus deploy/image/appendix.Dockerfile: nbgrader, the student copy
# of the labs in /srv/rmqlab/student-labs, the solutions unreadable. Needs docker (or podman) and
# `pip install jupyter-repo2docker`; put the image's name and tag in deploy/z2jh/config.yaml.
set -euo pipefail
image="${1:?usage: deploy/build-image.sh IMAGE:TAG [--push]}"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git clone --quiet --depth 1 "file://$repo" "$src/rmqlab"
# uid 1000 / jovyan: what z2jh's singleuser.uid and fsGid expect (repo2docker would take the builder's own uid)
exec repo2docker --no-run --user-id 1000 --user-name jovyan --target-repo-dir /srv/rmqlab \
  --image-name "$image" --appendix "$(cat "$repo/deploy/image/appendix.Dockerfile")" "$@" "$src/rmqlab"
