#!/bin/sh
# Builds the PTX of every CUDA C source in internal/cuda/kernels, as `make
# ptx` (build) and `make ptx-check` (check) run it.
#
#   ci/cuda/ptx.sh build [X...]   writes, next to each X.cu (or each one
#                     named, without its .cu):
#       X.ptx         nvcc -ptx -arch=compute_80: PTX for a virtual
#                     architecture, which the driver compiles for the GPU it
#                     runs on (any of compute capability 8.0 or later: A100,
#                     RTX 30xx and 40xx, H100, H200)
#       X.ptxas.txt   ptxas -v on that PTX for sm_80 (A100) and sm_89 (Ada):
#                     one line per kernel and architecture, with its
#                     registers per thread, static shared memory, stack
#                     frame and spilled bytes
#       X.sum         sha256 of X.cu, X.ptx and X.ptxas.txt, and the nvcc
#                     that built them (internal/cuda/kernels' test checks it)
#   ci/cuda/ptx.sh check   builds the same into a temporary folder and
#                     compares it with what is committed, byte for byte;
#                     then runs ci/cuda/twins.sh, unit15's twins on the CPU
#                     against the Go kernels.
#
# One set of files per source, so that two people adding two .cu files
# never touch the same output.
set -eu
dir=internal/cuda/kernels
NVCCFLAGS="-ptx -arch=compute_80 -std=c++17"
ARCHS="sm_80 sm_89"

for tool in nvcc ptxas; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "ptx: $tool is not installed: run ci/cuda/install-toolkit.sh (Debian's nvidia-cuda-toolkit, about 3 GB)" >&2
		exit 2
	fi
done

# build OUT [X...]: every $dir/X.cu (or the ones named) to OUT/X.ptx,
# OUT/X.ptxas.txt, OUT/X.sum.
build() {
	out=$1
	shift
	sources=""
	for x in "$@"; do
		if [ ! -f "$dir/$x.cu" ]; then
			echo "ptx: no $dir/$x.cu" >&2
			exit 2
		fi
		sources="$sources $dir/$x.cu"
	done
	[ -n "$sources" ] || sources=$(ls "$dir"/*.cu)
	version=$(nvcc --version | grep -i 'release')
	for cu in $sources; do
		x=$(basename "$cu" .cu)
		# shellcheck disable=SC2086 # NVCCFLAGS is a list of words
		nvcc $NVCCFLAGS -o "$out/$x.ptx" "$cu"
		{
			echo "# ptxas -v on $x.ptx: registers a thread, static shared bytes (the dynamic shared memory is set at launch), stack frame bytes, spilled bytes (stores + loads)"
			for arch in $ARCHS; do
				ptxas -v -arch="$arch" -o /dev/null "$out/$x.ptx" 2>&1 | awk -v arch="$arch" '
					/Compiling entry function/ { split($0, q, "'"'"'"); name = q[2]; smem = 0 }
					/bytes stack frame/ { stack = $1; spill = $5 + $9 }
					/Used [0-9]+ registers/ {
						for (i = 1; i <= NF; i++) {
							if ($i == "registers,") regs = $(i - 1)
							if ($i == "smem,") smem = $(i - 2)
						}
						printf "%s %s regs=%d smem=%d stack=%d spill=%d\n", name, arch, regs, smem, stack, spill
					}'
			done | sort
		} >"$out/$x.ptxas.txt"
		{
			echo "# $version: nvcc $NVCCFLAGS"
			(cd "$dir" && sha256sum "$x.cu")
			(cd "$out" && sha256sum "$x.ptx" "$x.ptxas.txt")
		} >"$out/$x.sum"
		echo "ptx: $cu -> $out/$x.ptx ($(grep -c '^\.visible \.entry' "$out/$x.ptx") kernels)"
	done
}

case "${1:-}" in
build)
	shift
	build "$dir" "$@"
	;;
check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	build "$tmp" >/dev/null
	status=0
	for f in "$tmp"/*; do
		name=$(basename "$f")
		if ! cmp -s "$f" "$dir/$name"; then
			echo "ptx-check: $dir/$name differs from a fresh build (or is missing): run make ptx and commit" >&2
			diff -u "$dir/$name" "$f" | head -20 >&2 || true
			status=1
		fi
	done
	for f in "$dir"/*.ptx "$dir"/*.ptxas.txt "$dir"/*.sum; do
		[ -e "$f" ] || continue
		if [ ! -e "$tmp/$(basename "$f")" ]; then
			echo "ptx-check: $f has no .cu to build it from" >&2
			status=1
		fi
	done
	if [ $status = 0 ]; then
		echo "ptx-check: $(ls "$tmp" | wc -l) files rebuilt, identical to the committed ones ($(nvcc --version | grep -i release))"
	fi
	ci/cuda/twins.sh || status=1
	exit $status
	;;
*)
	echo "usage: ci/cuda/ptx.sh build [X...] | check" >&2
	exit 2
	;;
esac
