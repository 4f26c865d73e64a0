#!/usr/bin/env bash
# Start a throwaway single-node Apache Cassandra on 127.0.0.1 for tsload (idempotent).
#
#   scripts/start_cassandra.sh                  # start (or confirm running), wait for CQL
#   scripts/start_cassandra.sh --install-only   # only fetch and cache the jars
#   scripts/stop_cassandra.sh                   # stop it
#
# The server is org.apache.cassandra:cassandra-all from Maven Central with its runtime
# dependencies (a one-dependency pom and `mvn dependency:copy-dependencies`, ~100 jars, ~70 MB),
# cached under ${TSLOAD_CACHE:-$HOME/.cache/tsload}/cassandra-$version/lib. The version is pinned:
# Maven's "release" of cassandra-all is a 6.0 alpha. It runs on Java 17 with the --add-exports
# and --add-opens that Cassandra's own conf/jvm17-server.options lists, from
# `-cp "conf:lib/*" org.apache.cassandra.service.CassandraDaemon` with a minimal cassandra.yaml
# written here on every start (no JMX, no thrift, no gossip beyond this node). Its data lives under
# $TSLOAD_STATE/cassandra/$CASSANDRA_NAME and survives a restart; CASSANDRA_FRESH=1 wipes it first.
#
# Environment:
#   TSLOAD_CACHE           jar cache                    (default $HOME/.cache/tsload)
#   TSLOAD_STATE           state root                   (default /tmp/tsload)
#   CASSANDRA_VERSION      cassandra-all version        (default 5.0.9)
#   CASSANDRA_NAME         instance name                (default main)
#   CASSANDRA_PORT         CQL native port              (default 9042, Cassandra's own)
#   CASSANDRA_STORAGE_PORT inter-node port              (default 7010: 7000 is often taken)
#   CASSANDRA_XMX          heap size                    (default 1g: the machine is shared)
#   CASSANDRA_JAVA         java binary                  (default: java on PATH, 17 or newer)
#   CASSANDRA_WAIT         seconds to wait for CQL      (default 180)
#   CASSANDRA_FRESH=1      wipe the instance's data before starting
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "start_cassandra: $*" >&2; }

install_only=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--install-only) install_only=1; shift ;;
	*) echo "usage: $0 [--install-only]" >&2; exit 2 ;;
	esac
done

version=${CASSANDRA_VERSION:-5.0.9}
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/cassandra-$version
state=${TSLOAD_STATE:-/tmp/tsload}
name=${CASSANDRA_NAME:-main}
port=${CASSANDRA_PORT:-9042}
storage_port=${CASSANDRA_STORAGE_PORT:-7010}
xmx=${CASSANDRA_XMX:-1g}
java=${CASSANDRA_JAVA:-java}
wait_s=${CASSANDRA_WAIT:-180}
dir=$state/cassandra/$name
pidfile=$dir/cassandra.pid
log=$dir/cassandra.log

# install: the jars of cassandra-all $version and its runtime dependencies into $cache/lib (once;
# a lock keeps two starts from fetching them twice; a finished fetch leaves $cache/lib/.done).
install() {
	[[ -f $cache/lib/.done ]] && return 0
	command -v mvn >/dev/null 2>&1 || apt_install maven
	mkdir -p "$cache"
	exec 8>"$cache/install.lock"
	flock 8
	[[ -f $cache/lib/.done ]] && return 0
	local start
	start=$(date +%s)
	say "fetching org.apache.cassandra:cassandra-all:$version from Maven Central into $cache/lib (once)"
	cat >"$cache/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>tsload</groupId>
  <artifactId>cassandra-server</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
	rm -rf "$cache/lib"
	if ! mvn -q -B -Dstyle.color=never -f "$cache/pom.xml" dependency:copy-dependencies \
		-DincludeScope=runtime -DoutputDirectory="$cache/lib" >"$cache/install.log" 2>&1; then
		say "mvn failed; last lines of $cache/install.log:"
		tail -n 30 "$cache/install.log" >&2
		exit 1
	fi
	[[ -f $cache/lib/cassandra-all-$version.jar ]] || { say "mvn did not produce cassandra-all-$version.jar"; exit 1; }
	touch "$cache/lib/.done"
	say "fetched $(find "$cache/lib" -name '*.jar' | wc -l) jars in $(($(date +%s) - start))s"
}

# cql_up: the CQL port accepts connections (Cassandra opens it last, when it serves queries).
cql_up() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

install
[[ $install_only == 1 ]] && exit 0

# Leave a running server alone (this script's, or whatever answers on the port).
if pid=$(running_pid "$pidfile"); then
	wait_up "$pid" "$wait_s" "$log" "Cassandra $name" cql_up || exit 1
	say "Cassandra $name already running at 127.0.0.1:$port (pid $pid)"
	exit 0
fi
if cql_up; then
	say "a server already listens on 127.0.0.1:$port (not started as instance $name): leaving it alone"
	exit 0
