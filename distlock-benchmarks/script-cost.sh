#!/usr/bin/env bash
# What a lock costs Redis itself, counted in CPU instructions rather than timed: redis-server runs under valgrind's
# callgrind, a pipeline of N calls is sent to it, and the count of a run with N + 1000 calls minus that of a run with
# 1000 is divided by N. Instruction counts do not move with the machine's load, so two scripts can be compared by one
# run of each, where timing on a shared machine needs many.
#
# It counts, per call:
#   pair      acquire a free lock, then release it (distlock: acquire.lua and release.lua as the engine sends them)
#   try       a single try on a lock another holder has (distlock: try.lua)
# for distlock's scripts (read from the source tree, joined as LockScripts joins them) and for the plainest Lua lock
# with the same commands as Spring Integration's RedisLockRegistry on Redis 7 (acquire: GET, then SET PX if free;
# release: GET, then DEL if still the holder's; written here, not taken from it), so that the two differ only in what
# the scripts do.
#
# Usage: distlock-benchmarks/script-cost.sh [N]      (N defaults to 10000; about a minute on 2 cores)
# Needs valgrind, redis-server and redis-cli on the PATH.
set -euo pipefail

calls=${1:-10000}
here=$(cd "$(dirname "$0")" && pwd)
lua="$here/../distlock-redis/src/main/resources/io/github/distlock/redis"
for tool in valgrind redis-server redis-cli; do
	command -v "$tool" > /dev/null || { echo "script-cost.sh needs $tool on the PATH (apt-get install -y $tool)" >&2; exit 1; }
done
work=$(mktemp -d)
# A server left running by a failed step would go on using a core (its pid is in a file: the counting runs in a
# command substitution's subshell).
trap '[ -f "$work/server.pid" ] && kill "$(cat "$work/server.pid")" 2> /dev/null; rm -rf "$work"' EXIT

cat "$lua/token.lua" "$lua/acquire.lua" > "$work/acquire.lua"
cat "$lua/token.lua" "$lua/try.lua" > "$work/try.lua"
cat "$lua/announce.lua" "$lua/token.lua" "$lua/release.lua" > "$work/release.lua"
cat > "$work/plain_acquire.lua" <<'EOF'
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return true
end
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return true
end
return false
EOF
cat > "$work/plain_release.lua" <<'EOF'
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return true
end
return false
EOF

# One command in RESP, as redis-cli --pipe wants it.
resp() {
	printf '*%d\r\n' "$#"
	local arg
	for arg in "$@"; do
		printf '$%d\r\n%s\r\n' "${#arg}" "$arg"
	done
}

engine=0123456789abcdef
# The calls of one measurement: $1 = what, $2 = how many, $3/$4 = the SHA of the acquire/release script.
calls_of() {
	local what=$1 count=$2 acquire=$3 release=$4 i key
	for ((i = 0; i < count; i++)); do
		key="distlock:{bench:$i}"
		case $what in
		distlock-pair)
			resp EVALSHA "$acquire" 3 "$key" "$key:waiters" distlock:token "$engine:$i|" 3000 "$engine:$i|3000|10000" 15000 0
			resp EVALSHA "$release" 3 "$key" "$key:waiters" distlock:token "$engine:$i|" distlock:released ;;
		distlock-try)
			resp EVALSHA "$acquire" 2 distlock:{bench:held} distlock:token "$engine:$i|" 3000 ;;
		plain-pair)
			resp EVALSHA "$acquire" 1 "$key" "01234567-89ab-cdef-0123-456789abcdef:$i" 3000
			resp EVALSHA "$release" 1 "$key" "01234567-89ab-cdef-0123-456789abcdef:$i" ;;
		plain-try)
			resp EVALSHA "$acquire" 1 distlock:{bench:held} "01234567-89ab-cdef-0123-456789abcdef:$i" 3000 ;;
		esac
	done
}

# Instructions of a whole redis-server run that serves $2 calls of kind $1.
instructions() {
	local what=$1 count=$2 port acquire release
	port=$(( (RANDOM % 20000) + 30000 ))
	valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" redis-server --port "$port" --save "" \
		--appendonly no --logfile "$work/redis.log" > /dev/null 2>&1 &
	local server=$!
	echo "$server" > "$work/server.pid"
	for _ in $(seq 150); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.2; done
	redis-cli -p "$port" ping > /dev/null 2>&1 || {
		echo "redis-server under valgrind did not answer on port $port: $(cat "$work/redis.log")" >&2
		exit 1
	}
	case $what in
	distlock-try) acquire=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/try.lua")") release= ;;
	distlock-*) acquire=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/acquire.lua")")
		release=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/release.lua")") ;;
	plain-*) acquire=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/plain_acquire.lua")")
		release=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/plain_release.lua")") ;;
	esac
	# The lock a try finds held, by another holder.
	redis-cli -p "$port" SET distlock:{bench:held} "fedcba9876543210:1|1764000000000000" > /dev/null
	calls_of "$what" "$count" "$acquire" "$release" > "$work/calls.resp"
	redis-cli -p "$port" --pipe < "$work/calls.resp" > /dev/null
	redis-cli -p "$port" SHUTDOWN NOSAVE > /dev/null 2>&1 || true
	wait "$server" || true
	rm -f "$work/server.pid"
	grep -m1 '^summary:\|^totals:' "$work/callgrind.out" | awk '{print $2}'
}

echo "Redis CPU instructions per call ($calls calls each; $(redis-server --version | awk '{print $3}'))"
for what in plain-pair distlock-pair plain-try distlock-try; do
	small=$(instructions "$what" 1000)
	large=$(instructions "$what" $((calls + 1000)))
	printf '%-14s %8d\n' "$what" $(( (large - small) / calls ))
done
