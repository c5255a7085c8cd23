#!/bin/sh
# lint_openapi.sh SOURCE_DIR TOOLS_DIR — schema/openapi.yaml through a real OpenAPI linter:
# `redocly lint` from @redocly/cli (pinned below) with schema/redocly.yaml, which makes
# every finding of Redocly's recommended rules an error, so the test passes only with no
# errors and no warnings. The linter is installed with npm into TOOLS_DIR (the build
# directory) the first time; without npm the test is skipped (77), saying so.
set -eu
REDOCLY_VERSION=1.34.5
src=$1
tools=$2/redocly-$REDOCLY_VERSION
if ! command -v npm >/dev/null 2>&1; then
    echo "lint_openapi: npm is not installed (apt-get install npm): skipped"
    exit 77
fi
if [ ! -x "$tools/node_modules/.bin/redocly" ]; then
    echo "lint_openapi: installing @redocly/cli@$REDOCLY_VERSION into $tools"
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-audit --no-fund --no-save --loglevel=error \
        "@redocly/cli@$REDOCLY_VERSION"
fi
cd "$src/schema"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$tools/node_modules/.bin/redocly" lint openapi.yaml --config redocly.yaml
