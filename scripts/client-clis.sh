#!/usr/bin/env bash
# The real clients' CLIs connect the server as the docs say, on a fresh copy of this checkout:
#  1. the files git tracks (a clone of the working tree), then the documented install step as written
#     (`npm install`, which builds dist/, then `npm install -g .` into a temporary npm prefix whose bin
#     goes on the PATH);
#  2. each Claude Code and Gemini CLI block of scripts/client-snippets.mjs (README.md, docs/clients.md)
#     run as written, placeholders filled in, with a HOME of its own; then `claude mcp list` /
#     `gemini mcp list` must report the server connected. The stdio servers serve the sandbox
#     (MCP_DEMO=1 in the environment the CLIs pass on); the HTTP blocks reach a demo HTTP server.
# The CLIs come at exact versions from scripts/client-clis (own lock file). No account is needed for
# `mcp list`; update checks and telemetry are switched off, and every command is bounded by a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/listening-url.sh
source scripts/listening-url.sh
ROOT=$PWD
TOOLS=$ROOT/scripts/client-clis
STEP_TIMEOUT=90
started=$(date +%s)

timeout 600 npm ci --prefix "$TOOLS" --no-audit --no-fund --loglevel=error
CLAUDE_BIN=$TOOLS/node_modules/.bin/claude
GEMINI_BIN=$TOOLS/node_modules/.bin/gemini
# Claude Code's postinstall puts its native binary in place of a stub; an npm that skipped it gets it run.
if ! timeout 30 "$CLAUDE_BIN" --version >/dev/null 2>&1; then
  (cd "$TOOLS/node_modules/@anthropic-ai/claude-code" && timeout 120 node install.cjs)
fi
echo "client CLIs: Claude Code $(timeout 30 "$CLAUDE_BIN" --version), Gemini CLI $(timeout 30 "$GEMINI_BIN" --version)"

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- 1. A fresh copy of the checkout, and the install step as the docs give it.
clone=$work/agent-workspace-mcp
mkdir -p "$clone"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$clone"
else
  tar --exclude=./node_modules --exclude=./dist --exclude='./scripts/*/node_modules' -cf - . | tar -xf - -C "$clone"
fi
install_step=$(node scripts/client-docs.mjs --text install)
(
  cd "$clone"
  export npm_config_prefix=$work/prefix npm_config_audit=false npm_config_fund=false npm_config_loglevel=error
  eval "$(sed 's/^/timeout 600 /' <<<"$install_step")"
)
[[ -f "$clone/dist/cli.js" ]] || { echo "client CLIs: npm install in a fresh copy left no dist/cli.js" >&2; exit 1; }
export PATH="$work/prefix/bin:$PATH"
# npx finds the package where the install step put it, as it would find the published one.
export npm_config_prefix=$work/prefix
command -v agent-workspace-mcp >/dev/null || { echo "client CLIs: agent-workspace-mcp is not on the PATH" >&2; exit 1; }
echo "  pass  fresh copy: npm install built dist/, npm install -g . put agent-workspace-mcp on the PATH"

# --- 2. The demo HTTP server, with a bearer token, for the HTTP blocks.
token=token-of-the-client-test
MCP_AUTH_TOKEN=$token agent-workspace-mcp --demo --transport http --port 0 2>"$work/server.log" &
server_pid=$!
url=$(listening_url "$server_pid" "$work/server.log" "client CLIs")
sandbox=$(sed -n 's/.*"demo sandbox started","url":"\([^"]*\)".*/\1/p' "$work/server.log")
project=$(node -e 'fetch(process.argv[1] + "/api/v1/business/whoami", { headers: { "x-api-key": "sandbox-key" } })
  .then((r) => r.json()).then((me) => console.log(me.projects[0].id))' "$sandbox")

export SNIPPET_CLONE=$clone SNIPPET_URL=$url SNIPPET_TOKEN=$token SNIPPET_KEY=sandbox-key \
  SNIPPET_WORKSPACE_BASE_URL=https://workspace.example.com SNIPPET_ANALYTICS_BASE_URL=https://analytics.example.com \
  SNIPPET_PROJECT=$project
# Every stdio server the CLIs start serves the sandbox.
export MCP_DEMO=1
# No update checks, telemetry or error reports from either CLI.
export DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 DISABLE_BUG_COMMAND=1 \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 GEMINI_TELEMETRY_ENABLED=false NO_UPDATE_NOTIFIER=1
claude() { timeout "$STEP_TIMEOUT" "$CLAUDE_BIN" "$@"; }
gemini() { timeout "$STEP_TIMEOUT" "$GEMINI_BIN" "$@"; }

failed=()
# check ID CLI: runs block ID in a fresh HOME and project folder, then CLI's `mcp list`.
check() {
  local id=$1 cli=$2 home=$work/home-$1 project_dir=$work/project-$1 listed rc=0 begun
  begun=$(date +%s)
  mkdir -p "$home" "$project_dir"
  if [[ "$cli" == gemini ]]; then
    mkdir -p "$home/.gemini"
    # Gemini CLI starts no MCP server in an untrusted folder: trust this one, as its trustedFolders.json does.
    printf '{"%s": "TRUST_FOLDER"}\n' "$project_dir" >"$home/.gemini/trustedFolders.json"
    echo '{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}' \
      >"$home/.gemini/settings.json"
  fi
  listed=$(
    cd "$project_dir"
    export HOME=$home XDG_CONFIG_HOME=$home/.config XDG_CACHE_HOME=$home/.cache XDG_DATA_HOME=$home/.local/share
    eval "$(node "$ROOT/scripts/client-docs.mjs" --text "$id")" >"$work/$id.add.log" 2>&1
    "$cli" mcp list 2>&1
  ) || rc=$?
  # Claude Code: "agent-workspace: <command> - ✔ Connected"; Gemini CLI: "✓ agent-workspace: <command> (stdio) - Connected".
  if [[ $rc -eq 0 ]] && grep -Eq "^(✓ )?agent-workspace: .* - (✔ )?Connected$" <<<"$listed"; then
    printf '  pass  %-22s %s (%ss)\n' "$id" "$(grep -E 'agent-workspace: ' <<<"$listed")" "$(($(date +%s) - begun))"
  else
    printf '  FAIL  %-22s exit %s\n' "$id" "$rc"
    cat "$work/$id.add.log" 2>/dev/null || true
    echo "$listed"
    failed+=("$id")
  fi
}

for id in claude-code claude-code-absolute claude-code-published remote-claude-code; do check "$id" claude; done
for id in gemini remote-gemini; do check "$id" gemini; done

if ((${#failed[@]})); then
  echo "client CLIs: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "client CLIs: ok ($(($(date +%s) - started)) s)"
