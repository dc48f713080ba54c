#!/usr/bin/env bash
# Installs everything the benchmark suite needs besides the Swift toolchain:
#   * Debian: GEOS/shapelib headers (the engine), PostgreSQL 15 + PostGIS 3 (a peer), GNU time (peak RSS).
#   * PyPI, into Benchmarks/.venv: the Python peers and tools pinned in Benchmarks/requirements.txt.
# Idempotent: does nothing that is already done. Run as root (apt) or with the Debian packages present.
#   setup.sh [MORE_DEBIAN_PACKAGES...]   also installs these (run-growth.sh: Data/build.py --full's inputs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

need=()
for pkg in libgeos-dev libshp-dev pkg-config postgresql-15 postgresql-15-postgis-3 time "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing Debian packages ${need[*]}; run this script as root" >&2
        exit 1
    fi
    echo "setup: apt-get install ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# The Debian package starts a system cluster; the suite runs its own throw-away one instead.
if command -v systemctl >/dev/null 2>&1; then systemctl stop postgresql >/dev/null 2>&1 || true; fi

venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: creating $venv from requirements.txt"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -r "$here/requirements.txt"
    echo "$want" >"$stamp"
fi
echo "setup: ok ($("$venv/bin/python" --version), $(dpkg-query -W -f='postgis ${Version}' postgresql-15-postgis-3))"
