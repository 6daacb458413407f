# shellcheck shell=bash
# One real node for the local cluster: containerd + runc, kubelet, kube-proxy, a CNI bridge and CoreDNS, all as
# host processes started by `e2e/cluster real-node` and removed by `e2e/cluster down`; and, for a real drain, a
# second one in a network namespace of its own (`e2e/cluster real-node 2`, see node_select). Sourced by e2e/cluster,
# which defines BIN_DIR, CLUSTER, KWOK_WORKDIR, COREDNS_VERSION, log, die, kc, cluster_dir and kubeconfig_path.
#
# Addresses (nothing here is routed off the host):
#   bridge sops0 10.213.0.1/24  the node's InternalIP, the pods' gateway, CoreDNS (:53), the API server proxy
#   pods         10.213.0.0/24  host-local IPAM; a pod's only route beyond the bridge is the service range
#   services     10.214.0.0/24  kube-proxy (iptables mode) DNATs them to pods or to the API server proxy
# Pods reach the API server (which listens on 127.0.0.1 only) through the `kubernetes` Service: the API server
# advertises 10.213.0.1:<its port>, where a socat process forwards to 127.0.0.1:<its port>.
#
# CoreDNS runs as a host process on 10.213.0.1:53 rather than as a pod: it needs no image, starts before any pod
# and cannot be scheduled away; the kubelet hands 10.213.0.1 to pods as their nameserver. It serves cluster.local
# only: there is no `forward`, so no pod query ever leaves the machine.
#
# NetworkPolicy: the bridge CNI enforces none. `e2e/cluster network-policy on` (or SCHEDULEROPS_NETWORK_POLICY=on for
# `e2e/cluster real-node`) starts kube-router as a host process with only its firewall (no router, no service proxy:
# kube-proxy stays the service proxy); it turns the NetworkPolicies of the node's pods into iptables chains
# (KUBE-ROUTER-*, KUBE-POD-FW-*, KUBE-NWPLCY-*) and ipsets (KUBE-SRC-*, KUBE-DST-*). `network-policy off` and
# `e2e/cluster down` stop it and remove both.

NODE_SERVICE_CIDR=10.214.0.0/24
NODE_KUBERNETES_SERVICE_IP=10.214.0.1
NODE_PODS_CIDR=10.213.0.0/16 # every node's pods (kube-proxy's clusterCIDR, and the pods' route to the other node)
NODE_API_IP=10.213.0.1       # node 1's address: CoreDNS and the API server proxy, for the pods of both nodes
LOCAL_REGISTRY="127.0.0.1:5005"

# Which node the functions below act on. Node 1 runs in the host's network namespace; node 2 (only for the real drain,
# see "A second real node" in e2e/README.md and e2e/design/second-real-node.md) in a network namespace of its own,
# linked to the host by one veth pair, with its own bridge, pod range, cgroup root, pod-log directory and state
# directories nested in node 1's. Node 2 needs node 1: it shares its CoreDNS, API server proxy and registry.
node_select() {
  NODE_INDEX=$1
  case $1 in
    1)
      NODE_NAME="${SCHEDULEROPS_REAL_NODE:-real-node}" NODE_BRIDGE=sops0 NODE_IP=10.213.0.1
      NODE_POD_CIDR=10.213.0.0/24 NODE_CGROUP_ROOT="" NODE_SUFFIX=""
      ;;
    2)
      NODE_NAME="${SCHEDULEROPS_REAL_NODE:-real-node}-2" NODE_BRIDGE=sops1 NODE_IP=10.213.1.1
      NODE_POD_CIDR=10.213.1.0/24 NODE_CGROUP_ROOT=/schedulerops-node2 NODE_SUFFIX=/node2
      ;;
    *) die "no real node $1: 1 or 2" ;;
  esac
}
node_select 1

node_state() { echo "/var/lib/schedulerops/$CLUSTER$NODE_SUFFIX"; }
node_run() { echo "/run/schedulerops/$CLUSTER$NODE_SUFFIX"; }
node_logs() { echo "$(cluster_dir)/logs/node${NODE_SUFFIX#/node}"; }
# Node 2's network namespace: a file held by a bind mount (nsenter --net, never `ip netns exec`, which would give each
# daemon a mount namespace of its own where the kubelet's volume mounts are not seen by containerd).
node_netns() { [ "$NODE_INDEX" = 1 ] || echo "$(node_run)/netns"; }
node_in() {
  if [ "$NODE_INDEX" = 1 ]; then "$@"; else nsenter --net="$(node_netns)" -- "$@"; fi
}
node_pki() { echo "$(node_state)/pki"; }
containerd_sock() { echo "$(node_run)/containerd/containerd.sock"; }
ctr_() { ctr --address "$(containerd_sock)" --namespace k8s.io "$@"; }

