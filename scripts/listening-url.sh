# Sourced by the CI scripts that start the server over HTTP on a free port (--port 0).
# listening_url PID LOG WHO: waits at most 10 s for the "listening" line the server PID writes to LOG and
# prints its URL; exits the script (showing the log) if the server dies first, naming WHO if it never listens.
listening_url() {
  local pid=$1 log=$2 who=$3 url=""
  for _ in $(seq 1 100); do
    url=$(sed -n 's/.*"message":"listening","url":"\([^"]*\)".*/\1/p' "$log")
    [[ -n "$url" ]] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  [[ -n "$url" ]] || { echo "$who: the server did not start listening" >&2; exit 1; }
  printf '%s\n' "$url"
}
