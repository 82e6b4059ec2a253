#!/usr/bin/env bash
# Builds the external tools the benchmarks use into .cache/bin (gitignored):
#   telemetrygen   OTLP load generator (from the collector-contrib module)
#   otelcol-bench  an OpenTelemetry Collector with only the OTLP receiver and the nop exporter,
#                  built with the collector builder from bench/otelcol/manifest.yaml
#   wrk            HTTP load generator from Debian, the cross-check for bench/load
# Idempotent: a tool that is already there is skipped. Go builds come from the Go module proxy
# configured in `go env GOPROXY`; they run at nice 19 with -p=1 because the machine's 2 cores are
# shared with other work. Usage: bash bench/tools.sh
set -euo pipefail

# One version for the builder and the manifest's components: they must match (see the manifest
# for why not a newer one).
OTELCOL_VERSION=v0.162.0
TELEMETRYGEN_VERSION=v0.161.0

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bin="$root/.cache/bin"
mkdir -p "$bin"

export GOFLAGS="${GOFLAGS:-} -p=1"
export GOBIN="$bin"
say() { printf '[bench/tools] %s\n' "$*"; }

need_go() {
  command -v go >/dev/null || { say "go is not installed; it is needed to build $1"; exit 1; }
}

if [ -x "$bin/telemetrygen" ]; then
  say "telemetrygen: present"
else
  need_go telemetrygen
  say "telemetrygen: building $TELEMETRYGEN_VERSION (slow at nice 19, several minutes)"
  nice -n 19 go install \
    "github.com/open-telemetry/opentelemetry-collector-contrib/cmd/telemetrygen@$TELEMETRYGEN_VERSION"
fi

if [ -x "$bin/otelcol-bench" ]; then
  say "otelcol-bench: present"
else
  need_go otelcol-bench
  if [ ! -x "$bin/builder" ]; then
    say "collector builder: building $OTELCOL_VERSION"
    nice -n 19 go install "go.opentelemetry.io/collector/cmd/builder@$OTELCOL_VERSION"
  fi
  say "otelcol-bench: building from bench/otelcol/manifest.yaml (slow at nice 19, several minutes)"
  # The manifest's output_path (.cache/otelcol-build) is relative to the repository root.
  nice -n 19 "$bin/builder" --config bench/otelcol/manifest.yaml
  cp .cache/otelcol-build/otelcol-bench "$bin/otelcol-bench"
fi

if command -v wrk >/dev/null; then
  say "wrk: present ($(command -v wrk))"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "wrk: installing the Debian package"
  # A fresh machine has no package lists yet; update only when the first try fails.
  apt-get install -y -q wrk >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q wrk >/dev/null; }
else
  say "wrk: missing; install it (Debian: apt-get install -y wrk). Only the wrk cross-check needs it."
fi

say "done: $(ls "$bin" | tr '\n' ' ')"
