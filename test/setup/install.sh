#!/usr/bin/env bash
# Installs everything the Runnel test suite needs, idempotently.
#
#   - Debian packages: redis-server + redis-tools (redis-cli), kcat (bookworm)
#     and valkey-server + valkey-tools (valkey-cli; bookworm-backports). The
#     CLIs drive the Redis Cluster tests (--cluster create/reshard/...).
#     Service auto-start is suppressed / undone: tests start their own servers
#     on free ports.
#   - Python venv at .cache/venv with confluent-kafka, deltalake, pyarrow, polars
#     (polars: the README quick start's query of the archived topic).
#   - Apache Kafka 4.x jars (tools, clients, broker + runtime deps + log4j2
#     binding) in .cache/java/lib, via Maven and test/setup/java/pom.xml.
#   - npm clients the tests drive (@confluentinc/schemaregistry) in
#     .cache/npm-clients, from test/setup/npm-clients.
#
# Fast when everything is present (stamp files keyed on the pinned versions).
# Meant to run as root on Debian bookworm (CI and developer machines); as
# non-root it only checks the Debian packages and tells what is missing.
# Exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="$ROOT/.cache"
mkdir -p "$CACHE"

# Pinned versions. Bump here; the stamps make the next run reinstall.
PY_REQS=('confluent-kafka[avro,json,protobuf,schemaregistry]==2.16.1' jsonschema==4.26.0 protobuf==7.36.2 googleapis-common-protos==1.76.0 fastavro==1.13.1 avro==1.12.2 attrs==26.1.0 cachetools==8.0.3 httpx2==2.17.0 authlib==1.9.10 requests==2.34.2 deltalake==1.6.6 pyarrow==26.0.1 polars==2.1.0)
POM="$ROOT/test/setup/java/pom.xml"

log() { printf '[install] %s\n' "$*" >&2; }
die() { printf '[install] ERROR: %s\n' "$*" >&2; exit 1; }
t0=$(date +%s)

# ---------------------------------------------------------------- Debian ---
BACKPORTS_LIST=/etc/apt/sources.list.d/backports.list
BACKPORTS_LINE='deb http://deb.debian.org/debian bookworm-backports main'

have_cmd() { command -v "$1" >/dev/null 2>&1; }

