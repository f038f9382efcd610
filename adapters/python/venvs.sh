#!/usr/bin/env bash
# The Python virtual environments of the kit and of the runtime shims:
#
#   adapters/python/venvs.sh            every one (dev, then each runtime)
#   adapters/python/venvs.sh dev <id>…  the named ones
#
# `dev` is adapters/python/.venv (requirements-dev.txt: pytest, ruff, mypy,
# and the kit installed from its pyproject.toml); a runtime <id> is
# adapters/python/runtimes/<id>/.venv from that folder's requirements.txt
# (every package pinned), with the kit made importable by a .pth file that
# points at src/ (the kit has no dependencies, so nothing of a runtime's
# pins moves). Existing environments are reused; pip installs what changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
pip_quiet=(--quiet --disable-pip-version-check --no-input)

if [ "$#" -eq 0 ]; then
  set -- dev
  for folder in "$here"/runtimes/*/; do
    [ -f "$folder/requirements.txt" ] && set -- "$@" "$(basename "$folder")"
  done
fi

for id in "$@"; do
  if [ "$id" = dev ]; then
    folder=$here
    requirements=$here/requirements-dev.txt
  else
    folder=$here/runtimes/$id
    requirements=$folder/requirements.txt
  fi
  if [ ! -f "$requirements" ]; then
    echo "venvs.sh: no $requirements" >&2
    exit 1
  fi
  if grep -qi '^toolgate[-_]adapter' "$requirements"; then
    # `pip freeze` in a runtime's venv lists the kit (its .pth): the kit is
    # linked below, never installed from an index
    echo "venvs.sh: $requirements pins toolgate-adapter; freeze with \`pip freeze --exclude toolgate-adapter\`" >&2
    exit 1
  fi
  [ -x "$folder/.venv/bin/python" ] || "$python" -m venv "$folder/.venv"
  "$folder/.venv/bin/python" -m pip install "${pip_quiet[@]}" -r "$requirements"
  if [ "$id" = dev ]; then
    # the kit as a package, from its pyproject.toml (editable: the tests
    # run on src/ as it is)
    "$folder/.venv/bin/python" -m pip install "${pip_quiet[@]}" --no-deps -e "$here"
  else
    site=$("$folder/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$here/src" > "$site/toolgate_adapter.pth"
  fi
  echo "venvs.sh: $id ready ($("$folder/.venv/bin/python" --version))"
done
