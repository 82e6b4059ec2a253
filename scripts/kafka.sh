#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft, broker+controller in one JVM) for development and CI,
# without Docker: the broker's jars come from Maven Central through `mvn`, cached per version.
#
#   scripts/kafka.sh start|stop|status
#
# Environment (defaults in brackets):
#   KAFKA_VERSION        Kafka release to resolve [4.3.1]
#   KAFKA_PORT           client listener on 127.0.0.1 [19092]; the controller listens on PORT+1
#   KAFKA_CACHE_DIR      resolved jars, per version [<repo>/.cache/kafka]
#   KAFKA_DATA_DIR       server.properties, cluster id, partitions, pid file, log [$KAFKA_CACHE_DIR/data]
#   KAFKA_HEAP_OPTS      JVM heap [-Xms256m -Xmx512m]
#   KAFKA_START_TIMEOUT  seconds to wait for the port [90]
#   KAFKA_STOP_TIMEOUT   seconds to wait for a clean exit before SIGKILL [60]
set -euo pipefail

REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# 4.4.0 is the newest on Maven Central, but its kafka-tools-api artifact is missing there, so
# the broker cannot be resolved; 4.3.1 is the newest complete release.
KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
SCALA_VERSION="2.13"
# log4j2 is what the Kafka 4.x distribution ships; the jars on Maven Central bind no logger.
LOG4J_VERSION="2.24.3"
DEPENDENCY_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
KAFKA_PORT="${KAFKA_PORT:-19092}"
CONTROLLER_PORT="$((KAFKA_PORT + 1))"
CACHE_DIR="${KAFKA_CACHE_DIR:-$REPO_DIR/.cache/kafka}"
DATA_DIR="${KAFKA_DATA_DIR:-$CACHE_DIR/data}"
# Absolute paths: the pid check matches them against the broker's command line.
[[ "$CACHE_DIR" == /* ]] || CACHE_DIR="$PWD/$CACHE_DIR"
[[ "$DATA_DIR" == /* ]] || DATA_DIR="$PWD/$DATA_DIR"
DIST_DIR="$CACHE_DIR/dist/$KAFKA_VERSION"
LIB_DIR="$DIST_DIR/lib"
PID_FILE="$DATA_DIR/kafka.pid"
LOG_FILE="$DATA_DIR/kafka.log"
PROPS_FILE="$DATA_DIR/server.properties"
BOOTSTRAP_FILE="$DATA_DIR/bootstrap"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-60}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

say() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Running means: the pid in the pid file is alive and is our broker for this data dir, so a
# recycled pid never makes `stop` kill a stranger.
running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$PROPS_FILE" || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

check_java() {
  command -v "$JAVA" >/dev/null || die "java not found (Java 17+ is needed; set JAVA_HOME)"
  local major
  major="$("$JAVA" -version 2>&1 | sed -nE 's/.*version "([0-9]+).*/\1/p' | head -n1)"
  [[ -n "$major" && "$major" -ge 17 ]] || die "Kafka $KAFKA_VERSION needs Java 17+, found: $major"
}

write_pom() {
  cat >"$1" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.dev</groupId>
  <artifactId>kafka-broker-runtime</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_$SCALA_VERSION</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <!-- Kafka logs through slf4j 1.7, so the 1.x binding, not log4j-slf4j2-impl -->
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
}

# Resolves once per version; the lock keeps two parallel first starts from racing on lib/.
resolve() {
  [[ -f "$DIST_DIR/.resolved" ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (Maven resolves the broker from Maven Central)"
  mkdir -p "$DIST_DIR"
  exec 9>"$DIST_DIR/.lock"
  flock 9
  if [[ ! -f "$DIST_DIR/.resolved" ]]; then
    say "resolving Kafka $KAFKA_VERSION from Maven Central (first time only, may take minutes)..."
    write_pom "$DIST_DIR/pom.xml"
    rm -rf "$LIB_DIR.tmp"
    if ! mvn -B -f "$DIST_DIR/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
      -DincludeScope=runtime -DoutputDirectory="$LIB_DIR.tmp" >"$DIST_DIR/mvn.log" 2>&1; then
      tail -n 30 "$DIST_DIR/mvn.log" >&2
      die "Maven could not resolve Kafka $KAFKA_VERSION (full log: $DIST_DIR/mvn.log)"
    fi
    rm -rf "$LIB_DIR"
    mv "$LIB_DIR.tmp" "$LIB_DIR"
    touch "$DIST_DIR/.resolved"
    say "resolved $(find "$LIB_DIR" -name '*.jar' | wc -l) jars into $LIB_DIR"
  fi
  exec 9>&-
}

write_config() {
  cat >"$DATA_DIR/log4j2.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
# Per-request and state-change chatter drowns the lines that explain a failed start.
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
  cat >"$PROPS_FILE" <<EOF
# Written by scripts/kafka.sh on every start; edits here are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DATA_DIR/kraft-logs
# Topics are created on purpose (as in production), never by a typo in a producer.
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Few internal partitions: a fresh data dir per test run creates them all on first use.
offsets.topic.num.partitions=3
transaction.state.log.num.partitions=3
# Consumer groups in tests join at once instead of waiting 3 s for more members.
group.initial.rebalance.delay.ms=0
# Two shared cores: the default thread pools only add contention.
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
EOF
}

# The cluster id is made once per data dir and kept, so formatting is repeatable.
format_storage() {
  [[ -f "$DATA_DIR/kraft-logs/meta.properties" ]] && return 0
  if [[ ! -s "$DATA_DIR/cluster.id" ]]; then
    "$JAVA" -cp "$LIB_DIR/*" kafka.tools.StorageTool random-uuid >"$DATA_DIR/cluster.id.tmp" 2>/dev/null \
      || die "could not generate a cluster id"
    mv "$DATA_DIR/cluster.id.tmp" "$DATA_DIR/cluster.id"
  fi
  "$JAVA" -Dlog4j2.configurationFile="$DATA_DIR/log4j2.properties" -cp "$LIB_DIR/*" \
    kafka.tools.StorageTool format -t "$(cat "$DATA_DIR/cluster.id")" -c "$PROPS_FILE" \
    >"$DATA_DIR/format.log" 2>&1 || { cat "$DATA_DIR/format.log" >&2; die "storage format failed"; }
}

wait_for_port() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT))
  until port_open "$KAFKA_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      die "broker exited during start (log: $LOG_FILE)"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 40 "$LOG_FILE" >&2 || true
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$PID_FILE"
      die "broker did not accept connections on 127.0.0.1:$KAFKA_PORT within ${START_TIMEOUT}s (log: $LOG_FILE)"
    fi
    sleep 0.2
  done
}

