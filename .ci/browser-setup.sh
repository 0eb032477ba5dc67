#!/usr/bin/env bash
# Make Debian's chromium available for tests/browser (Playwright drives /usr/bin/chromium; its own browser
# downloads cannot be reached from these machines, so `playwright install` is never run), and Debian's Noto CJK
# fonts (fonts-noto-cjk) for the Chinese labs' screenshots: a new machine has only DejaVu, which has no Chinese.
# Idempotent: does nothing when both are there. Always exits 0: if apt is impossible (not root, no network, not
# Debian) the browser tests (or only the Chinese screenshots) skip themselves with a reason instead of failing.
set -u

want=""
if [ -x /usr/bin/chromium ]; then
    echo "browser-setup: /usr/bin/chromium present"
else
    want=" chromium"
fi
if command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]; then
    echo "browser-setup: a Chinese font is present"
else
    want="$want fonts-noto-cjk"
fi
if [ -z "$want" ]; then
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
# shellcheck disable=SC2086  # $want is a list of package names
if $SUDO apt-get update -qq && $SUDO apt-get install -y -qq $want; then
    echo "browser-setup: installed$want ($(/usr/bin/chromium --version 2>/dev/null || echo no chromium))"
else
    echo "browser-setup: apt-get install$want failed; the tests that need them will be skipped"
fi
exit 0
