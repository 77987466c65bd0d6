#!/usr/bin/env bash
# The browser test (tests/ui) drives the Debian Chromium through Playwright (Playwright
# never downloads a browser). This installs it once: a no-op when the browser is already
# there, so `make test` and `.ci/run` both call it on every run.
#
#   WOVE_CHROMIUM      the browser's path (default /usr/bin/chromium), as the test reads it
#   WOVE_SKIP_BROWSER  1: the browser test is skipped explicitly, so install nothing
#
# Installs with apt-get as root, or through `sudo -n` when that works without a password;
# otherwise it stops with the command to run (exit 1), so the test run stops before the
# browser test would fail on the missing browser.
set -euo pipefail
CHROMIUM="${WOVE_CHROMIUM:-/usr/bin/chromium}"
PACKAGES=(chromium chromium-driver)

if [ "${WOVE_SKIP_BROWSER:-}" = "1" ]; then
    exit 0
fi
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    echo "install-browser: $CHROMIUM not found and not root: run" \
         "\`sudo apt-get install -y --no-install-recommends ${PACKAGES[*]}\`," \
         "or set WOVE_SKIP_BROWSER=1 to skip the browser test" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: $CHROMIUM not found and no apt-get: install Chromium and set" \
         "WOVE_CHROMIUM to its path, or set WOVE_SKIP_BROWSER=1 to skip the browser test" >&2
    exit 1
fi
echo "install-browser: installing ${PACKAGES[*]} (the browser test's system packages)" >&2
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
if [ ! -x "$CHROMIUM" ]; then
    echo "install-browser: apt-get installed ${PACKAGES[*]} but $CHROMIUM is still missing;" \
         "set WOVE_CHROMIUM to the browser's path" >&2
    exit 1
fi
