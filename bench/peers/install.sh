#!/bin/sh
# Installs the peer language servers of bench/peers.py into a cache folder outside
# the repository, and prints that folder. An install that already has the wanted
# versions is reused as it is.
#   yaml-language-server: the newest 1.x from 1.25 on; @taplo/lsp: 0.8.x.
set -eu
dir="${WFLS_BENCH_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/wfls-bench-peers}"
wanted() {  # wanted PACKAGE PATTERN: is an installed version matching PATTERN there?
	manifest="$dir/node_modules/$1/package.json"
	[ -f "$manifest" ] && node -e '
		const v = require(process.argv[1]).version;
		process.exit(new RegExp(process.argv[2]).test(v) ? 0 : 1);
	' "$manifest" "$2"
}
if ! wanted yaml-language-server '^1\.(2[5-9]|[3-9][0-9])\.' || ! wanted @taplo/lsp '^0\.8\.'; then
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{ "private": true }' >"$dir/package.json"
	echo "installing the peer servers into $dir" >&2
	(cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
		'yaml-language-server@>=1.25.0 <2' '@taplo/lsp@~0.8.0' >&2)
fi
echo "$dir"