node_require() {
  [ "$(id -u)" = 0 ] || die "a real node needs root (containerd, kubelet, network devices, iptables)"
  local missing=() c
  for c in containerd containerd-shim-runc-v2 runc ctr iptables ip socat openssl conntrack nsenter unshare findmnt; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
  [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] || missing+=("containernetworking-plugins")
  [ ${#missing[@]} -eq 0 ] || die "missing for the real node: ${missing[*]} (apt-get install containerd runc containernetworking-plugins iptables conntrack socat openssl util-linux; .ci/run installs them)"
  local b
  for b in kubelet kube-proxy coredns; do
    [ -x "$BIN_DIR/$b" ] || die "$BIN_DIR/$b missing: run 'e2e/cluster build'"
  done
  [ -d /sys/fs/cgroup/memory ] || die "the real node expects the cgroup v1 memory hierarchy at /sys/fs/cgroup/memory"
}

# What kube-router's firewall needs besides the node's tools: ipset, and br_netfilter so that packets between two pods
# of the bridge pass iptables (its set, physdev, NFLOG and addrtype matches are built into this kernel; see
# "Third-party tools" in e2e/README.md).
node_network_policy_require() {
  command -v ipset >/dev/null 2>&1 || die "missing for the NetworkPolicy enforcer: ipset (apt-get install ipset; .ci/run installs it)"
  [ "$(node_in sysctl -n net.bridge.bridge-nf-call-iptables 2>/dev/null)" = 1 ] \
    || die "the NetworkPolicy enforcer needs br_netfilter with net.bridge.bridge-nf-call-iptables=1 (the real node sets it)"
}

node_pid_alive() { [ -f "$1" ] && pid_running "$(cat "$1")"; }

# Starts "$@" detached, logging to $log, pid in $pidfile.
node_spawn() {
  local name=$1 pidfile=$2
  shift 2
  mkdir -p "$(node_logs)"
  # nsenter without --fork execs: the pid file holds the daemon's pid on either node.
  if [ "$NODE_INDEX" != 1 ] && [ -z "${NODE_SPAWN_ON_HOST:-}" ]; then set -- nsenter --net="$(node_netns)" -- "$@"; fi
  (without_inherited_fds setsid "$@" >>"$(node_logs)/$name.log" 2>&1 </dev/null) &
  echo $! >"$pidfile"
}

# The same in the host's network namespace, whichever node is selected.
node_spawn_host() { NODE_SPAWN_ON_HOST=1 node_spawn "$@"; }

node_wait() {
  local what=$1 seconds=$2
  shift 2
  local i
  for i in $(seq 1 "$seconds"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 1
  done
  die "$what did not come up within ${seconds}s (logs: $(node_logs))"
}

# --- certificates ------------------------------------------------------------------------------------------

# A client (or serving) certificate signed by the cluster CA that kwokctl generated.
node_cert() {
  local name=$1 subject=$2 usage=$3 sans=${4:-}
  local dir
  dir=$(node_pki)
  [ -f "$dir/$name.crt" ] && return
  local ext="$dir/$name.ext"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -z "$sans" ] || echo "subjectAltName=$sans"
  } >"$ext"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$dir/$name.key" -subj "$subject" -out "$dir/$name.csr" 2>/dev/null
  openssl x509 -req -in "$dir/$name.csr" -CA "$(cluster_dir)/pki/ca.crt" -CAkey "$(cluster_dir)/pki/ca.key" \
    -CAcreateserial -days 30 -extfile "$ext" -out "$dir/$name.crt" 2>/dev/null || die "could not sign $name's certificate"
  rm -f "$dir/$name.csr" "$ext"
}

node_kubeconfig() {
  local name=$1 server
  server=$(kc config view -o jsonpath='{.clusters[0].cluster.server}')
  # Node 2's loopback is its own: it reaches the API server through node 1's proxy.
  [ "$NODE_INDEX" = 1 ] || server="https://$NODE_API_IP:${server##*:}"
  cat >"$(node_pki)/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: local
    cluster:
      server: $server
      certificate-authority: $(cluster_dir)/pki/ca.crt
users:
  - name: $name
    user:
      client-certificate: $(node_pki)/$name.crt
      client-key: $(node_pki)/$name.key
contexts:
  - name: local
    context: {cluster: local, user: $name}
current-context: local
EOF
}

# --- host network ------------------------------------------------------------------------------------------

# Sysctls the node needs or the kubelet changes (protectKernelDefaults: false); their old values are restored.
# kube-proxy changes none (its conntrack settings below are 0: leave the host's as they are).
NODE_SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables vm.overcommit_memory vm.panic_on_oom
  kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes)

node_network_up() {
  local saved="$(node_state)/sysctls.saved"
  if [ ! -f "$saved" ]; then
    local s
    for s in "${NODE_SYSCTLS[@]}"; do
      echo "$s=$(sysctl -n "$s" 2>/dev/null || echo)" >>"$saved"
    done
  fi
  sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 >/dev/null
  if ! ip link show "$NODE_BRIDGE" >/dev/null 2>&1; then
    ip link add "$NODE_BRIDGE" type bridge
  fi
  ip addr show dev "$NODE_BRIDGE" | grep -q " $NODE_IP/" || ip addr add "$NODE_IP/24" dev "$NODE_BRIDGE"
  ip link set "$NODE_BRIDGE" up
  # Pods talk to each other, to services and to this host; nothing they send is forwarded anywhere else, and
  # nothing from elsewhere is forwarded to them. No masquerading to the outside.
  if ! iptables -S SCHEDULEROPS-NODE >/dev/null 2>&1; then
    iptables -N SCHEDULEROPS-NODE
    iptables -A SCHEDULEROPS-NODE -i "$NODE_BRIDGE" -o "$NODE_BRIDGE" -j ACCEPT
    iptables -A SCHEDULEROPS-NODE -s "$NODE_POD_CIDR" -j DROP
    iptables -A SCHEDULEROPS-NODE -d "$NODE_POD_CIDR" -j DROP
  fi
  iptables -C FORWARD -j SCHEDULEROPS-NODE 2>/dev/null || iptables -I FORWARD 1 -j SCHEDULEROPS-NODE
  node_cni_config
}

# A pod's routes: its node's bridge, the service range and the other node's pods (via its gateway, this node).
node_cni_config() {
  mkdir -p "$(node_state)/cni/net.d" "$(node_state)/cni/ipam"
  cat >"$(node_state)/cni/net.d/10-schedulerops.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "schedulerops${NODE_SUFFIX:+-node$NODE_INDEX}",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$NODE_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$(node_state)/cni/ipam",
        "ranges": [[{"subnet": "$NODE_POD_CIDR", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "$NODE_SERVICE_CIDR"}, {"dst": "$NODE_PODS_CIDR"}]
      }
    }
  ]
}
EOF
}