fi

command -v "$java" >/dev/null 2>&1 || apt_install openjdk-17-jre-headless
java_major=$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
if [[ -z $java_major || $java_major -lt 17 ]]; then
	say "Cassandra $version is started on Java 17 here; $java reports: $("$java" -version 2>&1 | head -n1)"
	exit 1
fi

if [[ ${CASSANDRA_FRESH:-0} == 1 ]]; then
	rm -rf "$dir"
fi
mkdir -p "$dir/conf" "$dir/data" "$dir/commitlog" "$dir/saved_caches" "$dir/hints" "$dir/cdc_raw"
cat >"$dir/conf/cassandra.yaml" <<YAML
# Written by scripts/start_cassandra.sh; rewritten on every start.
cluster_name: tsload
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:$storage_port"
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: $storage_port
native_transport_port: $port
start_native_transport: true
data_file_directories:
  - $dir/data
commitlog_directory: $dir/commitlog
saved_caches_directory: $dir/saved_caches
hints_directory: $dir/hints
cdc_raw_directory: $dir/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
# A benchmark file's batches of 1,000 rows are larger than the default warning (5 KiB) and
# failure (50 KiB) thresholds, which exist to protect a cluster from multi-partition batches.
batch_size_warn_threshold: 1MiB
batch_size_fail_threshold: 16MiB
# Snapshots on TRUNCATE/DROP would keep every dropped test table's files on disk.
auto_snapshot: false
# A shared 2-core machine answers slowly: the defaults (2 s for a write, 10 s for a range read)
# would time out requests the loader then retries.
write_request_timeout: 10000ms
read_request_timeout: 10000ms
range_request_timeout: 30000ms
concurrent_reads: 8
concurrent_writes: 8
concurrent_compactors: 1
YAML
cat >"$dir/conf/logback.xml" <<XML
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$dir/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
XML

# The module flags of Cassandra's conf/jvm17-server.options: it reaches into JDK internals
# (direct buffers, Unsafe, the RMI registry) that Java 17 closes by default.
jvm17=(
	-Djdk.attach.allowAttachSelf=true
	--add-exports java.base/jdk.internal.misc=ALL-UNNAMED
	--add-exports java.base/jdk.internal.ref=ALL-UNNAMED
	--add-exports java.base/sun.nio.ch=ALL-UNNAMED
	--add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
	--add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
	--add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
	--add-exports java.sql/java.sql=ALL-UNNAMED
	--add-exports java.base/java.lang.ref=ALL-UNNAMED
	--add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
	--add-opens java.base/java.lang.module=ALL-UNNAMED
	--add-opens java.base/jdk.internal.loader=ALL-UNNAMED
	--add-opens java.base/jdk.internal.ref=ALL-UNNAMED
	--add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
	--add-opens java.base/jdk.internal.math=ALL-UNNAMED
	--add-opens java.base/jdk.internal.module=ALL-UNNAMED
	--add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
	--add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
	--add-opens java.base/sun.nio.ch=ALL-UNNAMED
	--add-opens java.base/java.io=ALL-UNNAMED
	--add-opens java.base/java.nio=ALL-UNNAMED
	--add-opens java.base/java.lang=ALL-UNNAMED
	--add-opens java.base/java.lang.reflect=ALL-UNNAMED
	--add-opens java.base/java.util=ALL-UNNAMED
	--add-opens java.base/java.util.concurrent=ALL-UNNAMED
	--add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
	--add-opens java.base/java.net=ALL-UNNAMED
	--add-opens java.base/sun.nio.fs=ALL-UNNAMED
)

say "starting Cassandra $version (Java $java_major, -Xmx$xmx) on 127.0.0.1:$port, data $dir"
# setsid: the server survives this script and its caller's process group; cassandra-foreground: in the foreground
# of its own process (no daemon fork), so the pid file names the JVM.
cd "$dir"
setsid nohup "$java" -Xms256m -Xmx"$xmx" -Xss512k -XX:+UseG1GC \
	-XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath="$dir" \
	"${jvm17[@]}" \
	-Dcassandra.config="file://$dir/conf/cassandra.yaml" \
	-Dlogback.configurationFile="$dir/conf/logback.xml" \
	-Dcassandra.logdir="$dir" -Dcassandra.storagedir="$dir" \
	-Dcassandra-foreground=yes -Dcassandra.skip_wait_for_gossip_to_settle=0 \
	-Dcassandra.initial_token_allocation=true \
	-cp "$dir/conf:$cache/lib/*" org.apache.cassandra.service.CassandraDaemon \
	>"$log" 2>&1 </dev/null 8>&- &
echo $! >"$pidfile"
wait_up "$(cat "$pidfile")" "$wait_s" "$dir/system.log" "Cassandra $name" cql_up || exit 1
say "Cassandra $name started at 127.0.0.1:$port (pid $(cat "$pidfile"), data $dir)"
