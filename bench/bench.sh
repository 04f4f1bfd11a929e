#!/usr/bin/env bash
# `npm run bench`: bench/run.ts on the Node.js line Runnel supports, with what
# it needs checked first.
#
#   bash bench/bench.sh [bench/run.ts options]     (npm run bench -- [options])
#   bash bench/bench.sh --print-command [options]  checks, then prints the command it would run
#
# - Node: cli/node-lts.sh puts Node 26 first on PATH (fetched once into
#   .cache/node when the PATH's node is older), as ./runnel and test/run-all.sh
#   do. The brokers the bench starts run on the bench's own node
#   (process.execPath), so they get Node 26 too.
# - Prerequisites: redis-server, kcat, a JDK (java, javac) and the Kafka 4.x
#   jars in .cache/java/lib (BENCH_JAVA_LIB overrides the folder); all come from
#   test/setup/install.sh. When one is missing the bench stops at once with one
#   line that names them and that command.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../cli/node-lts.sh
source "$ROOT/cli/node-lts.sh"

# bench_missing ROOT: prints what the bench needs and does not find (nothing when all is there).
bench_missing() {
  local lib="${BENCH_JAVA_LIB:-$1/.cache/java/lib}" missing=() c j
  for c in redis-server kcat java javac; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  for j in kafka-clients kafka-tools kafka_2.13; do
    compgen -G "$lib/$j-[0-9]*.jar" >/dev/null || { missing+=("the Kafka 4.x jars in ${lib#"$1"/}"); break; }
  done
  if [ "${#missing[@]}" -gt 0 ]; then local IFS=','; echo "${missing[*]}" | sed 's/,/, /g'; fi
}

missing="$(bench_missing "$ROOT")"
if [ -n "$missing" ]; then
  echo "bench: missing ${missing}: run 'bash test/setup/install.sh' (as root) first" >&2
  exit 1
fi
runnel_use_node_lts "$ROOT"

cmd=(node --enable-source-maps --import ./bench/lib/ts-loader.mjs bench/run.ts)
if [ "${1:-}" = "--print-command" ]; then
  shift
  echo "$(command -v node) ${cmd[*]:1} $*"
  exit 0
fi
cd "$ROOT"
npm run build
npx tsc -p bench/tsconfig.json
exec "${cmd[@]}" "$@"
