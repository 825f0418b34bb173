#!/usr/bin/env bash
# npm run bench:setup: the reference packages the benchmarks compare with and the MCP Inspector the
# MCP tests use as a second client, with the Node 22 it needs (test/bench/peers), and
# the programs the search benchmark runs directly and grep/find use as fast paths: ripgrep and fd
# (Debian: fd-find), installed with apt where that works (as root), never downloaded otherwise.
set -euo pipefail
cd "$(dirname "$0")"
npm --prefix peers install --no-audit --no-fund
missing=()
command -v rg >/dev/null || missing+=(ripgrep)
command -v fdfind >/dev/null || command -v fd >/dev/null || missing+=(fd-find)
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
	apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
		echo "bench:setup: could not install ${missing[*]}; the search benchmark and the fast-path tests skip what needs them" >&2
else
	echo "bench:setup: ${missing[*]} not installed (install them with your package manager); the search benchmark and the fast-path tests skip what needs them" >&2
fi