cmd_start() {
  local pid
  if pid="$(running_pid)"; then
    say "already running (pid $pid)"
    cat "$BOOTSTRAP_FILE"
    return 0
  fi
  for port in "$KAFKA_PORT" "$CONTROLLER_PORT"; do
    ! port_open "$port" || die "port $port on 127.0.0.1 is already in use by another process (set KAFKA_PORT)"
  done
  check_java
  resolve
  mkdir -p "$DATA_DIR"
  write_config
  format_storage
  [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.previous"
  # setsid + closed stdio: the broker outlives this script and never holds the caller's pipes.
  # shellcheck disable=SC2086
  setsid "$JAVA" ${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true -Dlog4j2.configurationFile="$DATA_DIR/log4j2.properties" \
    -cp "$LIB_DIR/*" kafka.Kafka "$PROPS_FILE" </dev/null >"$LOG_FILE" 2>&1 &
  pid=$!
  echo "$pid" >"$PID_FILE"
  wait_for_port "$pid"
  echo "127.0.0.1:$KAFKA_PORT" >"$BOOTSTRAP_FILE"
  say "Kafka $KAFKA_VERSION started (pid $pid, data $DATA_DIR)"
  cat "$BOOTSTRAP_FILE"
}

cmd_stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PID_FILE"
    say "not running"
    return 0
  fi
  kill -TERM "$pid"
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "no clean exit within ${STOP_TIMEOUT}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  rm -f "$PID_FILE"
  say "stopped (pid $pid)"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    say "running (pid $pid, data $DATA_DIR)"
    cat "$BOOTSTRAP_FILE" 2>/dev/null || true
    return 0
  fi
  say "not running (data $DATA_DIR)"
  return 1
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
