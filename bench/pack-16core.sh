#!/usr/bin/env bash
# Packs what bench/run-16core.sh runs into .device-bundle/ (git-ignored) and
# keeps it under the device tool's 64 MiB carry limit: the full bundle of
# ../shared/tools/device-bundle.sh is ~130 MB (every test, OpenBLAS, MPI).
# Keeps weft-bench, weft-topo, weft-startup-probe, weft-omp-probe,
# weft-osci-serve-probe, the stress tests run-16core.sh runs, the libraries
# they link, and libweft-omp.so.
#   bash bench/pack-16core.sh            (builds build/release first)
# Then: run with carry [".device-bundle", ".device-ref"] (the authors'
# benchmarks, if built) the command
#   bash bench/run-16core.sh .device-bundle .device-ref $OUT [PART,...]
# With BASE=<commit>, it also builds that commit's weft-bench and
# weft-startup-probe (in a worktree under /tmp) into .device-bundle/base/, for
# run-16core.sh's `ab` part: the same rows of both builds, alternating.
# With VARIANTS="NAME=PATCH ...", it builds for each the weft-bench of HEAD
# (the last commit: uncommitted changes are not in it) with PATCH applied
# into .device-bundle/variants/NAME/, which the `ab` part runs beside this
# build, e.g. the Osci variants kept in bench/results/:
#   VARIANTS="suspend=bench/results/osci-suspend-recorders-2026-11-28.patch
#             dspin=bench/results/osci-director-spin-2026-11-28.patch" bash bench/pack-16core.sh
set -euo pipefail
top=$(git rev-parse --show-toplevel); cd "$top"
base_commit=${BASE:-}
if [ -n "$base_commit" ]; then
  git rev-parse --verify --quiet "$base_commit^{commit}" >/dev/null ||
    { echo "pack-16core.sh: BASE=$base_commit is not a commit of this repository" >&2; exit 2; }
fi
variants=${VARIANTS:-}
for v in $variants; do
  name=${v%%=*} patch=${v#*=}
  case $name in
    ''|*[!A-Za-z0-9_.-]*|"$v") echo "pack-16core.sh: VARIANTS entry '$v' is not NAME=PATCH (NAME in letters, digits, '.', '_', '-')" >&2; exit 2 ;;
  esac
  [ -f "$patch" ] || { echo "pack-16core.sh: variant $name: no patch file '$patch'" >&2; exit 2; }
  git apply --check "$patch" 2>/dev/null ||
    { echo "pack-16core.sh: variant $name: '$patch' does not apply to this checkout" >&2; exit 2; }
done
bash ../shared/tools/device-bundle.sh >/dev/null
out=.device-bundle
keep="weft-bench weft-topo weft-startup-probe weft-omp-probe weft-osci-serve-probe runtime_ult_test
      runtime_scheduler_test runtime_many_ults_test sync_combining_stress_test sync_linearizability_test
      sync_channel_test"
for exe in "$out"/bin/*; do
  case " $(echo $keep) " in *" $(basename "$exe") "*) ;; *) rm -f "$exe" ;; esac
done
needed=$(for exe in "$out"/bin/*; do LD_LIBRARY_PATH=$PWD/$out/lib ldd "$exe" | awk '/=> \//{print $3}'; done |
         xargs -n1 basename | sort -u)
for lib in "$out"/lib/*; do
  echo "$needed" | grep -qx "$(basename "$lib")" || rm -f "$lib"
done
cp build/release/openmp/libweft-omp.so "$out/lib/"
if [ -n "$base_commit" ]; then
  tree=/tmp/weft-base-$(git rev-parse --short "$base_commit")
  [ -d "$tree" ] || git worktree add --detach "$tree" "$base_commit" >/dev/null
  (cd "$tree" && cmake --preset release >/dev/null &&
     cmake --build --preset release -j"$(nproc)" --target weft-bench weft-startup-probe >/dev/null)
  mkdir -p "$out/base"
  cp "$tree/build/release/bench/weft-bench" "$tree/build/release/bench/weft-startup-probe" "$out/base/"
  echo "$out/base: weft-bench and weft-startup-probe of $(git rev-parse --short "$base_commit")"
fi
rm -rf "$out/variants"
head=$(git rev-parse --short HEAD)
for v in $variants; do
  name=${v%%=*} patch=$top/${v#*=}
  tree=/tmp/weft-variant-$name-$head
  rm -rf "$tree"; git worktree prune
  git worktree add --detach "$tree" HEAD >/dev/null
  (cd "$tree" && git apply "$patch" && cmake --preset release >/dev/null &&
     cmake --build --preset release -j"$(nproc)" --target weft-bench >/dev/null)
  mkdir -p "$out/variants/$name"
  cp "$tree/build/release/bench/weft-bench" "$out/variants/$name/"
  echo "$out/variants/$name: weft-bench of $head with ${v#*=}"
done
size=$(du -sm "$out" | cut -f1)
echo "$out: ${size} MiB: $(ls "$out/bin" | tr '\n' ' ')"
if [ "$size" -ge 60 ]; then
  echo "pack-16core.sh: $out is ${size} MiB, too close to the 64 MiB carry limit" >&2
  exit 1
fi