apt_updated=0
apt_update() {
  if [ "$apt_updated" = 0 ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -q -o Dpkg::Use-Pty=0 >/dev/null \
      || die "apt-get update failed"
    apt_updated=1
  fi
}

# Backports index present in the local apt lists?
have_backports_index() {
  ls /var/lib/apt/lists/ 2>/dev/null | grep -q 'bookworm-backports_main_binary'
}

apt_install() { # apt_install [-t release] pkg...
  local rel=()
  if [ "${1:-}" = "-t" ]; then rel=(-t "$2"); shift 2; fi
  # Stop postinst scripts from starting services (the tests start their own).
  # Keep an existing policy-rc.d, otherwise install a temporary one.
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  local rc=0
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 \
    --no-install-recommends "${rel[@]}" "$@" >/dev/null || rc=$?
  if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  return $rc
}

# Stop/disable a system service if the package started one anyway.
quiesce_service() {
  local svc="$1"
  if have_cmd systemctl && [ -d /run/systemd/system ]; then
    systemctl disable --now "$svc" >/dev/null 2>&1 || true
  elif have_cmd service; then
    service "$svc" stop >/dev/null 2>&1 || true
  fi
  if have_cmd update-rc.d; then update-rc.d "$svc" disable >/dev/null 2>&1 || true; fi
}

install_debian() {
  local missing=()
  have_cmd redis-server || missing+=(redis-server)
  have_cmd redis-cli || missing+=(redis-tools)      # normally pulled in by redis-server
  have_cmd kcat || missing+=(kcat)
  local valkey_missing=()                            # from bookworm-backports
  have_cmd valkey-server || valkey_missing+=(valkey-server)
  have_cmd valkey-cli || valkey_missing+=(valkey-tools)  # normally pulled in by valkey-server

  if [ ${#missing[@]} = 0 ] && [ ${#valkey_missing[@]} = 0 ]; then
    log "debian packages: present ($(redis-server --version | grep -o 'v=[0-9.]*' | head -1 | sed 's/v=/redis /'), $(valkey-server --version | grep -o 'v=[0-9.]*' | head -1 | sed 's/v=/valkey /'), redis-cli, valkey-cli, kcat)"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages (${missing[*]} ${valkey_missing[*]}); run this script as root"
  fi

  if [ ${#missing[@]} -gt 0 ]; then
    log "apt install ${missing[*]}"
    if ! apt_install "${missing[@]}"; then
      apt_update
      apt_install "${missing[@]}" || die "apt-get install ${missing[*]} failed"
    fi
  fi

  if [ ${#valkey_missing[@]} -gt 0 ]; then
    if ! grep -qsF "$BACKPORTS_LINE" "$BACKPORTS_LIST"; then
      log "adding bookworm-backports to $BACKPORTS_LIST"
      echo "$BACKPORTS_LINE" >>"$BACKPORTS_LIST"
      apt_updated=0
      apt_update
    elif ! have_backports_index; then
      apt_update
    fi
    log "apt install -t bookworm-backports ${valkey_missing[*]}"
    if ! apt_install -t bookworm-backports "${valkey_missing[@]}"; then
      apt_update
      apt_install -t bookworm-backports "${valkey_missing[@]}" || die "apt-get install ${valkey_missing[*]} failed"
    fi
  fi

  quiesce_service redis-server
  quiesce_service valkey-server
  have_cmd redis-server || die "redis-server still missing after install"
  have_cmd valkey-server || die "valkey-server still missing after install"
  have_cmd redis-cli || die "redis-cli (redis-tools) still missing after install"
  have_cmd valkey-cli || die "valkey-cli (valkey-tools) still missing after install"
  have_cmd kcat || die "kcat still missing after install"
  log "debian packages: installed"
}

# ---------------------------------------------------------------- Python ---
install_python() {
  local venv="$CACHE/venv" stamp="$CACHE/venv/.runnel-stamp"
  local want="${PY_REQS[*]}"
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
     && "$venv/bin/python" -c 'import confluent_kafka, deltalake, pyarrow, polars' 2>/dev/null; then
    log "python venv: present ($want)"
    return 0
  fi
  local py
  py="$(command -v python3 || true)"
  [ -n "$py" ] || die "python3 not found"
  if [ ! -x "$venv/bin/python" ]; then
    log "python venv: creating $venv with $("$py" --version 2>&1)"
    "$py" -m venv "$venv" || die "python3 -m venv failed"
  fi
  log "python venv: pip install $want"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${PY_REQS[@]}" \
    || die "pip install failed"
  "$venv/bin/python" -c 'import confluent_kafka, deltalake, pyarrow, polars' \
    || die "python packages do not import"
  echo "$want" >"$stamp"
  log "python venv: ok"
}

# ------------------------------------------------------------------ Java ---
# The jars the tests need directly: tools/clients/broker, plus the unmodified
# applications of test/integration/apps (Streams, Connect file connectors, MM2).
JAVA_JARS=(kafka-tools kafka_2.13 kafka-clients kafka-streams connect-runtime connect-file connect-mirror connect-mirror-client)
have_java_jars() { # have_java_jars dir
  local j
  for j in "${JAVA_JARS[@]}"; do
    compgen -G "$1/$j-[0-9]*.jar" >/dev/null || return 1
  done
}

install_java() {
  local lib="$CACHE/java/lib" stamp="$CACHE/java/lib/.runnel-stamp"
  have_cmd java || die "java not found (need Java 17+)"
  have_cmd javac || die "javac not found (need a JDK 17+)"
  local want
  want="$(sha256sum "$POM" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && have_java_jars "$lib"; then
    log "java jars: present ($(ls "$lib" | grep -o '^kafka_2.13-.*\.jar' | sed 's/\.jar$//'), $(ls "$lib" | grep -c '\.jar$') jars)"
    return 0
  fi
  have_cmd mvn || die "mvn not found (need Maven 3)"
  log "java jars: mvn dependency:copy-dependencies -> $lib"
  rm -rf "$lib.tmp"
  mkdir -p "$lib.tmp"
  local mvnlog="$CACHE/java/mvn.log"
  if ! mvn -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$lib.tmp" >"$mvnlog" 2>&1; then
    tail -40 "$mvnlog" >&2
    die "maven failed to fetch the Kafka jars (full log: $mvnlog)"
  fi
  have_java_jars "$lib.tmp" || die "maven ran but the Kafka jars are missing"
  rm -rf "$lib"
  mv "$lib.tmp" "$lib"
  echo "$want" >"$stamp"
  log "java jars: ok ($(ls "$lib" | grep -c '\.jar$') jars)"
}

# ------------------------------------------------------ npm test clients ---
# Third-party npm clients the tests drive but the project does not depend on
# (@confluentinc/schemaregistry pulls ~180 packages, KMS SDKs among them):
# test/setup/npm-clients/{package.json,package-lock.json} -> .cache/npm-clients.
install_npm_clients() {
  local src="$ROOT/test/setup/npm-clients" dir="$CACHE/npm-clients"
  local stamp="$dir/.runnel-stamp" want
  want="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/node_modules/@confluentinc/schemaregistry" ]; then
    log "npm test clients: present"
    return 0
  fi
  have_cmd npm || die "npm not found (run through test/run-all.sh, which puts Node 26 first)"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  log "npm test clients: npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts >"$dir/npm.log" 2>&1) || { tail -20 "$dir/npm.log" >&2; die "npm ci of the test clients failed (log: $dir/npm.log)"; }
  echo "$want" >"$stamp"
  log "npm test clients: ok"
}

install_debian
install_python
install_java
install_npm_clients
log "done in $(( $(date +%s) - t0 ))s"
