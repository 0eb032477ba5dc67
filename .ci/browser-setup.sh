#!/usr/bin/env bash
# Make Debian's chromium available for tests/browser (Playwright drives /usr/bin/chromium; its own browser
# downloads cannot be reached from these machines, so `playwright install` is never run).
# Idempotent: does nothing when /usr/bin/chromium exists. Always exits 0: if apt is impossible (not root,
# no network, not Debian) the browser tests skip themselves with a reason instead of failing the run.
set -u

if [ -x /usr/bin/chromium ]; then
    echo "browser-setup: /usr/bin/chromium present"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "browser-setup: no apt-get; browser tests will be skipped"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "browser-setup: not root and no passwordless sudo; browser tests will be skipped"
        exit 0
    fi
fi
export DEBIAN_FRONTEND=noninteractive
if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium; then
    echo "browser-setup: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
else
    echo "browser-setup: apt-get failed; browser tests will be skipped"
fi
exit 0
