# Sourced by .ci/run before `npm test`: starts a throwaway PostgreSQL cluster and exports
# DATABASE_URL, so the reference server's PostgreSQL tests run. PostgreSQL comes from
# Debian's packages when it is not installed. Never fails the caller: when PostgreSQL
# cannot be started it says so loudly, leaves DATABASE_URL unset, and the PGlite tests
# still run (the PostgreSQL ones skip with that reason).

_conform_pg_bindir() {
  local d
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; then
    pg_config --bindir; return 0
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v initdb)")"; return 0
  fi
  return 1
}

_conform_pg_setup() {
  local bindir dir port run logfile
  bindir="$(_conform_pg_bindir)"
  if [ -z "$bindir" ]; then
    echo "postgres.sh: PostgreSQL not found, installing it from Debian's packages..."
    if [ "$(id -u)" -ne 0 ]; then echo "postgres.sh: not root, cannot apt-get install"; return 1; fi
    (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) || { echo "postgres.sh: apt-get install postgresql failed"; return 1; }
    bindir="$(_conform_pg_bindir)" || { echo "postgres.sh: installed, but initdb/pg_ctl not found"; return 1; }
  fi

  # PostgreSQL refuses to run as root: use the postgres system user then.
  run=()
  if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /bin/sh postgres 2>/dev/null || { echo "postgres.sh: cannot create the postgres user"; return 1; }
    fi
    if command -v runuser >/dev/null 2>&1; then run=(runuser -u postgres --); else run=(su postgres -s /bin/sh -c); fi
  fi

  dir="$(mktemp -d "${TMPDIR:-/tmp}/conform-pg.XXXXXX")" || return 1
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")" || return 1
  logfile="$dir/server.log"

  _conform_pg_run() { if [ "${run[0]:-}" = su ]; then "${run[@]}" "$*"; else "${run[@]}" "$@"; fi; }
  _conform_pg_run "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { echo "postgres.sh: initdb failed:"; tail -5 "$dir/initdb.log"; return 1; }
  _conform_pg_run "$bindir/pg_ctl" -D "$dir/data" -l "$logfile" -w -t 60 \
    -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=on" start >/dev/null 2>&1 \
    || { echo "postgres.sh: pg_ctl start failed:"; tail -5 "$logfile" 2>/dev/null; return 1; }
  _conform_pg_run "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qAt -c "CREATE DATABASE conform" >/dev/null 2>&1 \
    || { echo "postgres.sh: CREATE DATABASE failed"; _conform_pg_run "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1; return 1; }

  CONFORM_PG_DIR="$dir"
  CONFORM_PG_STOP="$bindir/pg_ctl -D $dir/data -m fast stop"
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/conform"
  echo "postgres.sh: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, DATABASE_URL exported"
  return 0
}

_conform_pg_stop() {
  if [ -n "${CONFORM_PG_DIR:-}" ]; then
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- $CONFORM_PG_STOP >/dev/null 2>&1 || true; else $CONFORM_PG_STOP >/dev/null 2>&1 || true; fi
    rm -rf "$CONFORM_PG_DIR"
  fi
}

if [ -n "${DATABASE_URL:-}" ]; then
  echo "postgres.sh: DATABASE_URL already set, using it"
elif _conform_pg_setup; then
  trap _conform_pg_stop EXIT
else
  unset DATABASE_URL
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
  echo "!!! postgres.sh: PostgreSQL could NOT be started. Tests that need DATABASE_URL will"
  echo "!!! be SKIPPED; the PGlite tests still run."
  echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
fi
