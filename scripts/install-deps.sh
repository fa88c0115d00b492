#!/usr/bin/env bash
# Debian packages needed to build and test gpuvm.
#   scripts/install-deps.sh            check, and install what is missing (as root)
#   scripts/install-deps.sh --check    check only; exit 1 and say what is missing
#   scripts/install-deps.sh --install  same as no argument
# Quiet when everything is present.
set -euo pipefail

PACKAGES=(
	build-essential cmake pkg-config   # toolchain
	libinih-dev libcjson-dev           # preset INI files, JSON reports
	libcmocka-dev                      # unit tests
	libzstd-dev liblzma-dev            # compressed traces
	libiberty-dev                      # C++ kernel names demangled in text reports
	gnuplot-nox                        # figures (optional at run time)
	clang                              # fuzz targets (libFuzzer comes with its recommends)
	libopenmpi-dev openmpi-bin         # gpuvm sweep --mpi (optional; CI tests a 4-rank run)
	python3-pandas python3-pytest      # the Python package's DataFrames and its tests (docs/python.md)
	python3-setuptools python3-venv    # pip install ./python, offline
)

mode=install
case "${1:-}" in
	""|--install) mode=install ;;
	--check) mode=check ;;
	-h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install-deps.sh: unknown option '$1' (use --check or --install)" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$mode" = check ]; then
	echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "  install them with: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=(sudo)
else
	echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "  run: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "install-deps.sh: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
