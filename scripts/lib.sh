# Shell functions shared by the server scripts (sourced, not run):
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# The sourcing script defines say (one line to stderr, with its own prefix).

# vendor_dir ROOT prints ../shared/vendor beside the repository ROOT; a git worktree also looks
# beside its main checkout, where ../shared lives.
vendor_dir() {
	local root=$1 vendor common
	vendor=$(realpath -m "$root/../shared/vendor")
	if [[ ! -d $vendor ]] && command -v git >/dev/null 2>&1; then
		common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
		if [[ -n $common && -d $(dirname "$common")/../shared/vendor ]]; then
			vendor=$(realpath -m "$(dirname "$common")/../shared/vendor")
		fi
	fi
	echo "$vendor"
}

# apt_install PACKAGE... installs with apt-get, waiting for another apt's lock.
apt_install() {
	say "installing $* with apt-get"
	apt-get -o DPkg::Lock::Timeout=900 update -qq
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null
}

# alive PID: the process runs (a killed server not yet reaped is a zombie: not alive).
alive() {
	kill -0 "$1" 2>/dev/null && [[ $(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# running_pid PIDFILE prints the pid in PIDFILE when that process is alive, else fails.
running_pid() {
	[[ -f $1 ]] || return 1
	local pid
	pid=$(cat "$1")
	[[ -n $pid ]] && alive "$pid" && echo "$pid"
}

# stop_pidfile PIDFILE WHAT stops the process of PIDFILE (SIGTERM, SIGKILL after 30 s) and
# removes PIDFILE; WHAT names the server in the messages.
stop_pidfile() {
	local pidfile=$1 what=$2 pid i
	if [[ ! -f $pidfile ]]; then
		say "$what: no pid file $pidfile (not running)"
		return 0
	fi
	pid=$(cat "$pidfile")
	if alive "$pid"; then
		kill "$pid"
		for ((i = 0; i < 120; i++)); do
			alive "$pid" || break
			sleep 0.25
		done
		if alive "$pid"; then
			say "$what (pid $pid) did not stop in 30s: sending SIGKILL"
			kill -9 "$pid" 2>/dev/null || true
		fi
		say "$what stopped (pid $pid)"
	else
		say "$what: pid $pid not running"
	fi
	rm -f "$pidfile"
}

# rustc_cap_lints DIR writes DIR/rustc-cap-lints, a RUSTC_WRAPPER that caps lints at "warn":
# the libflux crates of InfluxDB 1.x/2.x deny lints that newer toolchains raise.
rustc_cap_lints() {
	cat >"$1/rustc-cap-lints" <<'WRAP'
#!/bin/sh
# RUSTC_WRAPPER: $1 is rustc; add --cap-lints warn unless the call already caps lints.
rustc=$1
shift
for a in "$@"; do
	case $a in --cap-lints | --cap-lints=*) exec "$rustc" "$@" ;; esac
done
exec "$rustc" "$@" --cap-lints warn
WRAP
	chmod +x "$1/rustc-cap-lints"
}

# unpacked SRC DEST WHAT prints the server executable of SRC: SRC itself when it is an executable,
# or DEST, unpacked from the .xz file SRC once (again only when SRC is newer than DEST). WHAT
# names the server in the messages; it fails when SRC is neither.
unpacked() {
	local src=$1 dest=$2 what=$3 tmp
	if [[ $(head -c 6 "$src" | od -An -tx1 | tr -d ' \n') != fd377a585a00 ]]; then
		[[ -x $src ]] || { say "$src is neither an .xz file nor executable: $what not started"; return 1; }
		echo "$src"
		return 0
	fi
	if [[ ! -x $dest || $src -nt $dest ]]; then
		command -v xz >/dev/null 2>&1 || apt_install xz-utils >&2
		mkdir -p "$(dirname "$dest")"
		tmp=$(mktemp "$dest.XXXXXX")
		xz -dc "$src" >"$tmp"
		chmod +x "$tmp"
		mv -f "$tmp" "$dest"
		say "unpacked $src into $dest"
	fi
	echo "$dest"
}

# wait_up PID SECONDS LOG WHAT PROBE... runs PROBE every 0.25 s until it succeeds; it fails when
# the process PID exits first (showing the last lines of LOG) or SECONDS pass. WHAT names the
# server in the messages.
wait_up() {
	local pid=$1 secs=$2 log=$3 what=$4 i
	shift 4
	for ((i = 0; i < secs * 4; i++)); do
		"$@" && return 0
		if ! alive "$pid"; then
			say "$what (pid $pid) exited during start-up; last lines of $log:"
			tail -n 20 "$log" >&2 || true
			return 1
		fi
		sleep 0.25
	done
	say "$what did not answer within ${secs}s; log: $log"
	return 1
}
