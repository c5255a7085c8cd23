#!/usr/bin/env bash
# test_install.sh BUILD_DIR — `cmake --install` into a temporary prefix, then check that
# the tree matches what the systemd unit names: ExecStart's binary, the config file it
# passes with --config, the web page the daemon serves, the schema, and the sysusers
# entry; run `systemd-analyze verify` on the installed unit when systemd-analyze exists.
# Also installs a second time with DESTDIR to check staged installs put the same paths
# under DESTDIR. Exit 0 = pass, 1 = fail.
set -euo pipefail
BUILD=${1:?usage: test_install.sh BUILD_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

PREFIX=$TMP/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" 2>&1 \
    || { cat "$TMP/install.log" >&2; fail "cmake --install failed"; }

UNIT=$PREFIX/lib/systemd/system/fdwaved.service
[ -f "$UNIT" ] || fail "no unit at $UNIT"
EXEC=$(sed -n 's/^ExecStart=//p' "$UNIT")
BIN=${EXEC%% *}
[ "$BIN" = "$PREFIX/bin/fdwaved" ] || fail "ExecStart binary is $BIN, want $PREFIX/bin/fdwaved"
[ -x "$BIN" ] || fail "ExecStart binary $BIN is not installed"
CONF=$(printf '%s\n' "$EXEC" | sed -n 's/.*--config \([^ ]*\).*/\1/p')
[ "$CONF" = "$PREFIX/etc/fdwave/fdwaved.conf" ] || fail "--config is '$CONF'"
[ -f "$CONF" ] || fail "config $CONF is not installed"
WEB=$(printf '%s\n' "$EXEC" | sed -n 's/.*--web \([^ ]*\).*/\1/p')
[ "$WEB" = "$PREFIX/share/fdwave/web" ] || fail "--web is '$WEB'"
[ -f "$WEB/index.html" ] || fail "the unit's web dir $WEB has no index.html"
grep -q '^StateDirectory=fdwave$' "$UNIT" || fail "unit has no StateDirectory=fdwave"
grep -q -- '--data /var/lib/fdwave' "$UNIT" || fail "unit does not pass --data /var/lib/fdwave"
grep -q '^User=fdwave$' "$UNIT" || fail "unit does not run as user fdwave"
grep -q '^Restart=on-failure$' "$UNIT" || fail "unit has no Restart=on-failure"
grep -q '^LimitNOFILE=' "$UNIT" || fail "unit has no LimitNOFILE"
grep -q '^u fdwave ' "$PREFIX/lib/sysusers.d/fdwave.conf" || fail "no sysusers entry"
# Every file of the page (index.html, style.css and the script modules it loads).
SRC_WEB=$(cd "$(dirname "$0")/../../clients/web" && pwd)
for f in "$SRC_WEB"/*; do
    cmp -s "$f" "$PREFIX/share/fdwave/web/$(basename "$f")" \
        || fail "web file $(basename "$f") not installed as it is in clients/web"
done
[ -f "$PREFIX/share/fdwave/web/main.js" ] || fail "web file main.js not installed"
[ -f "$PREFIX/share/fdwave/fdwaved.conf.example" ] || fail "config example not installed"
ls "$PREFIX"/share/fdwave/schema/*.sql >/dev/null 2>&1 || fail "schema not installed"
[ -x "$PREFIX/bin/fdwave" ] || fail "fdwave CLI not installed"

# The installed daemon accepts the installed config (every key is a real flag).
"$BIN" --config "$CONF" --help >/dev/null 2>"$TMP/help.err" \
    || { cat "$TMP/help.err" >&2; fail "fdwaved rejects the installed config"; }

# An admin's edited config survives a re-install (upgrade).
echo "log-level = debug" >>"$CONF"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null 2>&1 || fail "re-install failed"
grep -q '^log-level = debug$' "$CONF" || fail "re-install overwrote the admin's config"

# Staged install: the same absolute paths, under DESTDIR.
DESTDIR="$TMP/stage" cmake --install "$BUILD" --prefix /opt/fdwave >/dev/null 2>&1 \
    || fail "DESTDIR install failed"
SUNIT=$TMP/stage/opt/fdwave/lib/systemd/system/fdwaved.service
grep -q '^ExecStart=/opt/fdwave/bin/fdwaved ' "$SUNIT" || fail "staged unit ExecStart wrong"
[ -x "$TMP/stage/opt/fdwave/bin/fdwaved" ] || fail "staged binary missing"

if command -v systemd-analyze >/dev/null 2>&1; then
    systemd-analyze verify "$UNIT" >"$TMP/verify.log" 2>&1 \
        || { cat "$TMP/verify.log" >&2; fail "systemd-analyze verify failed"; }
    echo "systemd-analyze verify: ok"
else
    echo "systemd-analyze not available: unit verification skipped"
fi
echo "PASS: installed tree matches the unit ($UNIT)"
