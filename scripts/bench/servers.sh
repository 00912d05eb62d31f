# Shell functions the benchmark scripts use to start servers (sourced).

# free URL: fails when a server already answers at URL (a benchmark would
# measure that one instead of the server it starts).
free() {
	if curl -sf "$1/v1/models" >/dev/null; then
		echo "a server already answers at $1" >&2
		return 1
	fi
}

# wait_up URL PID LOG: waits up to 30 minutes for the server PID to answer
# at URL (a server indexing large repositories takes minutes); fails at
# once when it exits, naming its log.
wait_up() {
	for _ in $(seq 1800); do
		curl -sf "$1/v1/models" >/dev/null && return 0
		kill -0 "$2" 2>/dev/null || { echo "the server for $1 exited: see $3" >&2; return 1; }
		sleep 1
	done
	echo "the server at $1 did not start: see $3" >&2
	return 1
}
