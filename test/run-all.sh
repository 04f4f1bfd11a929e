#!/usr/bin/env bash
# The one test command (`npm test`, and CI via .ci/run):
#   1. test/setup/install.sh     redis, valkey (+ redis-cli, valkey-cli), kcat, python venv, Kafka jars
#      test/setup/install-archiver.sh  S3 server (moto, If-None-Match enforced), deltalake
#      test/setup/install-deploy-tools.sh  helm, kubeconform, hadolint, check-jsonschema (deploy/ checks)
#      test/setup/install-chromium.sh  headless chromium (web console test)
#      cli/node-lts.sh           Node.js 26 (Active LTS) first on PATH; fetched once into .cache/node if older
#   2. npm ci                    only when package-lock.json (or the Node major) changed
#   3. npm run build             dist/ (the integration tests run dist/cli/runnel.js)
#      tsc -p tsconfig.test.json  test/ type-checked with the product code
# then the phases (RUNNEL_TEST_PHASES, default "unit redis valkey cluster bench"):
#   unit     vitest --project unit
#   redis    vitest --project integration with RUNNEL_TEST_BACKEND=redis (single redis-server 7)
#   valkey   vitest --project integration with RUNNEL_TEST_BACKEND=valkey (single valkey-server 8)
#            (RUNNEL_SKIP_PERF=1: the 1M-record perf test runs on redis only;
#             $VALKEY_SKIP: flavour-independent slow suites run on redis only;
#             RUNNEL_VALKEY_FILTER='<vitest -t pattern>' narrows this pass further)
#            Both single-node passes skip the tests that start their own cluster.
#   cluster  a real Redis Cluster (3 primaries + 3 replicas, test/helpers/redis-cluster.ts):
#            integration-redis-cluster   RUNNEL_TEST_BACKEND=redis-cluster over $CLUSTER_SUITES
#            integration-valkey-cluster  RUNNEL_TEST_BACKEND=valkey-cluster over $VALKEY_CLUSTER_SUITES
#            (both with RUNNEL_SKIP_PERF=1)
#   bench    npm run bench -- --quick (smoke: each workload must yield a number)
#
# Honoured environment:
#   RUNNEL_TEST_TARGET=runnel|kafka   broker under test (default runnel). With
#                                     kafka the backend passes are the same, so
#                                     the valkey and cluster passes are skipped.
#   RUNNEL_GROUPS=0                   skip the consumer-group parts of the interop tests.
#   RUNNEL_SKIP_INSTALL=1             skip step 1 (you know it is installed).
#   RUNNEL_TEST_PHASES="unit redis valkey cluster bench"  which phases to run.
#   RUNNEL_TEST_JOBS=2                test files run at a time in the single-node passes
#                                     (1: one at a time, as before; SERIAL_FILES always run alone).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

