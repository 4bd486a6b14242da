#!/usr/bin/env bash
# Installs the packed tarballs in $1 into the application folder $2 with npm, production
# dependencies only: what the container runs (built JavaScript, no workspace, no TypeScript).
# AGENT_TEAMS_SQLITE_ADDON=<better_sqlite3.node> copies a compiled addon instead of building one
# (CI reuses the workspace's; the image builds its own).
set -euo pipefail
tarballs="$(realpath "${1:?usage: install-app.sh <tarball folder> <app folder>}")"
app="$(realpath -m "${2:?usage: install-app.sh <tarball folder> <app folder>}")"
mkdir -p "$app"
cd "$app"
printf '{ "name": "agent-teams-server", "private": true, "type": "module" }\n' > package.json
scripts=()
if [ -n "${AGENT_TEAMS_SQLITE_ADDON:-}" ]; then scripts=(--ignore-scripts); fi
npm install --omit=dev --no-audit --no-fund --loglevel=error "${scripts[@]}" "$tarballs"/agent-teams-*.tgz
if [ -n "${AGENT_TEAMS_SQLITE_ADDON:-}" ]; then
  mkdir -p node_modules/better-sqlite3/build/Release
  cp "$AGENT_TEAMS_SQLITE_ADDON" node_modules/better-sqlite3/build/Release/better_sqlite3.node
fi
node -e "new (require('better-sqlite3'))(':memory:').close()"
