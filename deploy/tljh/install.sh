#!/usr/bin/env bash
# One VM for a class: install The Littlest JupyterHub with the rmqlab plugin (docs/classroom.md).
# Run as root on a fresh Ubuntu 22.04/24.04 VM (size: 1 GiB + ~310 MiB per student working at once, 2+ vCPUs):
#
#     curl -fsSL https://raw.githubusercontent.com/rmqlab/rmqlab/main/deploy/tljh/install.sh | sudo bash -s -- ADMIN
#
# ADMIN is the teacher's hub user name (they choose a password at first login). RMQLAB_SOURCE / RMQLAB_REF
# pick the repository and branch the plugin installs from (default: this repository's main branch).
set -euo pipefail
admin="${1:?usage: install.sh ADMIN_USER}"
source_url="${RMQLAB_SOURCE:-https://github.com/rmqlab/rmqlab}"
ref="${RMQLAB_REF:-main}"
apt-get update -qq && apt-get install -y -qq python3 python3-dev git curl
curl -fsSL https://tljh.jupyter.org/bootstrap.py | \
  RMQLAB_SOURCE="$source_url" RMQLAB_REF="$ref" python3 - --admin "$admin" \
    --plugin "git+${source_url}@${ref}#subdirectory=deploy/tljh"
