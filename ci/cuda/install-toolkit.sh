#!/bin/sh
# Installs nvcc and ptxas from Debian's nvidia-cuda-toolkit (CUDA 11.8 on
# bookworm), which lives in the non-free component: this script adds that
# component in a sources file of its own and installs the package. Only
# `make ptx` needs it (to rebuild the PTX of internal/cuda/kernels from its
# CUDA C sources); building and testing Forge never does. It needs root (or
# sudo) and 5.5 GB of disk (1.6 GB downloaded); it does nothing when nvcc
# is already on the PATH.
set -eu
if command -v nvcc >/dev/null 2>&1; then
	echo "nvcc already installed: $(command -v nvcc)"
	exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
. /etc/os-release
list=/etc/apt/sources.list.d/forge-non-free.sources
if [ ! -f "$list" ]; then
	$sudo tee "$list" >/dev/null <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${VERSION_CODENAME}
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends nvidia-cuda-toolkit
nvcc --version
