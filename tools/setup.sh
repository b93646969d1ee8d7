#!/bin/sh
# Installs what a fresh clone lacks, and nothing when everything is in place. `--browser` (the
# test suite's) also installs Debian's chromium for the browser tests.
# Runs under whatever node is on PATH; after the root install, node_modules/.bin/node is Node 24
# and every later step (including the functions install, so firebase-admin 14 resolves) uses it.
set -e
cd "$(dirname "$0")/.."

stale() { [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; }

if [ ! -x node_modules/.bin/node ] || stale .; then
  echo "setup: installing the stack tools (first run)"
  # firebase-tools' optional re2 takes minutes to compile and nothing here needs it.
  npm ci --omit=optional --no-audit --no-fund --loglevel=error
fi
PATH="$PWD/node_modules/.bin:$PATH"
export PATH
if stale functions; then
  echo "setup: installing the functions (first run)"
  # npm install, not npm ci: the registry here lacks the other platforms' optional bindings of
  # one dev dependency, which npm ci insists on finding in the lock file. The lock still pins.
  (cd functions && npm install --no-audit --no-fund --loglevel=error)
fi
if [ "${1:-}" = "--browser" ] && [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  echo "setup: installing Debian's chromium for the browser tests (first run)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 ||
    { $SUDO apt-get update -q >/dev/null && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }
fi
