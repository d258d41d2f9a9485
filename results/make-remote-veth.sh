#!/usr/bin/env bash
# Remakes results/<machine>/remote-veth-quick: the remote benches run
# across a veth pair between two network namespaces of this machine
# (`lmbench serve` in one, the client in the other), beside the local
# latencies of the same metrics, so the Remote tables can be read next to
# the Local ones. Needs root and iproute2; an idle machine (it waits for
# one, bounded). Existing label refused unless FORCE=1.
#   MACHINE=vm results/make-remote-veth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
machine=${MACHINE:-$(hostname -s)}
force=()
[ "${FORCE:-0}" = 1 ] && force=(--force)
srv=lmbench-ex-srv-$$ cli=lmbench-ex-cli-$$
cleanup() { ip netns del "$srv" 2>/dev/null || true; ip netns del "$cli" 2>/dev/null || true; }
trap cleanup EXIT
cargo build --release --quiet
cargo bench --no-run --quiet
lmbench=$PWD/target/release/lmbench
ip netns add "$srv"
ip netns add "$cli"
ip link add lmbxs$$ netns "$srv" type veth peer name lmbxc$$ netns "$cli"
ip -n "$srv" addr add 198.18.0.1/30 dev lmbxs$$
ip -n "$cli" addr add 198.18.0.2/30 dev lmbxc$$
for ns in "$srv" "$cli"; do ip -n "$ns" link set lo up; done
ip -n "$srv" link set lmbxs$$ up
ip -n "$cli" link set lmbxc$$ up
# The server's process dies with its namespace's cleanup (killed below).
ip netns exec "$srv" "$lmbench" serve --listen 198.18.0.1:31234 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; cleanup' EXIT
sleep 1
ip netns exec "$cli" env LMBENCH_REMOTE=198.18.0.1:31234 "$lmbench" run --quick --wait-idle \
    --save remote-veth-quick --machine "$machine" "${force[@]}" \
    '^(lat_udp|lat_rpc|lat_tcp|lat_connect|bw_tcp)/'
"$lmbench" summary "$machine/remote-veth-quick"
