#!/usr/bin/env bash
# Runs the first command of README.md exactly as written there, so the README cannot drift.
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=$(awk '/^```sh$/{f=1;next} f&&/^```$/{exit} f{print}' README.md | head -1)
echo "+ $cmd"
eval "$cmd"