# Test files and folders the cluster phase runs against a Redis Cluster
# (RUNNEL_TEST_BACKEND=redis-cluster): the cluster's own tests (placement,
# resharding, added shard, primary failover, loss window), and the
# broker, client, group, broker-failover and archiver suites, which run
# unchanged on a cluster. Not here, with the reason: stale-leader,
# duplicate-node-id and coordinator-fencing put a TCP relay (or a second
# client) in front of one Redis endpoint; redis-kill, acks and startup-checks
# test one server's persistence and replicas; consumer-groups-tool adds ~50 s
# over what the other group suites prove on a cluster, and so does
# java-verifiable-group (~30 s; the group store on a cluster is proven by the
# KafkaJS, librdkafka and coordinator-failover group suites); test/interop's
# topic-configs and java-tools check config validation and the Java admin
# tools, which never reach the store's cluster logic; test/interop/clients
# (kcat, KafkaJS, librdkafka round trips: codecs, headers, timestamps) is
# protocol-level, and those clients run on a cluster in the group and
# transaction suites here.
CLUSTER_SUITES="test/integration/redis-cluster test/integration/transactions/kafkajs.test.ts test/integration/compaction/kafka-semantics.test.ts test/integration/storage/compaction-store.test.ts test/integration/groups/kafkajs.test.ts test/integration/groups/librdkafka.test.ts test/integration/groups/failover.test.ts test/integration/cluster/failover.test.ts test/integration/cluster/rebalance.test.ts test/integration/idempotent-restart.test.ts test/archiver/integration/lake.test.ts test/archiver/integration/cluster.test.ts test/integration/tiered/replay.test.ts test/integration/schema-registry/redis-store.test.ts"
# The harness's own test (test/integration/redis-cluster/harness.test.ts: start,
# SIGKILL + promotion, reshard, addPrimary + rebalance, restart of every node)
# is left out of CI: the steps the product's cluster suites use (start, SIGKILL
# + promotion in failover and loss-window, reshard and addPrimary + rebalance
# in reshard) fail those suites if the harness breaks, and no suite of the
# cluster phase restarts every node. Run it by hand after changing
# test/helpers/redis-cluster.ts:
#   RUNNEL_TEST_BACKEND=redis-cluster npx vitest run --project integration test/integration/redis-cluster/harness.test.ts
CLUSTER_EXCLUDE=(--exclude 'test/integration/redis-cluster/harness.test.ts')
# The valkey-cluster pass: what depends on the server's cluster behaviour
# (placement, resharding, primary failover, ACL users) and the archiver on a
# cluster. The acks=1 loss-window measurement and the unreachable-cluster
# start-up error run once, on redis-cluster.
VALKEY_CLUSTER_SUITES="test/integration/redis-cluster/placement.test.ts test/integration/redis-cluster/reshard.test.ts test/integration/redis-cluster/failover.test.ts test/integration/redis-cluster/acl.test.ts test/archiver/integration/cluster.test.ts"
# Slow suites whose subject does not depend on the server flavour (Kafka's
# Java tools, the archiver's crash points, group membership churn) run once, on
# redis-server, not again on valkey-server (the suite would pass 25 minutes otherwise).
# Protocol-level suites (config validation, CLI, wire limits, client interop,
# the Kafka applications, security, quotas, metrics, the web console) do not touch what differs
# between the servers either, nor do the broker-level restart, key-namespace,
# lease-failover and transaction-coordinator-failover suites (the storage
# suites, the store contract and partition-side prove the server's side).
# The archiver's lake-fault (S3 500s, 409s, lost commit responses), reset
# (a failed upload behind a pipelined flush) and corrupt-batch stall suites
# test the archiver against the lake and against bad bytes, not the server; its lake suite runs on valkey. The __consumer_offsets
# view (consumer-offsets-topic) and the compaction semantics a consumer sees
# (kafka-semantics) are protocol-level; the group store and the compaction store
# run on valkey in the group, compaction-behaviour and compaction-store suites.
# The partition-burst suite loads the broker's leadership tick, not the server;
# the README quick start runs on the embedded redis-server whatever the backend.
# franz-go's kgo integration tests (test/interop/franz-go.test.ts, ~80 s) are protocol-level.
# The runnel CLI's Kafka-client suites (test/integration/cli/) are protocol-level,
# and so are the clients' transactions v2, KIP-848, online-upgrade, group-config and share-group suites (the group,
# share-partition and transaction stores' contract tests run on valkey) and the typed-lake decode
# suite (typed-registry, which reads the registry's keys, runs on both).
# The tiered-storage suites (test/integration/tiered/) test the broker's lake reads
# and retention over the store contract (whose valkey pass proves the server side);
# the replay suite runs again on the redis-cluster backend (salted keys, per-shard trims).
VALKEY_SKIP=(--exclude 'test/interop/java-tools.test.ts' --exclude 'test/archiver/integration/crash.test.ts' --exclude 'test/integration/groups/java-verifiable-group.test.ts' --exclude 'test/integration/groups/consumer-groups-tool.test.ts'
  --exclude 'test/interop/topic-configs.test.ts' --exclude 'test/integration/cli.test.ts' --exclude 'test/integration/groups/kafkajs.test.ts'
  --exclude 'test/integration/limits/**' --exclude 'test/interop/clients/**' --exclude 'test/integration/admin-tools.test.ts'
  --exclude 'test/integration/describe-configs-secrets.test.ts' --exclude 'test/integration/malformed-input.test.ts'
  --exclude 'test/integration/topic-compression.test.ts' --exclude 'test/integration/apps/**' --exclude 'test/integration/transactions/kafkajs.test.ts'
  --exclude 'test/integration/transactions/copier.test.ts' --exclude 'test/integration/transactions/librdkafka.test.ts' --exclude 'test/integration/transactions/tools.test.ts' --exclude 'test/interop/fetch-sessions.test.ts'
  --exclude 'test/integration/security/**' --exclude 'test/integration/quotas/**' --exclude 'test/integration/observability/**' --exclude 'test/integration/tail-cache.test.ts'
  --exclude 'test/integration/restart.test.ts' --exclude 'test/integration/key-namespace.test.ts' --exclude 'test/integration/cluster/failover.test.ts'
  --exclude 'test/integration/console/**' --exclude 'test/integration/node-lts.test.ts' --exclude 'test/integration/bench-launcher.test.ts' --exclude 'test/integration/transactions/coordinator-failover.test.ts'
  --exclude 'test/archiver/integration/faults.test.ts' --exclude 'test/archiver/integration/stall.test.ts' --exclude 'test/archiver/integration/reset.test.ts' --exclude 'test/archiver/integration/startup.test.ts' --exclude 'test/archiver/integration/timestamps.test.ts' --exclude 'test/archiver/integration/torn-commit.test.ts'
  --exclude 'test/integration/groups/consumer-offsets-topic.test.ts' --exclude 'test/integration/compaction/kafka-semantics.test.ts' --exclude 'test/integration/cluster/partition-burst.test.ts' --exclude 'test/integration/quickstart.test.ts' --exclude 'test/integration/log-format.test.ts' --exclude 'test/integration/status-watch.test.ts'
  --exclude 'test/integration/tiered/**' --exclude 'test/integration/cli/**' --exclude 'test/integration/schema-registry/confluent-python.test.ts' --exclude 'test/integration/schema-registry/acls.test.ts' --exclude 'test/integration/schema-registry/produce-validation.test.ts' --exclude 'test/integration/schema-registry/confluent-js.test.ts'
  --exclude 'test/integration/transactions/java-v2.test.ts' --exclude 'test/integration/transactions/java-v2-two-brokers.test.ts'
  --exclude 'test/integration/groups/java-consumer-protocol.test.ts' --exclude 'test/integration/groups/java-regex-subscription.test.ts' --exclude 'test/integration/groups/librdkafka-consumer-protocol.test.ts'
  --exclude 'test/integration/groups/java-share-consumer.test.ts' --exclude 'test/integration/groups/share-read-committed.test.ts' --exclude 'test/integration/groups/verifiable-share-consumer.test.ts' --exclude 'test/integration/groups/group-configs.test.ts' --exclude 'test/integration/groups/online-upgrade.test.ts'
  --exclude 'test/archiver/integration/typed-serdes.test.ts' --exclude 'test/interop/franz-go.test.ts')