# Node 2's network: a namespace of its own with its bridge, joined to the host by the veth pair sops-n2h (host,
# 10.213.254.1) / sops-n2n (namespace, 10.213.254.2) and plain routes, no NAT, no default route. Pods of the two nodes
# reach each other, and node 2's pods reach CoreDNS and the API server proxy on 10.213.0.1; the host forwards nothing
# else to or from the veth. Sysctls set inside the namespace are its own and go with it.
NODE2_HOST_VETH=sops-n2h
NODE2_NS_VETH=sops-n2n

node_netns_up() {
  local netns
  netns=$(node_netns)
  if ! findmnt -rn "$netns" >/dev/null 2>&1; then
    touch "$netns"
    unshare --net="$netns" true || die "could not create node $NODE_NAME's network namespace"
  fi
  # Kept under /run (gone after a reboot, when the id could name another namespace); trusted only while mounted.
  node_in readlink /proc/self/ns/net >"$(node_run)/netns.id"
  [ -s "$(node_run)/netns.id" ] || die "could not read the id of node $NODE_NAME's network namespace"
  if ! ip link show "$NODE2_HOST_VETH" >/dev/null 2>&1; then
    ip link add "$NODE2_HOST_VETH" type veth peer name "$NODE2_NS_VETH"
    ip link set "$NODE2_NS_VETH" netns "$netns"
  fi
  ip addr show dev "$NODE2_HOST_VETH" | grep -q " 10.213.254.1/" || ip addr add 10.213.254.1/30 dev "$NODE2_HOST_VETH"
  ip link set "$NODE2_HOST_VETH" up
  ip route replace "$NODE_POD_CIDR" via 10.213.254.2 dev "$NODE2_HOST_VETH"
  node_in ip link set lo up
  node_in ip addr show dev "$NODE2_NS_VETH" | grep -q " 10.213.254.2/" || node_in ip addr add 10.213.254.2/30 dev "$NODE2_NS_VETH"
  node_in ip link set "$NODE2_NS_VETH" up
  node_in ip link show "$NODE_BRIDGE" >/dev/null 2>&1 || node_in ip link add "$NODE_BRIDGE" type bridge
  node_in ip addr show dev "$NODE_BRIDGE" | grep -q " $NODE_IP/" || node_in ip addr add "$NODE_IP/24" dev "$NODE_BRIDGE"
  node_in ip link set "$NODE_BRIDGE" up
  node_in ip route replace 10.213.0.0/24 via 10.213.254.1 dev "$NODE2_NS_VETH"
  node_in sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 >/dev/null
  if ! node_in iptables -S SCHEDULEROPS-NODE >/dev/null 2>&1; then
    node_in iptables -N SCHEDULEROPS-NODE
    node_in iptables -A SCHEDULEROPS-NODE -i "$NODE_BRIDGE" -o "$NODE_BRIDGE" -j ACCEPT
    node_in iptables -A SCHEDULEROPS-NODE -i "$NODE_BRIDGE" -o "$NODE2_NS_VETH" -s "$NODE_POD_CIDR" -d "$NODE_PODS_CIDR" -j ACCEPT
    node_in iptables -A SCHEDULEROPS-NODE -i "$NODE2_NS_VETH" -o "$NODE_BRIDGE" -d "$NODE_POD_CIDR" -j ACCEPT
    node_in iptables -A SCHEDULEROPS-NODE -s "$NODE_POD_CIDR" -j DROP
    node_in iptables -A SCHEDULEROPS-NODE -d "$NODE_POD_CIDR" -j DROP
  fi
  node_in iptables -C FORWARD -j SCHEDULEROPS-NODE 2>/dev/null || node_in iptables -I FORWARD 1 -j SCHEDULEROPS-NODE
  # On the host: pod to pod between the two bridges, before node 1's chain (whose DROPs would catch it).
  local node1_pods=10.213.0.0/24
  if ! iptables -S SCHEDULEROPS-NODE2 >/dev/null 2>&1; then
    iptables -N SCHEDULEROPS-NODE2
    iptables -A SCHEDULEROPS-NODE2 -i sops0 -o "$NODE2_HOST_VETH" -s "$node1_pods" -d "$NODE_POD_CIDR" -j ACCEPT
    iptables -A SCHEDULEROPS-NODE2 -i "$NODE2_HOST_VETH" -o sops0 -s "$NODE_POD_CIDR" -d "$node1_pods" -j ACCEPT
    iptables -A SCHEDULEROPS-NODE2 -i "$NODE2_HOST_VETH" -j DROP
    iptables -A SCHEDULEROPS-NODE2 -o "$NODE2_HOST_VETH" -j DROP
  fi
  if ! iptables -C FORWARD -j SCHEDULEROPS-NODE2 2>/dev/null; then
    # After node 1's kube-router's jump when it runs (it keeps itself first), so its policies still see the traffic.
    local position
    position=$(iptables -S FORWARD | grep -n -- '-j KUBE-ROUTER-FORWARD' | head -1 | cut -d: -f1) || true # none: first
    iptables -I FORWARD "${position:-1}" -j SCHEDULEROPS-NODE2 # `-S` lists the policy first: line N is rule N-1
  fi
  node_cni_config
  # The kubelet refuses a cgroupRoot missing from any hierarchy; cpuset's must have its CPUs and memory nodes set.
  local h
  for h in /sys/fs/cgroup/*/; do
    mkdir -p "$h${NODE_CGROUP_ROOT#/}"
  done
  cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset$NODE_CGROUP_ROOT/cpuset.cpus"
  cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset$NODE_CGROUP_ROOT/cpuset.mems"
}

# The registry listens on the host's loopback only; node 2's containerd pulls from its own loopback, relayed over a
# UNIX socket (nothing new listens on a network address).
node_registry_relay_up() {
  local sock="$(node_run)/registry.sock"
  node_pid_alive "$(node_run)/registry-relay-host.pid" \
    || node_spawn_host registry-relay-host "$(node_run)/registry-relay-host.pid" \
      socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:$LOCAL_REGISTRY"
  node_pid_alive "$(node_run)/registry-relay.pid" \
    || node_spawn registry-relay "$(node_run)/registry-relay.pid" \
      socat "TCP-LISTEN:${LOCAL_REGISTRY##*:},bind=${LOCAL_REGISTRY%:*},fork,reuseaddr" "UNIX-CONNECT:$sock"
}

# --- components --------------------------------------------------------------------------------------------

node_containerd_up() {
  local pidfile
  pidfile="$(node_run)/containerd.pid"
  node_pid_alive "$pidfile" && return
  local conf="$(node_state)/containerd.toml" hosts="$(node_state)/containerd-certs.d"
  mkdir -p "$(node_state)/containerd" "$(node_run)/containerd"
  # The images' public names resolve to the local registry only: containerd never tries the real hosts.
  local registry
  for registry in registry.k8s.io ghcr.io; do
    mkdir -p "$hosts/$registry"
    cat >"$hosts/$registry/hosts.toml" <<EOF
server = "http://$LOCAL_REGISTRY"

[host."http://$LOCAL_REGISTRY"]
  capabilities = ["pull", "resolve"]
EOF
  done
  cat >"$conf" <<EOF
version = 2
root = "$(node_state)/containerd"
state = "$(node_run)/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$(containerd_sock)"

[ttrpc]
  address = "$(node_run)/containerd/containerd.sock.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$(node_state)/containerd-opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  stream_server_address = "127.0.0.1"
  netns_mounts_under_state_dir = true
  enable_selinux = false
  # This machine's root lacks CAP_SYS_RESOURCE, so runc may not lower oom_score_adj below containerd's own (the
  # kubelet asks -998 for sandboxes): "failed to update /proc/self/oom_score_adj: Permission denied".
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        # runc's state of this node's containers (the default, /run/containerd/runc, would be both nodes').
        Root = "$(node_run)/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$(node_state)/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$hosts"
EOF
  log "starting containerd ($(containerd --version | awk '{print $3}'))"
  node_spawn containerd "$pidfile" containerd --config "$conf"
  node_wait containerd 30 ctr --address "$(containerd_sock)" version
}

node_coredns_up() {
  local pidfile="$(node_run)/coredns.pid"
  node_pid_alive "$pidfile" && return
  node_cert coredns "/CN=system:schedulerops:coredns" clientAuth
  node_kubeconfig coredns
  kc apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:schedulerops:coredns
rules:
  - apiGroups: [""]
    resources: [endpoints, services, pods, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:schedulerops:coredns
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:schedulerops:coredns"}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:schedulerops:coredns"}
EOF
  # Only the plugins e2e/src/test/go/coredns compiles in: a plugin added here must be added there too.
  cat >"$(node_state)/Corefile" <<EOF
cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
    bind $NODE_IP
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $(node_pki)/coredns.kubeconfig local
        pods insecure
    }
    cache 5
}
.:53 {
    bind $NODE_IP
    errors
}
EOF
  log "starting CoreDNS v$COREDNS_VERSION on $NODE_IP:53 (cluster.local only)"
  node_spawn coredns "$pidfile" "$BIN_DIR/coredns" -conf "$(node_state)/Corefile"
}

node_apiserver_proxy_up() {
  local pidfile="$(node_run)/apiserver-proxy.pid" port
  node_pid_alive "$pidfile" && return
  port=$(kc config view -o jsonpath='{.clusters[0].cluster.server}' | sed 's#.*:\([0-9]*\)$#\1#')
  log "forwarding $NODE_IP:$port (the API server's advertised address) to 127.0.0.1:$port"
  node_spawn apiserver-proxy "$pidfile" socat "TCP-LISTEN:$port,bind=$NODE_IP,fork,reuseaddr" "TCP:127.0.0.1:$port"
}

node_kubelet_up() {
  local pidfile="$(node_run)/kubelet.pid"
  node_pid_alive "$pidfile" && return
  node_cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  node_cert kubelet-serving "/O=system:nodes/CN=system:node:$NODE_NAME" serverAuth "IP:$NODE_IP,DNS:$NODE_NAME"
  node_kubeconfig kubelet
  echo "nameserver $NODE_API_IP" >"$(node_state)/resolv.conf"
  mkdir -p "$(node_state)/kubelet"
  cat >"$(node_state)/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $(node_pki)/kubelet-serving.crt
tlsPrivateKeyFile: $(node_pki)/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $(cluster_dir)/pki/ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
failCgroupV1: false
containerRuntimeEndpoint: unix://$(containerd_sock)
imageServiceEndpoint: unix://$(containerd_sock)
clusterDNS: [$NODE_API_IP]
clusterDomain: cluster.local
resolvConf: $(node_state)/resolv.conf
podCIDR: $NODE_POD_CIDR
failSwapOn: false
serializeImagePulls: false
maxPods: 50
# A shared development machine: never evict because someone else filled the disk.
evictionHard: {memory.available: 100Mi, nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
# Short enough that tests see status and restarts quickly.
nodeStatusUpdateFrequency: 5s
syncFrequency: 10s
EOF
  if [ "$NODE_INDEX" != 1 ]; then
    # Two kubelets on one machine: each must own its pods' cgroups (a kubelet kills the processes of pod cgroups it
    # does not know, under its kubepods) and its pods' logs (it removes the log directories of pods it does not run).
    # The taint keeps every other test's pods off this node.
    cat >>"$(node_state)/kubelet.yaml" <<EOF
cgroupRoot: $NODE_CGROUP_ROOT
podLogsDir: $(node_state)/pod-logs
registerWithTaints: [{key: e2e.schedulerops.dev/second-node, effect: NoSchedule}]
EOF
  fi
  log "starting kubelet v$K8S_VERSION as node $NODE_NAME ($NODE_IP)"
  node_spawn kubelet "$pidfile" "$BIN_DIR/kubelet" --config "$(node_state)/kubelet.yaml" \
    --kubeconfig "$(node_pki)/kubelet.kubeconfig" --root-dir "$(node_state)/kubelet" \
    --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --v=2
}

node_kube_proxy_up() {
  local pidfile="$(node_run)/kube-proxy.pid"
  node_pid_alive "$pidfile" && return
  node_cert kube-proxy "/CN=system:kube-proxy" clientAuth # bound to system:node-proxier by default
  node_kubeconfig kube-proxy
  cat >"$(node_state)/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $(node_pki)/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $NODE_PODS_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {minSyncPeriod: 1s, syncPeriod: 30s}
EOF
  log "starting kube-proxy v$K8S_VERSION (iptables mode)"
  node_spawn kube-proxy "$pidfile" "$BIN_DIR/kube-proxy" --config "$(node_state)/kube-proxy.yaml" --v=2
}

node_ready() {
  [ "$(kc get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

# KWOK's own convention: once a real node exists, fake nodes are tainted so that only pods that opt in land there.
node_taint_kwok() {
  local kwok_nodes
  kwok_nodes=$(kc get nodes -o jsonpath='{range .items[?(@.metadata.annotations.kwok\.x-k8s\.io/node=="fake")]}{.metadata.name}{"\n"}{end}')
  [ -z "$kwok_nodes" ] && return
  # shellcheck disable=SC2086
  kc taint nodes $kwok_nodes kwok.x-k8s.io/node=fake:NoSchedule --overwrite >/dev/null
}

# Live facts only: the marker survives a killed run or a reboot, the node object does not survive a new cluster.
real_node_exists() { [ -f "$(node_state)/.up" ] && kc get node "$NODE_NAME" >/dev/null 2>&1; }

# e2e/cluster real-node [2]
real_node() {
  case "${1:-1}" in
    1) ;;
    2)
      real_node_second
      return
      ;;
    *) die "usage: e2e/cluster real-node [2]" ;;
  esac
  node_require
  api_ready || die "no cluster running: run 'e2e/cluster up' first"
  local other
  other=$(node_other_owner)
  [ -z "$other" ] || die "the machine's one real node belongs to cluster $other: run 'SCHEDULEROPS_CLUSTER=$other e2e/cluster down' first"
  mkdir -p "$(node_state)" "$(node_run)" "$(node_pki)" "$(node_logs)"
  node_network_up
  # The node pulls every image from the local registry (e2e/images); `e2e/cluster down` stops it with the node
  # unless another cluster still exists.
  "$(dirname "$0")/images" registry-up >/dev/null
  node_containerd_up
  node_coredns_up
  node_apiserver_proxy_up
  node_kubelet_up
  node_kube_proxy_up
  node_wait "node $NODE_NAME Ready" 90 node_ready
  touch "$(node_state)/.up"
  node_taint_kwok
  case "${SCHEDULEROPS_NETWORK_POLICY:-}" in
    on) node_network_policy_up ;;
    off) node_network_policy_down ;;
    "") ;;
    *) die "SCHEDULEROPS_NETWORK_POLICY is '$SCHEDULEROPS_NETWORK_POLICY': on or off" ;;
  esac
  local enforcer=""
  node_pid_alive "$(node_run)/kube-router.pid" && enforcer=", kube-router's NetworkPolicy firewall"
  log "real node $NODE_NAME is Ready (containerd, kubelet, kube-proxy, CoreDNS$enforcer; logs in $(node_logs))"
  echo "$NODE_NAME"
}

# Node 2 joins node 1's cluster: its own containerd, kubelet and kube-proxy in its own network namespace, tainted
# (e2e.schedulerops.dev/second-node) so that only pods that tolerate it land there. When node 1 enforces
# NetworkPolicies, node 2 runs a kube-router of its own, whose chains and ipsets live in its namespace.
real_node_second() {
  node_require
  api_ready || die "no cluster running: run 'e2e/cluster up' first"
  real_node_exists || die "a second real node needs the first: run 'e2e/cluster real-node' first"
  node_select 2
  mkdir -p "$(node_state)" "$(node_run)" "$(node_pki)" "$(node_logs)"
  node_netns_up
  node_registry_relay_up
  node_containerd_up
  node_kubelet_up
  node_kube_proxy_up
  node_wait "node $NODE_NAME Ready" 90 node_ready
  touch "$(node_state)/.up"
  local enforcer=""
  if (node_select 1 && node_pid_alive "$(node_run)/kube-router.pid"); then
    node_network_policy_up
    enforcer=", kube-router's NetworkPolicy firewall"
  fi
  log "real node $NODE_NAME is Ready (containerd, kubelet, kube-proxy$enforcer in its own network namespace; logs in $(node_logs))"
  echo "$NODE_NAME"
}

node_second_exists() { (node_select 2 && real_node_exists); }

# e2e/cluster real-node-down 2: removes node 2 and everything it changed, leaving node 1 as it was.
real_node_down() {
  [ "${1:-}" = 2 ] || die "usage: e2e/cluster real-node-down 2 (node 1 goes with 'e2e/cluster down')"
  [ "$(id -u)" = 0 ] || die "removing a real node needs root"
  # The veth, the host chain and the cgroup root are the machine's, like node 1's bridge: another cluster's node 2
  # is not this command's to remove.
  local other
  other=$(node_other_owner)
  if [ -n "$other" ]; then
    log "leaving the real nodes alone: they belong to cluster $other, which still exists"
    return 0
  fi
  node_select 2
  node_down_second
}

# Stops the kubelet and starts it again with the same state: running pods must survive it.
node_restart_kubelet() {
  real_node_exists || die "no real node"
  local pidfile="$(node_run)/kubelet.pid"
  node_stop_pid kubelet "$pidfile"
  node_kubelet_up
  node_wait "node $NODE_NAME Ready after the kubelet restart" 60 node_ready
  log "kubelet restarted"
}

# --- NetworkPolicy enforcer ---------------------------------------------------------------------------------

# kube-router's firewall only. It reads pods, namespaces, NetworkPolicies, its node (for the node's addresses) and,
# through the informers it starts for every controller, services and endpoints; it writes nothing to the API, so it
# runs under a read-only identity of its own (a client certificate of the cluster CA, like CoreDNS's).
node_kube_router_rbac() {
  kc apply -f - >/dev/null <<'EOF'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:schedulerops:kube-router
rules:
  - apiGroups: [""]
    resources: [pods, namespaces, nodes, services, endpoints]
    verbs: [get, list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [networkpolicies]
    verbs: [get, list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:schedulerops:kube-router
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:schedulerops:kube-router"}
subjects:
  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:schedulerops:kube-router"}
EOF
}

# Its first full sync is done: the jump it keeps first in FORWARD, and its default policy chain.
node_kube_router_synced() {
  node_in iptables -t filter -S FORWARD 2>/dev/null | grep -q -- '-j KUBE-ROUTER-FORWARD' \
    && node_in iptables -t filter -S KUBE-NWPLCY-DEFAULT >/dev/null 2>&1
}

node_kube_router_ipsets() {
  command -v ipset >/dev/null 2>&1 || return 0
  node_in ipset list -n 2>/dev/null | grep -E '^(KUBE-SRC-|KUBE-DST-|kube-router)' || true
}

node_network_policy_up() {
  real_node_exists || die "no real node: run 'e2e/cluster real-node' first"
  node_network_policy_require
  local pidfile="$(node_run)/kube-router.pid"
  if node_pid_alive "$pidfile"; then
    log "kube-router's NetworkPolicy firewall is already running"
    return
  fi
  local binary
  # Cached after the first build (about 7 minutes on 2 cores); ./test builds it first in its background build, and the real-node tests wait for it.
  binary=$("$(dirname "$0")/tools/build" kube-router 9>&- | tail -n 1) || die "could not build kube-router (e2e/tools/build kube-router)"
  [ -x "$binary" ] || die "kube-router missing at '$binary' (e2e/tools/build kube-router)"
  node_cert kube-router "/CN=system:schedulerops:kube-router" clientAuth
  node_kubeconfig kube-router
  node_kube_router_rbac
  # Whatever a killed kube-router left would be kept by the new one's sync, not replaced.
  node_network_policy_cleanup
  log "starting kube-router $("$binary" --version 2>&1 | grep -o 'v[0-9][0-9.]*' | head -1): the NetworkPolicy firewall only (no router, no service proxy)"
  NODE_NAME="$NODE_NAME" node_spawn kube-router "$pidfile" "$binary" \
    --run-firewall=true --run-router=false --run-service-proxy=false --run-loadbalancer=false \
    --kubeconfig "$(node_pki)/kube-router.kubeconfig" --hostname-override "$NODE_NAME" \
    --service-cluster-ip-range "$NODE_SERVICE_CIDR" --health-port 0 --metrics-port 0 --v=1
  local i
  for i in $(seq 1 60); do
    node_pid_alive "$pidfile" || die "kube-router exited: $(tail -5 "$(node_logs)/kube-router.log" 2>/dev/null)"
    node_kube_router_synced && break
    sleep 1
  done
  node_kube_router_synced || die "kube-router did not install its chains within 60 s (log: $(node_logs)/kube-router.log)"
  log "kube-router enforces the NetworkPolicies of $NODE_NAME's pods (log: $(node_logs)/kube-router.log)"
}

node_network_policy_down() {
  local pidfile="$(node_run)/kube-router.pid"
  node_pid_alive "$pidfile" && log "stopping kube-router and removing its chains and ipsets: NetworkPolicies are no longer enforced"
  node_stop_pid kube-router "$pidfile"
  node_network_policy_cleanup
  local left
  left=$(node_network_policy_leftovers)
  [ -z "$left" ] || die "kube-router left behind: $left"
}

# kube-router leaves its rules in place when it stops (only --cleanup-config removes them, and that runs the router's
# and the service proxy's clean-ups as well): the jumps into its chains, its chains (flushed first, since they jump
# into each other), then its ipsets, once no rule refers to them. kube-proxy's KUBE-* chains are left alone.
node_network_policy_cleanup() {
  local chains chain rule
  chains=$(node_in iptables -t filter -S 2>/dev/null | sed -n 's/^-N \(KUBE-ROUTER-[^ ]*\|KUBE-POD-FW-[^ ]*\|KUBE-NWPLCY-[^ ]*\)$/\1/p')
  { node_in iptables -t filter -S 2>/dev/null | grep -E '^-A (INPUT|FORWARD|OUTPUT) .*-j KUBE-ROUTER-' | sed 's/^-A/-D/' \
    | while read -r rule; do eval "node_in iptables -t filter $rule" 2>/dev/null || true; done; } || true
  for chain in $chains; do node_in iptables -t filter -F "$chain" 2>/dev/null || true; done
  for chain in $chains; do node_in iptables -t filter -X "$chain" 2>/dev/null || true; done
  local set
  for set in $(node_kube_router_ipsets); do
    node_in ipset destroy "$set" 2>/dev/null || true
  done
}

node_network_policy_leftovers() {
  local out=""
  node_in iptables -t filter -S 2>/dev/null | grep -qE '^-N (KUBE-ROUTER-|KUBE-POD-FW-|KUBE-NWPLCY-)' && out="chains $(node_in iptables -t filter -S \
    | sed -n 's/^-N \(KUBE-ROUTER-[^ ]*\|KUBE-POD-FW-[^ ]*\|KUBE-NWPLCY-[^ ]*\)$/\1/p' | tr '\n' ' ')"
  node_kube_router_ipsets | grep -q . && out="$out ipsets $(node_kube_router_ipsets | tr '\n' ' ')"
  printf '%s' "$out"
}

node_network_policy_status() {
  if node_pid_alive "$(node_run)/kube-router.pid"; then echo on; else echo off; fi
}

# e2e/cluster network-policy on|off|status
# Both real nodes when the second exists: each runs its own kube-router for its own pods.
network_policy() {
  case "${1:-status}" in
    on)
      node_network_policy_up
      if node_second_exists; then (node_select 2 && node_network_policy_up); fi
      ;;
    off)
      if node_second_exists; then (node_select 2 && node_network_policy_down); fi
      node_network_policy_down
      ;;
    status) node_network_policy_status ;;
    *) die "usage: e2e/cluster network-policy on|off|status" ;;
  esac
}

# --- teardown ----------------------------------------------------------------------------------------------

node_stop_pid() {
  local name=$1 pidfile=$2 pid i
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if pid_running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do pid_running "$pid" || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# Every process in the pods' cgroups (containers and sandboxes), then the runc shims.
node_kill_pods() {
  local dir pids
  for dir in /sys/fs/cgroup/*"$NODE_CGROUP_ROOT"/kubepods; do
    [ -d "$dir" ] || continue
    pids=$(find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
  done
  pkill -KILL -f "containerd-shim-runc-v2 -namespace k8s.io -id .* -address $(containerd_sock)" 2>/dev/null || true
}

node_remove_cgroups() {
  local dir
  for dir in /sys/fs/cgroup/*"$NODE_CGROUP_ROOT"/kubepods; do
    [ -d "$dir" ] || continue
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  [ -z "$NODE_CGROUP_ROOT" ] && return
  for dir in /sys/fs/cgroup/*"$NODE_CGROUP_ROOT"; do
    [ -d "$dir" ] || continue
    find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}

node_unmount() {
  local prefix targets
  for prefix in "$(node_state)" "$(node_run)"; do
    # Deepest first; lazily, because a dying shim may still hold one for a moment.
    targets=$(findmnt -rn -o TARGET | grep -F "$prefix/" | sort -r || true)
    [ -z "$targets" ] || printf '%s\n' "$targets" | xargs -r -n1 umount -l 2>/dev/null || true
  done
  if findmnt -rn -o TARGET | grep -qF "$(node_state)/"; then
    die "mounts under $(node_state) remain; not removing it: $(findmnt -rn -o TARGET | grep -F "$(node_state)/" | head -3)"
  fi
}

node_iptables_cleanup() {
  [ -x "$BIN_DIR/kube-proxy" ] && "$BIN_DIR/kube-proxy" --cleanup >/dev/null 2>&1 || true
  local table chain
  for table in filter nat mangle; do
    # Jumps into KUBE-* chains (the kubelet's and kube-proxy's) and into ours, then the chains themselves.
    { iptables -t "$table" -S 2>/dev/null | grep -E '^-A .* -j (KUBE-|SCHEDULEROPS-)' | sed 's/^-A/-D/' \
      | while read -r rule; do eval "iptables -t $table $rule" 2>/dev/null || true; done; } || true
    for chain in $(iptables -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\|SCHEDULEROPS-[^ ]*\)$/\1/p'); do
      iptables -t "$table" -F "$chain" 2>/dev/null || true
    done
    for chain in $(iptables -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\|SCHEDULEROPS-[^ ]*\)$/\1/p'); do
      iptables -t "$table" -X "$chain" 2>/dev/null || true
    done
  done
  command -v conntrack >/dev/null && conntrack -D -s "$NODE_POD_CIDR" >/dev/null 2>&1 || true
}

# Every step runs even when an earlier one failed; what is left over at the end is reported and fails `down`.
# The machine has one real node (one bridge, fixed addresses); its state directories name the cluster it joined.
node_owners() {
  local d
  for d in "$(dirname "$(node_state)")"/* "$(dirname "$(node_run)")"/*; do
    [ -d "$d" ] && basename "$d"
  done | sort -u
}

# The cluster, other than this one, whose real node this is while that cluster still exists (its state directory
# is there, `down` has not removed it); nothing when the node is this cluster's, or left by a cluster now gone.
node_other_owner() {
  local owner others
  others=" $(other_clusters | tr '\n' ' ') "
  for owner in $(node_owners); do
    if [[ "$others" == *" $owner "* ]]; then
      echo "$owner"
      return
    fi
  done
}

node_down() {
  [ "$(id -u)" = 0 ] || return 0
  local other owner
  other=$(node_other_owner)
  if [ -n "$other" ]; then
    log "leaving the real node alone: it belongs to cluster $other, which still exists"
    return 0
  fi
  # A node left by a cluster that is gone (a killed run): its pid files and mounts are under that cluster's name.
  for owner in $(node_owners); do
    [ "$owner" = "$CLUSTER" ] || (CLUSTER=$owner; node_down_own)
  done
  node_down_own
}

node_down_own() {
  [ -d "$(node_state)" ] || [ -d "$(node_run)" ] || ip link show "$NODE_BRIDGE" >/dev/null 2>&1 || return 0
  (node_select 2 && node_down_second) || die "node 2 could not be removed; node 1 is left as it is"
  log "removing the real node $NODE_NAME"
  (set +e; node_teardown)
  local left=()
  pgrep -f "$(node_state)|$(node_run)" >/dev/null && left+=("processes: $(pgrep -f "$(node_state)|$(node_run)" | tr '\n' ' ')")
  findmnt -rn -o TARGET | grep -qF "/schedulerops/$CLUSTER" && left+=("mounts")
  ip link show "$NODE_BRIDGE" >/dev/null 2>&1 && left+=("bridge $NODE_BRIDGE")
  iptables-save 2>/dev/null | grep -qE '^:(KUBE-|SCHEDULEROPS-)' && left+=("iptables chains")
  node_kube_router_ipsets | grep -q . && left+=("ipsets: $(node_kube_router_ipsets | tr '\n' ' ')")
  [ ${#left[@]} -eq 0 ] || die "the real node left behind: ${left[*]}"
}

# The named daemons of the selected node, then its pods' processes, containerd, and whatever a dying shim started.
node_stop_daemons_and_pods() {
  local c
  for c in "$@"; do
    node_stop_pid "$c" "$(node_run)/$c.pid"
  done
  node_kill_pods
  node_stop_pid containerd "$(node_run)/containerd.pid"
  sleep 0.5
  node_kill_pods
}

node_teardown() {
  node_stop_daemons_and_pods kube-router kubelet kube-proxy coredns apiserver-proxy
  node_unmount
  node_remove_cgroups
  node_iptables_cleanup
  node_network_policy_cleanup # its ipsets, once no rule refers to them
  local veth
  for veth in $(ip -o link show master "$NODE_BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link del "$veth" 2>/dev/null || true
  done
  ip link del "$NODE_BRIDGE" 2>/dev/null || true
  local saved="$(node_state)/sysctls.saved" line
  if [ -f "$saved" ]; then
    while read -r line; do
      [ -n "${line#*=}" ] && sysctl -q -w "$line" >/dev/null 2>&1 || true
    done <"$saved"
  fi
  rm -rf "$(node_state)" "$(node_run)"
  rmdir /var/lib/schedulerops /run/schedulerops 2>/dev/null || true
  kc delete node "$NODE_NAME" --ignore-not-found >/dev/null 2>&1 || true
}

# Processes whose network namespace is node 2's: after its daemons and pods are stopped, none should be left.
node2_netns_pids() {
  local id p
  [ -s "$(node_run)/netns.id" ] && findmnt -rn "$(node_netns)" >/dev/null 2>&1 || return 0
  id=$(cat "$(node_run)/netns.id")
  [ -n "$id" ] || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$id" ] && echo "${p#/proc/}"
  done
  return 0
}

node_down_second() {
  [ -d "$(node_state)" ] || [ -d "$(node_run)" ] || ip link show "$NODE2_HOST_VETH" >/dev/null 2>&1 || return 0
  log "removing the real node $NODE_NAME"
  (set +e; node_teardown_second)
  local left=()
  [ -s "$(node_run)/netns.survivors" ] && left+=("processes in its network namespace: $(tr '\n' ' ' <"$(node_run)/netns.survivors")")
  pgrep -f "$(node_state)|$(node_run)" >/dev/null && left+=("processes: $(pgrep -f "$(node_state)|$(node_run)" | tr '\n' ' ')")
  findmnt -rn -o TARGET | grep -qF "$(node_state)" && left+=("mounts under $(node_state)")
  findmnt -rn -o TARGET | grep -qF "$(node_run)" && left+=("mounts under $(node_run)")
  ip link show "$NODE2_HOST_VETH" >/dev/null 2>&1 && left+=("link $NODE2_HOST_VETH")
  iptables -S SCHEDULEROPS-NODE2 >/dev/null 2>&1 && left+=("iptables chain SCHEDULEROPS-NODE2")
  compgen -G "/sys/fs/cgroup/*$NODE_CGROUP_ROOT" >/dev/null && left+=("cgroups $NODE_CGROUP_ROOT")
  [ ${#left[@]} -eq 0 ] || die "the real node $NODE_NAME left behind: ${left[*]}"
  rm -rf "$(node_state)" "$(node_run)"
  log "real node $NODE_NAME removed"
}

# Its namespace's own chains, conntrack entries, sysctls, bridge and pod veths go with the namespace.
node_teardown_second() {
  node_stop_daemons_and_pods kube-router kubelet kube-proxy registry-relay registry-relay-host
  local pids
  pids=$(node2_netns_pids)
  # shellcheck disable=SC2086
  [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
  sleep 0.2
  [ ! -d "$(node_run)" ] || node2_netns_pids >"$(node_run)/netns.survivors" # for the leftover check: unmounted, the id is no longer trusted
  (node_unmount) # the pods' network namespaces, rootfs and volumes, and node 2's own namespace file; its die
  # ends only that subshell, and the leftover check reports what it left
  node_remove_cgroups
  ip link del "$NODE2_HOST_VETH" 2>/dev/null # both ends, and the host's route
  iptables -D FORWARD -j SCHEDULEROPS-NODE2 2>/dev/null
  iptables -F SCHEDULEROPS-NODE2 2>/dev/null
  iptables -X SCHEDULEROPS-NODE2 2>/dev/null
  local net
  for net in "$NODE_POD_CIDR" 10.213.254.0/30; do # the host's entries; the namespace's went with it
    conntrack -D -s "$net" >/dev/null 2>&1
    conntrack -D -d "$net" >/dev/null 2>&1
  done
  kc delete node "$NODE_NAME" --ignore-not-found >/dev/null 2>&1
  return 0
}
