#!/usr/bin/env bash
# `cmake --install` gives a C program everything it needs to use gpuvm as a
# library: this installs the build the binary came from into a temporary
# prefix and checks, in order,
#   - the files: bin/gpuvm, lib/libgpuvm.so (-> .so.MAJOR.MINOR, the SONAME),
#     lib/libgpuvm.a, include/gpuvm/*.h, lib/pkgconfig/gpuvm.pc naming the
#     prefix and the project's version; libgpuvm.so exports none of
#     libiberty's symbols;
#   - every installed header compiles on its own with only pkg-config's
#     flags (-std=c11 -pedantic -Werror): none needs a private src/ header
#     or another header included before it;
#   - examples/hello_gpuvm.c builds with `cc $(pkg-config --cflags --libs
#     gpuvm)`, links the shared library, runs, and reports the simulated
#     cycles the installed CLI reports for the same run; and the same
#     program linked against libgpuvm.a with `pkg-config --static --libs`.
# The compiler and sanitizer flags are the build's own (CMakeCache.txt), so
# the ASan pass of make check builds the example as it built the library.
# usage: install.sh GPUVM_BINARY SOURCE_DIR
set -u
BIN=$(realpath "${1:?usage: install.sh GPUVM SOURCE_DIR}")
SRC=$(realpath "${2:?usage: install.sh GPUVM SOURCE_DIR}")
BUILD=$(dirname "$BIN")
T=$(mktemp -d "${TMPDIR:-/tmp}/gpuvm-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
PREFIX=$T/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
CC=$(cache CMAKE_C_COMPILER)
CC=${CC:-cc}
FLAGS=()
[ "$(cache GPUVM_SANITIZE)" = ON ] && FLAGS+=(-fsanitize=address,undefined -fno-omit-frame-pointer)
[ "$(cache GPUVM_TSAN)" = ON ] && FLAGS+=(-fsanitize=thread)
version=$(sed -nE 's/^project\(gpuvm VERSION ([0-9.]+).*/\1/p' "$SRC/CMakeLists.txt")
soversion=$(cut -d. -f1,2 <<<"$version")

if ! cmake --install "$BUILD" --prefix "$PREFIX" >"$T/install.log" 2>&1; then
	cat "$T/install.log"
	echo "FAIL: cmake --install $BUILD failed (is libgpuvm.so built? cmake --build $BUILD)"
	exit 1
fi

# ---- the files ---------------------------------------------------------------
for f in bin/gpuvm lib/libgpuvm.so lib/libgpuvm.so.$soversion lib/libgpuvm.a \
	include/gpuvm/run.h include/gpuvm/error.h lib/pkgconfig/gpuvm.pc; do
	[ -e "$PREFIX/$f" ] || bad "not installed: $f"
done
n_src=$(find "$SRC/include/gpuvm" -name '*.h' | wc -l)
n_inst=$(find "$PREFIX/include/gpuvm" -name '*.h' | wc -l)
[ "$n_src" = "$n_inst" ] || bad "$n_inst headers installed, include/gpuvm/ has $n_src"
soname=$(readelf -d "$PREFIX/lib/libgpuvm.so" 2>&1 | sed -nE 's/.*SONAME.*\[(.*)\].*/\1/p')
[ "$soname" = "libgpuvm.so.$soversion" ] || bad "SONAME is '$soname', not libgpuvm.so.$soversion"
"$PREFIX/bin/gpuvm" --version >"$T/version.txt" 2>&1 || bad "installed gpuvm --version failed"
# libiberty (the demangler, linked in from its static archive) stays private
if nm -D --defined-only "$PREFIX/lib/libgpuvm.so" | grep -qE ' (cplus_demangle[a-z_]*|xmalloc)$'; then
	bad "libgpuvm.so exports libiberty's symbols (cplus_demangle*, xmalloc)"
fi
[ $fail = 0 ] && echo "ok: CLI, libgpuvm.so ($soname), libgpuvm.a, $n_inst headers and gpuvm.pc installed"

export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
got=$(pkg-config --modversion gpuvm 2>&1)
[ "$got" = "$version" ] || bad "pkg-config --modversion gpuvm: '$got', not $version"
got=$(pkg-config --variable=prefix gpuvm 2>&1)
[ "$got" = "$PREFIX" ] || bad "gpuvm.pc names prefix '$got', not the install prefix $PREFIX"
read -r -a CFLAGS <<<"$(pkg-config --cflags gpuvm)"
read -r -a LIBS <<<"$(pkg-config --libs gpuvm)"
read -r -a STATIC_LIBS <<<"$(pkg-config --static --libs gpuvm)"

# ---- each header on its own ---------------------------------------------------
nh=0
for h in "$PREFIX"/include/gpuvm/*.h; do
	name=gpuvm/$(basename "$h")
	# twice: the include guard works too
	printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$name" "$name" >"$T/h.c"
	if ! "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -Wstrict-prototypes -fsyntax-only \
		"${CFLAGS[@]}" "$T/h.c" >"$T/h.log" 2>&1; then
		bad "installed <$name> does not compile on its own:"
		head -5 "$T/h.log"
	fi
	nh=$((nh + 1))
done
echo "ok: $nh installed headers each compile alone with pkg-config --cflags gpuvm"

# ---- the example, against the installed library -------------------------------
W=random-sampling:region=16MiB,reads=8
if ! "$PREFIX/bin/gpuvm" sim --gpu p100 --workload "$W" --no-outdir --quiet --json "$T/cli.json" \
	>"$T/cli.log" 2>&1; then
	cat "$T/cli.log"
	bad "the installed gpuvm sim failed"
fi
want=$(sed -nE 's/^[[:space:]]*"sim_cycles":[[:space:]]*([0-9.e+]+).*/\1/p' "$T/cli.json")
want=$(printf '%.0f' "$want")

example() { # TITLE EXE: run it, check its report against the CLI's
	local title=$1 exe=$2
	if ! LD_LIBRARY_PATH=$PREFIX/lib "$exe" p100 "$W" >"$T/out.txt" 2>&1; then
		cat "$T/out.txt"
		bad "hello_gpuvm ($title) failed"
		return
	fi
	local got
	got=$(sed -nE 's/^sim_cycles +([0-9]+)$/\1/p' "$T/out.txt")
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		cat "$T/out.txt"
		bad "hello_gpuvm ($title) reports sim_cycles '$got'; gpuvm sim --json says '$want'"
	else
		echo "ok: hello_gpuvm ($title) runs: sim_cycles $got, as gpuvm sim reports"
	fi
}

if "$CC" -std=c11 -Wall -Wextra -Werror "${FLAGS[@]}" -o "$T/hello" "$SRC/examples/hello_gpuvm.c" \
	"${CFLAGS[@]}" "${LIBS[@]}" >"$T/cc.log" 2>&1; then
	# linked against the shared library, by its SONAME
	readelf -d "$T/hello" | grep -q "NEEDED.*\[libgpuvm.so.$soversion\]" ||
		bad "hello_gpuvm does not need libgpuvm.so.$soversion"
	example "libgpuvm.so" "$T/hello"
else
	cat "$T/cc.log"
	bad "examples/hello_gpuvm.c does not build with: $CC \$(pkg-config --cflags --libs gpuvm)"
fi

# the static library: libgpuvm.a by path, its dependencies from --static
static_deps=()
for l in "${STATIC_LIBS[@]}"; do [ "$l" = -lgpuvm ] || static_deps+=("$l"); done
if "$CC" -std=c11 -Wall -Wextra -Werror "${FLAGS[@]}" -o "$T/hello-static" \
	"$SRC/examples/hello_gpuvm.c" "${CFLAGS[@]}" "$PREFIX/lib/libgpuvm.a" "${static_deps[@]}" \
	>"$T/cc-static.log" 2>&1; then
	example "libgpuvm.a" "$T/hello-static"
else
	cat "$T/cc-static.log"
	bad "examples/hello_gpuvm.c does not link libgpuvm.a with pkg-config --static --libs gpuvm"
fi

[ $fail = 0 ] && echo "PASS: make install gives a working library, headers and pkg-config file"
exit $fail