# Tests that start their own Redis Cluster run in the cluster phase only (once per flavour), not in the single-node passes.
SINGLE_NODE_EXCLUDE=(--exclude 'test/integration/redis-cluster/**' --exclude 'test/archiver/integration/cluster.test.ts')
# The single-node passes run $RUNNEL_TEST_JOBS test files at a time (default 2):
# every file starts its own servers on free ports, and most of a file's time is
# spent waiting (client retries, session timeouts, JVM start-up), so two files
# share the 2 cores without slowing each other much (on 2 cores: the redis pass's
# files add up to 770 s and take 464 s). The cluster phases do the same: each
# file starts its own cluster on free ports. The files below measure
# time, memory or CPU, or load the machine themselves; they run alone, one at a
# time, before the others (SERIAL_FILES, excluded from the parallel part).
SERIAL_FILES=(test/integration/limits test/integration/quotas test/integration/cli/quota.test.ts test/integration/storage/redis-tls.test.ts test/archiver/integration/redis-tls.test.ts test/integration/cluster/stale-leader.test.ts test/integration/cluster/partition-burst.test.ts)
SERIAL_EXCLUDE=()
for f in "${SERIAL_FILES[@]}"; do
  if [ -d "$f" ]; then SERIAL_EXCLUDE+=(--exclude "$f/**"); else SERIAL_EXCLUDE+=(--exclude "$f"); fi
