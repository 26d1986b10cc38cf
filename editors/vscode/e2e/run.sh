#!/usr/bin/env bash
# The VS Code end-to-end test: the packaged extension in a real VS Code
# (code-server) driven by a headless Chromium.
#
#   run.sh --check         prints why the test cannot run here and exits 1,
#                          or exits 0 silently when it can
#   run.sh SERVER [ARGS]   installs what is missing into the cache (see
#                          install.sh), packages the extension and runs the
#                          checks with SERVER as wfls.server.path; ARGS go to
#                          main.mjs (--only NAME, --keep)
#
# Needs npm (for the extension's own build), a C++ compiler (code-server's
# native modules are built on install) and the shared libraries Chromium
# links against.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
extension="$(dirname "$here")"

missing() {
  command -v npm >/dev/null 2>&1 || { echo "npm not found"; return; }
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || { echo "no C++ compiler (c++ or g++)"; return; }
  local lib libs
  libs="$(/sbin/ldconfig -p 2>/dev/null || true)"
  for lib in libnss3.so libnssutil3.so libnspr4.so libexpat.so.1; do
    if ! grep -qF "$lib" <<<"$libs"; then
      echo "the Chromium library $lib is not installed (Debian: apt-get install libnss3 libexpat1)"
      return
    fi
  done
}

if [[ "${1:-}" == "--check" ]]; then
  reason="$(missing)"
  [[ -z "$reason" ]] || { echo "$reason"; exit 1; }
  exit 0
fi

server="${1:?usage: run.sh SERVER [--only NAME] [--keep]}"
shift
reason="$(missing)"
[[ -z "$reason" ]] || { echo "e2e: cannot run: $reason" >&2; exit 1; }

cache="${WFLS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wfls-e2e}"
mkdir -p "$cache"
work="$(mktemp -d "${TMPDIR:-/tmp}/wfls-e2e.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log="$cache/install.log"
started=$SECONDS
if ! "$here/install.sh" >"$work/paths" 2>"$log"; then
  echo "e2e: installing code-server and the browser failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
if ((SECONDS - started > 5)); then
  echo "e2e: installed code-server and the browser into $cache in $((SECONDS - started)) s"
fi

# shellcheck source=/dev/null
source "$work/paths"
# The .vsix as `npm run package` makes it (vsce runs the build first).
(cd "$extension" && node node_modules/@vscode/vsce/vsce package --no-dependencies -o "$work/wfls.vsix" >"$work/vsce.log" 2>&1) || {
  cat "$work/vsce.log" >&2
  exit 1
}

"$NODE" "$here/main.mjs" --code-server "$CODE_SERVER" --browser "$BROWSER" \
  --vsix "$work/wfls.vsix" --server "$server" --work "$work" "$@"
