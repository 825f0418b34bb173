#!/usr/bin/env bash
# npm run compat:setup: what `npm run compat` compares with, installed under test/compat/.cache
# (never committed, not part of CI):
# - every reference release in releases.txt, each in its own folder, without install scripts;
# - Node 22 from npm's `node` package, for releases whose `engines` need it.
# Needs the npm registry. Safe to run again: an installed release is kept.
set -euo pipefail
cd "$(dirname "$0")"
cache=.cache
mkdir -p "$cache/releases" "$cache/node22"
if [ ! -x "$cache/node22/node_modules/.bin/node" ]; then
	echo "compat:setup: Node 22 (npm package node@22)"
	[ -f "$cache/node22/package.json" ] || echo '{"private":true}' >"$cache/node22/package.json"
	npm --prefix "$cache/node22" install node@22 --no-audit --no-fund --loglevel=error >/dev/null
fi
# install SPEC FOLDER: SPEC alone in FOLDER (a package.json of its own), without install scripts;
# an installed one is kept. Fails when npm does.
install() {
	if [ -f "$2/node_modules/${1%@*}/package.json" ]; then return 0; fi
	echo "compat:setup: $1"
	mkdir -p "$2"
	echo '{"private":true}' >"$2/package.json"
	npm --prefix "$2" install "$1" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
}
specs() { grep -v '^\s*#' "$1" | grep -v '^\s*$'; }

specs releases.txt | while read -r spec; do
	folder="$cache/releases/${spec//\//+}"
	[ -f "$folder/node_modules/${spec%@*}/package.json" ] && continue
	install "$spec" "$folder" || { echo "compat:setup: could not install $spec" >&2; continue; }
	# A release asks for its sibling packages (pi-ai, pi-tui, ...) with caret ranges, which today
	# resolve to newer siblings that some releases do not work with: pin them to the release's own.
	siblings=$(node -e '
		const [dir, name] = process.argv.slice(1);
		const m = require(require("path").resolve(dir, "node_modules", name, "package.json"));
		const scope = name.split("/")[0];
		console.log(Object.entries(m.dependencies ?? {}).filter(([d, r]) => d.startsWith(scope + "/") && r.replace(/^[\^~]/, "") === m.version).map(([d]) => d + "@" + m.version).join(" "));
	' "$folder" "${spec%@*}")
	if [ -n "$siblings" ]; then
		# shellcheck disable=SC2086
		npm --prefix "$folder" install "$spec" $siblings --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null ||
			echo "compat:setup: could not pin the siblings of $spec ($siblings)" >&2
	fi
done

# Corpus: the third-party pi packages in corpus.txt, each in its own folder (with its dependencies
# and, as npm installs them, its peers), without install scripts.
mkdir -p "$cache/corpus"
specs corpus.txt | while read -r spec; do
	install "$spec" "$cache/corpus/${spec//\//+}" || echo "compat:setup: could not install $spec" >&2
done