done
JOBS="${RUNNEL_TEST_JOBS:-2}"
PARALLEL=()
if [ "$JOBS" -gt 1 ]; then PARALLEL=(--fileParallelism --maxWorkers="$JOBS"); fi

T_START=$(date +%s)
declare -a SUMMARY=()
TOTAL_PASSED=0
TOTAL_FAILED=0
TOTAL_SKIPPED=0
FAILED_PHASES=()
FAILED_TESTS=()

step() { printf '\n=== [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
elapsed() { echo $(( $(date +%s) - $1 ))s; }

# ------------------------------------------------------------------ setup ---
if [ "${RUNNEL_SKIP_INSTALL:-0}" != 1 ]; then
  step "install (test/setup/install.sh)"
  t=$(date +%s)
  # The deploy/ validators (Go builds, their own venv) share nothing with the
  # other installs, so they build alongside them; their log follows.
  deploy_log="$(mktemp)"
  bash test/setup/install-deploy-tools.sh >"$deploy_log" 2>&1 &
  deploy_pid=$!
  bash test/setup/install.sh
  bash test/setup/install-archiver.sh
  bash test/setup/install-chromium.sh
  deploy_rc=0
  wait "$deploy_pid" || deploy_rc=$?
  cat "$deploy_log" >&2
  rm -f "$deploy_log"
  [ "$deploy_rc" = 0 ] || { echo "test/setup/install-deploy-tools.sh failed (exit $deploy_rc)" >&2; exit "$deploy_rc"; }
  SUMMARY+=("install: $(elapsed "$t")")
fi

# Node.js 26, the Active LTS, runs everything below (npm, tsc, vitest, the
# brokers and tools the tests spawn with process.execPath): the node on PATH
# when it is 26 or newer, else a pinned one fetched once into .cache/node.
step "node (cli/node-lts.sh)"
t=$(date +%s)
# shellcheck source=../cli/node-lts.sh
source cli/node-lts.sh
runnel_use_node_lts "$ROOT"
echo "node $(node --version) ($(command -v node)), npm $(npm --version)"
SUMMARY+=("node $(node --version): $(elapsed "$t")")

step "npm dependencies"
t=$(date +%s)
# Keyed on the Node major too: a new Node reinstalls (native addons, engines).
lock_hash="$( (cat package.json package-lock.json 2>/dev/null; node -p 'process.versions.node.split(".")[0]') | sha256sum | cut -d' ' -f1)"
stamp=node_modules/.runnel-npm-stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_hash" ]; then
  echo "node_modules up to date"
elif [ ! -f "$stamp" ] && [ -f node_modules/.package-lock.json ] \
     && [ ! package-lock.json -nt node_modules/.package-lock.json ] \
     && [ ! package.json -nt node_modules/.package-lock.json ]; then
  echo "node_modules up to date (npm's hidden lockfile is current)"
  echo "$lock_hash" >"$stamp"
else
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
  echo "$lock_hash" >"$stamp"
fi
SUMMARY+=("npm deps: $(elapsed "$t")")

step "npm run build"
t=$(date +%s)
npm run build
SUMMARY+=("build: $(elapsed "$t")")

# The tests are TypeScript too: type-checked with the product code (tsconfig.test.json).
step "typecheck test/ (tsc -p tsconfig.test.json)"
t=$(date +%s)
if npx tsc -p tsconfig.test.json; then
  SUMMARY+=("typecheck: $(elapsed "$t")")
else
  SUMMARY+=("typecheck: FAILED ($(elapsed "$t"))")
  FAILED_PHASES+=("typecheck")
fi

# Fresh logs for this run (servers, JVM tools, test artefacts).
rm -rf .cache/test-logs
mkdir -p .cache/test-logs .cache/vitest

# ------------------------------------------------------------------ tests ---
# run_vitest <phase-name> <env...> -- <vitest args...>
run_vitest() {
  local name="$1"; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local json="$ROOT/.cache/vitest/$name.json"
  rm -f "$json"
  step "vitest $name: ${envs[*]:-} npx vitest run $*"
  local t rc=0
  t=$(date +%s)
  env "${envs[@]}" npx vitest run \
    --reporter=default --reporter=json --outputFile.json="$json" "$@" || rc=$?
  local counts="no report"
  if [ -f "$json" ]; then
    counts="$(node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const skipped = (r.numPendingTests || 0) + (r.numTodoTests || 0);
      console.log(`${r.numPassedTests} ${r.numFailedTests} ${skipped}`);
    ' "$json")"
    # The names of failed tests (and the first line of their failure) go into the summary,
    # so the tail of a CI log says what failed.
    while IFS= read -r -d '' line; do
      [ -n "$line" ] && FAILED_TESTS+=("$name: $line")
    done < <(node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      for (const f of r.testResults || []) {
        const file = String(f.name || "").replace(process.cwd() + "/", "");
        if (f.status === "failed" && !(f.assertionResults || []).some((a) => a.status === "failed")) {
          process.stdout.write(`${file}: ${String(f.message || "suite failed").split("\n")[0].slice(0, 300)}\0`);
        }
        for (const a of f.assertionResults || []) {
          if (a.status !== "failed") continue;
          // up to 30 lines: a process-exit failure carries the tail of the process log
          const msg = String((a.failureMessages || [])[0] || "").split("\n").slice(0, 30).map((l) => l.slice(0, 300)).join("\n      ");
          process.stdout.write(`${file} > ${a.fullName}: ${msg}\0`);
        }
      }
    ' "$json")
    read -r p f s <<<"$counts"
    TOTAL_PASSED=$((TOTAL_PASSED + p)); TOTAL_FAILED=$((TOTAL_FAILED + f)); TOTAL_SKIPPED=$((TOTAL_SKIPPED + s))
    counts="$p passed, $f failed, $s skipped"
  fi
  SUMMARY+=("vitest $name: $counts, exit $rc, $(elapsed "$t")")
  if [ "$rc" != 0 ]; then FAILED_PHASES+=("$name"); fi
}

PHASES="${RUNNEL_TEST_PHASES:-unit redis valkey cluster bench}"
TARGET="${RUNNEL_TEST_TARGET:-runnel}"

for phase in $PHASES; do
  case "$phase" in
    unit)
      run_vitest unit RUNNEL_TEST_BACKEND=redis -- --project unit
      ;;
    redis)
      if [ "$JOBS" -gt 1 ]; then
        run_vitest integration-redis-serial RUNNEL_TEST_BACKEND=redis -- --project integration "${SERIAL_FILES[@]}"
        run_vitest integration-redis RUNNEL_TEST_BACKEND=redis -- --project integration "${SINGLE_NODE_EXCLUDE[@]}" "${SERIAL_EXCLUDE[@]}" "${PARALLEL[@]}"
      else
        run_vitest integration-redis RUNNEL_TEST_BACKEND=redis -- --project integration "${SINGLE_NODE_EXCLUDE[@]}"
      fi
      ;;
    valkey)
      if [ "$TARGET" = kafka ]; then
        SUMMARY+=("vitest integration-valkey: skipped (RUNNEL_TEST_TARGET=kafka does not use the backend)")
        continue
      fi
      filter=()
      if [ -n "${RUNNEL_VALKEY_FILTER:-}" ]; then filter=(-t "$RUNNEL_VALKEY_FILTER"); fi
      if [ "$JOBS" -gt 1 ]; then
        run_vitest integration-valkey-serial RUNNEL_TEST_BACKEND=valkey RUNNEL_SKIP_PERF=1 -- --project integration "${SERIAL_FILES[@]}" "${VALKEY_SKIP[@]}" "${filter[@]}"
        run_vitest integration-valkey RUNNEL_TEST_BACKEND=valkey RUNNEL_SKIP_PERF=1 -- --project integration "${SINGLE_NODE_EXCLUDE[@]}" "${VALKEY_SKIP[@]}" "${SERIAL_EXCLUDE[@]}" "${filter[@]}" "${PARALLEL[@]}"
      else
        run_vitest integration-valkey RUNNEL_TEST_BACKEND=valkey RUNNEL_SKIP_PERF=1 -- --project integration "${SINGLE_NODE_EXCLUDE[@]}" "${VALKEY_SKIP[@]}" "${filter[@]}"
      fi
      ;;
    cluster)
      if [ "$TARGET" = kafka ]; then
        SUMMARY+=("vitest integration-redis-cluster, integration-valkey-cluster: skipped (RUNNEL_TEST_TARGET=kafka does not use the backend)")
        continue
      fi
      # shellcheck disable=SC2086  # CLUSTER_SUITES is a space-separated list
      run_vitest integration-redis-cluster RUNNEL_TEST_BACKEND=redis-cluster RUNNEL_SKIP_PERF=1 -- --project integration "${CLUSTER_EXCLUDE[@]}" $CLUSTER_SUITES "${PARALLEL[@]}"
      # shellcheck disable=SC2086
      run_vitest integration-valkey-cluster RUNNEL_TEST_BACKEND=valkey-cluster RUNNEL_SKIP_PERF=1 -- --project integration $VALKEY_CLUSTER_SUITES "${PARALLEL[@]}"
      ;;
    bench)
      # The benchmark's smoke mode: every workload must produce a number (never a speed threshold).
      step "bench smoke: npm run bench -- --quick"
      t=$(date +%s)
      if npm run -s bench -- --quick; then
        SUMMARY+=("bench --quick: every workload produced a number, $(elapsed "$t")")
      else
        SUMMARY+=("bench --quick: FAILED, $(elapsed "$t")")
        FAILED_PHASES+=("bench")
      fi
      ;;
    *)
      echo "unknown phase '$phase' in RUNNEL_TEST_PHASES" >&2
      exit 2
      ;;
  esac
done

# ---------------------------------------------------------------- summary ---
step "summary (target=$TARGET, total $(elapsed "$T_START"))"
for line in "${SUMMARY[@]}"; do echo "  $line"; done
echo "  logs: .cache/test-logs"
for line in "${FAILED_TESTS[@]}"; do echo "  FAILED $line"; done
if [ ${#FAILED_PHASES[@]} -gt 0 ]; then
  echo "  FAILED phases: ${FAILED_PHASES[*]}"
fi
echo "all: $TOTAL_PASSED passed, $TOTAL_FAILED failed, $TOTAL_SKIPPED skipped"
if [ ${#FAILED_PHASES[@]} -gt 0 ] || [ "$TOTAL_FAILED" != 0 ]; then
  exit 1
fi
