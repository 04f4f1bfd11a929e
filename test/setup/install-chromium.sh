#!/usr/bin/env bash
# Installs Debian's chromium (headless browser of test/integration/console), idempotently.
# Needs root (apt); a no-op when `chromium` is already on the PATH.
set -euo pipefail

log() { printf '[install-chromium] %s\n' "$*" >&2; }
if command -v chromium >/dev/null; then
  log "present ($(chromium --version 2>/dev/null || echo chromium))"
  exit 0
fi
[ "$(id -u)" = 0 ] || { log "ERROR: chromium is missing and apt needs root"; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
log "installed ($(chromium --version 2>/dev/null || echo chromium))"
