#!/usr/bin/env bash
# Builds the workspace and packs the packages the server needs (core, widget, api) into $1, as
# `pnpm pack` makes them for npm. Run by the Dockerfile's build stage and by `pnpm container:check`.
set -euo pipefail
dest="$(realpath -m "${1:?usage: pack-all.sh <destination folder>}")"
cd "$(dirname "$0")/../.."
mkdir -p "$dest"
pnpm build
for package in core widget api; do
  (cd "packages/$package" && pnpm pack --pack-destination "$dest" >/dev/null)
done
ls "$dest"
