#!/bin/sh
# run.sh ELF [WORKDIR] - run a bare-metal ELF on GVSoC's Siracusa model.
# GVSOC=DIR names an installed GVSoC (DIR/bin/gvsoc); this script never
# builds one. GVSoC's launcher (gapy) runs the python3 first on PATH, which
# needs GVSoC's Python requirements: GVSOC_PYTHON=/path/to/python3 puts
# that one first (default: DIR/venv/bin/python3 when it exists).
# Prints what the program prints; exits with the program's exit code.
set -e
if [ -z "$GVSOC" ]; then
    echo "run.sh: set GVSOC=DIR, the install directory of GVSoC (DIR/bin/gvsoc)" >&2
    exit 2
fi
if [ ! -f "$GVSOC/bin/gvsoc" ]; then
    echo "run.sh: $GVSOC/bin/gvsoc: no such file (GVSOC must name an installed GVSoC)" >&2
    exit 2
fi
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: GVSOC=DIR run.sh ELF [WORKDIR]" >&2
    exit 2
fi
elf=$(realpath "$1")
work=${2:-${elf%.elf}.gvsoc}
mkdir -p "$work"
py=${GVSOC_PYTHON:-}
[ -n "$py" ] || [ ! -x "$GVSOC/venv/bin/python3" ] || py=$GVSOC/venv/bin/python3
[ -z "$py" ] || PATH="$(dirname "$py"):$PATH"
export PATH
exec timeout "${TIMEOUT:-3600}" "$GVSOC/bin/gvsoc" --target=siracusa \
    --binary "$elf" --work-dir="$(realpath "$work")" run
