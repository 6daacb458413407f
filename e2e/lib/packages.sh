# The Debian packages the real node (e2e/lib/node.sh), its images (e2e/images), the Argo CD health-check tests and
# GitOpsTest (git, and Redis for Argo CD's controller) need; sourced by .ci/run and ./demo --in-cluster.
# install_missing_packages installs those missing with apt-get when it runs as root, and otherwise fails naming them.

# command-or-path package
required_packages=(
  "lua5.4 lua5.4"
  "lua5.1 lua5.1"
  "containerd containerd"
  "runc runc"
  "/usr/lib/cni/bridge containernetworking-plugins"
  "iptables iptables"
  "ipset ipset"
  "conntrack conntrack"
  "socat socat"
  "debootstrap debootstrap"
  "umoci umoci"
  "skopeo skopeo"
  "docker-registry docker-registry"
  "openssl openssl"
  "curl curl"
  "jq jq"
  "git git"
  "unzip unzip"
  "gcc gcc libc6-dev"
  "redis-server redis-server"
)

install_missing_packages() {
  local missing=() entry probe
  for entry in "${required_packages[@]}"; do
    probe=${entry%% *}
    if [[ $probe == /* ]]; then
      [ -e "$probe" ] && continue
    else
      command -v "$probe" >/dev/null 2>&1 && continue
    fi
    # shellcheck disable=SC2206
    missing+=(${entry#* })
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing Debian packages: ${missing[*]}" >&2
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null
    apt-get install -y -qq "${missing[@]}" >/dev/null || { echo "could not install ${missing[*]} with apt-get" >&2; return 1; }
  else
    echo "missing ${missing[*]} and cannot install them (need root and apt-get)" >&2
    return 1
  fi
}
