#!/usr/bin/env bash
# Remakes the example runs of the README's upgrade walkthrough on this
# machine, each saved under results/<machine>/ with a README made from
# results/EXAMPLE-README.template.md:
#   aa-1, aa-2         A/A: the whole suite, --runs 3, twice, one build
#   fs-ext4, fs-tmpfs  A/B: the file benches, --runs 3, with LMBENCH_FSDIR
#                      on an ext4 directory, then on tmpfs (/dev/shm)
# Run it on an idle machine and leave it alone: about 1 h 45 min on 2 cores
# with the default sampling (PRESET=quick: about 15 min). Existing labels
# are refused unless FORCE=1.
#   MACHINE=vm EXT4_DIR=/var/tmp results/make-examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."

machine=${MACHINE:-$(hostname -s)}
ext4_dir=${EXT4_DIR:-/var/tmp}
tmpfs_dir=${TMPFS_DIR:-/dev/shm}
quick=()
[ "${PRESET:-default}" = quick ] && quick=(--quick)
force=()
[ "${FORCE:-0}" = 1 ] && force=(--force)
file_benches='^(lat_fs|lat_mmap|lat_pagefault)/'

fstype() { stat -f -c %T "$1"; }
[ "$(fstype "$ext4_dir")" = ext2/ext3 ] || echo "note: $ext4_dir is $(fstype "$ext4_dir"), not ext4" >&2
[ "$(fstype "$tmpfs_dir")" = tmpfs ] || { echo "$tmpfs_dir is not a tmpfs" >&2; exit 1; }

cargo build --release --quiet
cargo bench --no-run --quiet
lmbench=target/release/lmbench

# Waits (up to 10 min) for a 1-minute load average under 0.5: the build
# above, or the previous run, leaves it high, and on 2 cores a run started
# then measures that work (run --wait-idle looks at CPU use, not load).
wait_load() {
    for _ in $(seq 120); do
        awk '{exit !($1 < 0.5)}' /proc/loadavg && return 0
        sleep 5
    done
    echo "load still $(cut -d' ' -f1 /proc/loadavg) after 10 min: not idle, stopping" >&2
    exit 1
}

# one LABEL TITLE WHY PAIR [FSDIR] [FILTER]
one() {
    local label=$1 title=$2 why=$3 pair=$4 fsdir=${5:-} filter=${6:-}
    local args=(run --runs 3 --wait-idle "${quick[@]}" --save "$label" --machine "$machine" "${force[@]}")
    [ -n "$filter" ] && args+=("$filter")
    local cmd="$lmbench ${args[*]}"
    [ -n "$fsdir" ] && cmd="LMBENCH_FSDIR=$fsdir $cmd"
    local load_before start t0
    wait_load
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date -u +%FT%TZ)
    t0=$(date +%s)
    if [ -n "$fsdir" ]; then
        LMBENCH_FSDIR=$fsdir "$lmbench" "${args[@]}"
    else
        "$lmbench" "${args[@]}"
    fi
    local wall=$(( $(date +%s) - t0 ))
    local busy
    busy=$("$lmbench" summary "$machine/$label" --format json | grep -c '"what_ran"' || true)
    local dir=results/$machine/$label
    sed -e "s#{{MACHINE}}#$machine#g" -e "s#{{LABEL}}#$label#g" \
        -e "s#{{TITLE}}#$title#g" -e "s#{{WHY}}#$why#g" -e "s#{{PAIR}}#$pair#g" \
        -e "s#{{COMMAND}}#$cmd#g" -e "s#{{START}}#$start#g" \
        -e "s#{{END}}#$(date -u +%FT%TZ)#g" -e "s#{{WALL}}#$((wall / 60)) min $((wall % 60)) s#g" \
        -e "s#{{COMMIT}}#$(git rev-parse --short=12 HEAD)#g" \
        -e "s#{{LOAD_BEFORE}}#$load_before#g" \
        -e "s#{{LOAD_AFTER}}#$(cut -d' ' -f1-3 /proc/loadavg)#g" \
        -e "s#{{BUSY}}#$busy#g" \
        results/EXAMPLE-README.template.md > "$dir/README.md"
    echo "wrote $dir/README.md"
}

aa="$machine/aa-1 $machine/aa-2"
one aa-1 "A/A, first of two" "The whole suite three times, pooled; with aa-2 an A/A pair: same machine, same build, nothing changed between them, so \`compare\` should find (almost) nothing." "$aa"
one aa-2 "A/A, second of two" "The whole suite three times, pooled, right after aa-1 with nothing changed." "$aa"
ab="$machine/fs-ext4 $machine/fs-tmpfs"
one fs-ext4 "A/B, file benches on ext4" "The file benches (lat_fs, lat_mmap, lat_pagefault) three times with LMBENCH_FSDIR=$ext4_dir (ext4); with fs-tmpfs an A/B pair whose one cause is the file system." "$ab" "$ext4_dir" "$file_benches"
one fs-tmpfs "A/B, file benches on tmpfs" "The same file benches three times with LMBENCH_FSDIR=$tmpfs_dir (tmpfs), right after fs-ext4." "$ab" "$tmpfs_dir" "$file_benches"
"$lmbench" compare "$machine/aa-1" "$machine/aa-2" | tail -n 12
"$lmbench" compare "$machine/fs-ext4" "$machine/fs-tmpfs"
