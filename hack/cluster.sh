#!/usr/bin/env bash
# The local cluster: real etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok (simulated nodes) and metrics-server (metrics.k8s.io,
# `kubectl top`), all on 127.0.0.1 with RBAC on.
#
#   hack/cluster.sh up      build if needed, start everything, wait until ready
#   hack/cluster.sh down    stop everything this script started
#   hack/cluster.sh status  show what runs
#   hack/cluster.sh env     print the variables the other scripts use
#
# State (data, certificates, kubeconfigs, logs) lives in $CLUSTER_DIR, outside
# the repo. Set KUBEGLASS_CLUSTER_DIR and the *_PORT variables to run a second
# cluster beside the first (the tests do).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# Everything this makes (keys, tokens, kubeconfigs, etcd's data, logs) is
# for this user only: folders 0700, files 0600.
umask 077

PIDS="$CLUSTER_DIR/pids"
LOGS="$CLUSTER_DIR/logs"
PKI="$CLUSTER_DIR/pki"

random_token() { openssl rand -hex 16; }

# No namespace in the context: kubectl reads that as `default`, and Kubeglass
# (which opens in a context's namespace when it names one) as all namespaces.
write_kubeconfig() { # write_kubeconfig FILE USER TOKEN
  local file=$1 user=$2 token=$3
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubeglass-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: $user
  user:
    token: $token
contexts:
- name: $user@kubeglass-local
  context:
    cluster: kubeglass-local
    user: $user
current-context: $user@kubeglass-local
EOF
  chmod 600 "$file"
}

# sign_cert NAME SUBJECT EXTENSIONS [CA]: a key and a certificate for
# SUBJECT ($PKI/NAME.key, NAME.crt), signed by CA ($PKI/CA.crt, default the
# project's "ca"), with the given x509 extensions (one per line).
sign_cert() {
  local name=$1 subject=$2 extensions=$3 ca=${4:-ca}
  openssl req -newkey rsa:2048 -nodes -subj "$subject" \
    -keyout "$PKI/$name.key" -out "$PKI/$name.csr" 2>/dev/null
  printf '%s\n' "$extensions" >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" -CAcreateserial \
    -days 3650 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
}

make_pki() {
  [[ -f "$PKI/sa.key" ]] && return
  log "creating certificates and tokens in $PKI"
  mkdir -p "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kubeglass-local-ca" \
    -keyout "$PKI/ca.key" -out "$PKI/ca.crt" 2>/dev/null
  sign_cert apiserver "/CN=kube-apiserver" $'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc'
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  # Static bearer tokens: token,user,uid,"groups".
  {
    echo "$(random_token),admin,uid-admin,\"system:masters\""
    echo "$(random_token),system:kube-controller-manager,uid-kcm"
    echo "$(random_token),system:kube-scheduler,uid-scheduler"
    echo "$(random_token),kwok-controller,uid-kwok,\"system:masters\""
    echo "$(random_token),viewer,uid-viewer"
  } >"$PKI/tokens.csv"
  chmod 600 "$PKI/tokens.csv" "$PKI"/*.key
}

# etcd's certificates, from the same CA: a server certificate (also used
# for the peer port) and one client certificate that the apiserver and the
# test control present. etcd refuses clients without one, so no page in a
# browser (which has neither the CA nor a client certificate) can talk to it.
make_etcd_pki() {
  [[ -f "$PKI/etcd-client.crt" ]] && return
  log "creating etcd's server and client certificates in $PKI"
  sign_cert etcd-server "/CN=etcd" $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth'
  sign_cert etcd-client "/CN=kube-apiserver-etcd-client" $'extendedKeyUsage=clientAuth'
  chmod 600 "$PKI"/*.key
}

# The kubelet API's certificates: kwok serves the simulated nodes' kubelet
# API (logs, and later metrics) on 127.0.0.1:$KWOK_PORT, with a serving
# certificate from the project's CA for that address, and the apiserver
# presents its kubelet client certificate and checks the serving one. This
# is the path `kubectl logs` takes on a real cluster: apiserver -> the
# node's InternalIP and kubelet port.
make_kubelet_pki() {
  [[ -f "$PKI/apiserver-kubelet-client.crt" ]] && return
  log "creating the kubelet API's serving and client certificates in $PKI"
  sign_cert kubelet-server "/CN=kwok-kubelet" $'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth'
  sign_cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" $'extendedKeyUsage=clientAuth'
  chmod 600 "$PKI"/*.key
}

# The aggregation layer's certificates, as kubeadm makes them: a front-proxy
# CA of its own (so no certificate from the main CA can assert a user in
# headers) and the client certificate the apiserver presents when it proxies
# a request to metrics-server, which believes the X-Remote-User/-Group
# headers only from that CA and that name. Plus metrics-server's serving
# certificate (for the name the aggregator checks, <service>.<namespace>.svc,
# and 127.0.0.1) and its client certificate (user metrics-server), from the
# main CA.
make_metrics_pki() {
  [[ -f "$PKI/metrics-server-client.crt" ]] && return
  log "creating the front proxy's CA and client certificate and metrics-server's certificates in $PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kubeglass-local-front-proxy-ca" \
    -keyout "$PKI/front-proxy-ca.key" -out "$PKI/front-proxy-ca.crt" 2>/dev/null
  sign_cert front-proxy-client "/CN=front-proxy-client" $'extendedKeyUsage=clientAuth' front-proxy-ca
  sign_cert metrics-server "/CN=metrics-server" $'subjectAltName=DNS:metrics-server.kube-system.svc,IP:127.0.0.1\nextendedKeyUsage=serverAuth'
  sign_cert metrics-server-client "/CN=metrics-server" $'extendedKeyUsage=clientAuth'
  chmod 600 "$PKI"/*.key
}

etcd_healthy() {
  curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/etcd-client.crt" --key "$PKI/etcd-client.key" \
    "https://127.0.0.1:$ETCD_PORT/health" >/dev/null
}

token_of() { awk -F, -v u="$1" '$2 == u {print $1}' "$PKI/tokens.csv"; }

start() { # start NAME COMMAND...: run in the background, log to $LOGS/NAME.log
  local name=$1; shift
  if [[ -f "$PIDS/$name" ]] && kill -0 "$(cat "$PIDS/$name")" 2>/dev/null; then
    return
  fi
  "$@" >>"$LOGS/$name.log" 2>&1 &
  echo $! >"$PIDS/$name"
}

check_running() { # fail early, with the log, if a component died
  local name=$1
  if ! kill -0 "$(cat "$PIDS/$name" 2>/dev/null)" 2>/dev/null; then
    echo "---- last lines of $LOGS/$name.log ----" >&2
    tail -n 30 "$LOGS/$name.log" >&2 || true
    die "$name exited"
  fi
}

apiserver_ready() {
  curl -sf --cacert "$PKI/ca.crt" "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null
}

metrics_api_available() {
  [[ "$(kc get apiservice v1beta1.metrics.k8s.io \
    -o 'jsonpath={.status.conditions[?(@.type=="Available")].status}' 2>/dev/null)" == True ]]
}

# metrics-server's objects: its RBAC (read nodes, pods and nodes/metrics;
# delegate authentication and authorization to the apiserver; read the
# requestheader settings in kube-system's extension-apiserver-
# authentication), metrics.k8s.io readable by view, edit and admin, and the
# APIService. metrics-server runs on this machine, not in a pod, and
# Endpoints cannot hold a loopback address, so the Service is an
# ExternalName 127.0.0.1, which the aggregator dials as
# https://127.0.0.1:<the APIService's port>, checking the serving
# certificate against the CA for the name metrics-server.kube-system.svc.
metrics_server_manifest() {
  cat <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:aggregated-metrics-reader
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
rules:
- apiGroups: [metrics.k8s.io]
  resources: [pods, nodes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:metrics-server
rules:
- apiGroups: [""]
  resources: [nodes/metrics]
  verbs: [get]
- apiGroups: [""]
  resources: [pods, nodes]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:metrics-server
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:metrics-server}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: metrics-server}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: metrics-server:system:auth-delegator
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:auth-delegator}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: metrics-server}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: metrics-server-auth-reader
  namespace: kube-system
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: extension-apiserver-authentication-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: metrics-server}
---
apiVersion: v1
kind: Service
metadata:
  name: metrics-server
  namespace: kube-system
  labels: {k8s-app: metrics-server}
spec:
  type: ExternalName
  externalName: 127.0.0.1
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  service: {name: metrics-server, namespace: kube-system, port: $METRICS_SERVER_PORT}
  caBundle: $(base64 -w0 "$PKI/ca.crt")
EOF
}

up() {
  bash "$HACK_DIR/build-cluster.sh"
  mkdir -p "$CLUSTER_DIR" "$PIDS" "$LOGS"
  # A folder made before the umask was set here is closed now.
  chmod 700 "$CLUSTER_DIR"
  make_pki
  make_etcd_pki
  make_kubelet_pki
  make_metrics_pki
  local t0=$SECONDS

  # Client and peer ports over TLS, and only for clients with a certificate
  # from the project's CA. etcd's CORS default (and an empty --cors) answers
  # every origin; the one origin allowed here is under the reserved .invalid
  # domain, which no page can have.
  start etcd "$CLUSTER_BIN/etcd" \
    --name kubeglass --data-dir "$CLUSTER_DIR/etcd-data" \
    --listen-client-urls "https://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "https://127.0.0.1:$ETCD_PORT" \
    --cert-file "$PKI/etcd-server.crt" --key-file "$PKI/etcd-server.key" \
    --client-cert-auth --trusted-ca-file "$PKI/ca.crt" \
    --listen-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "https://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "kubeglass=https://127.0.0.1:$ETCD_PEER_PORT" \
    --peer-cert-file "$PKI/etcd-server.crt" --peer-key-file "$PKI/etcd-server.key" \
    --peer-client-cert-auth --peer-trusted-ca-file "$PKI/ca.crt" \
    --cors "http://kubeglass.invalid:1" \
    --quota-backend-bytes 4294967296 --log-level warn
  wait_for "etcd" 30 etcd_healthy
  check_running etcd

  # PodTemplates skip the watch cache (--watch-cache-sizes podtemplates#0):
  # their watches go straight to etcd, so after an etcd compaction an old
  # resourceVersion really gets 410 Gone (the informer integration tests
  # rely on it). Nothing else here uses PodTemplates.
  start kube-apiserver "$CLUSTER_BIN/kube-apiserver" \
    --etcd-servers "https://127.0.0.1:$ETCD_PORT" \
    --etcd-cafile "$PKI/ca.crt" --etcd-certfile "$PKI/etcd-client.crt" --etcd-keyfile "$PKI/etcd-client.key" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$APISERVER_PORT" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --token-auth-file "$PKI/tokens.csv" \
    --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" \
    --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --event-ttl 1h \
    --endpoint-reconciler-type none \
    --watch-cache-sizes podtemplates#0 \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" \
    --kubelet-preferred-address-types InternalIP \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" \
    --proxy-client-key-file "$PKI/front-proxy-client.key" \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" \
    --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User \
    --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --v 1
  local deadline=$((SECONDS + 120))
  until apiserver_ready; do
    check_running kube-apiserver
    ((SECONDS < deadline)) || die "kube-apiserver not ready after 120s (see $LOGS/kube-apiserver.log)"
    sleep 0.5
  done

  write_kubeconfig "$ADMIN_KUBECONFIG" admin "$(token_of admin)"
  write_kubeconfig "$CLUSTER_DIR/kcm.kubeconfig" system:kube-controller-manager "$(token_of system:kube-controller-manager)"
  write_kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" system:kube-scheduler "$(token_of system:kube-scheduler)"
  write_kubeconfig "$CLUSTER_DIR/kwok.kubeconfig" kwok-controller "$(token_of kwok-controller)"
  write_kubeconfig "$RESTRICTED_KUBECONFIG" viewer "$(token_of viewer)"

  start kube-controller-manager "$CLUSTER_BIN/kube-controller-manager" \
    --kubeconfig "$CLUSTER_DIR/kcm.kubeconfig" \
    --authentication-kubeconfig "$CLUSTER_DIR/kcm.kubeconfig" \
    --authorization-kubeconfig "$CLUSTER_DIR/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 \
    --service-account-private-key-file "$PKI/sa.key" \
    --root-ca-file "$PKI/ca.crt" \
    --use-service-account-credentials=true \
    --leader-elect=false \
    --v 1
  start kube-scheduler "$CLUSTER_BIN/kube-scheduler" \
    --kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --authentication-kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$CLUSTER_DIR/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 0 \
    --leader-elect=false \
    --v 1
  # kwok's kubelet API reads which file holds each container's log from Logs
  # objects (hack/demo-logs.py writes both); the nodes advertise 127.0.0.1
  # and kwok's port, so the apiserver reaches it as it reaches a kubelet.
  # It also serves each node's /metrics/resource (kwok-metrics.yaml: usage
  # from the pods' annotations) for metrics-server.
  kc apply -f "$CLUSTER_BIN/kwok-crds.yaml" >/dev/null
  kc wait --for=condition=Established crd/logs.kwok.x-k8s.io crd/clusterlogs.kwok.x-k8s.io \
    crd/clusterexecs.kwok.x-k8s.io crd/clusterportforwards.kwok.x-k8s.io --timeout=60s >/dev/null
  # A shell "in" any container is a process kwok starts on this machine,
  # in a folder of its own that holds nothing, with a small environment:
  # as nobody (uid and gid 65534) when kwok runs as root (the folder then
  # in /tmp, since nobody cannot enter root's home), else as this user. It
  # can still read what that user may read here; docs/security.md and the
  # README say so.
  local exec_root exec_user=""
  if [[ $(id -u) == 0 ]]; then
    exec_root="/tmp/kubeglass-exec/$(basename "$CLUSTER_DIR")"
    [[ ! -L /tmp/kubeglass-exec && ! -L "$exec_root" ]] || die "/tmp/kubeglass-exec is a symlink; remove it"
    mkdir -p "$exec_root"
    chown root:root /tmp/kubeglass-exec
    chmod 0755 /tmp/kubeglass-exec
    chown 65534:65534 "$exec_root"
    exec_user="securityContext: {runAsUser: 65534, runAsGroup: 65534}"
  else
    exec_root="$CLUSTER_DIR/exec-root"
    mkdir -p "$exec_root"
  fi
  kc apply -f - >/dev/null <<EOF
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: kubeglass-shell
spec:
  execs:
  - local:
      workDir: $exec_root
      envs:
      - {name: HOME, value: $exec_root}
      - {name: PATH, value: /usr/local/bin:/usr/bin:/bin}
      - {name: TERM, value: xterm-256color}
      $exec_user
EOF
  # Every pod's every port leads, through kwok's port-forward, to one small
  # real HTTP server on this machine (Python's, serving a page of its own):
  # what `kubectl port-forward` reaches in the demo and the tests.
  local web_root="$CLUSTER_DIR/demo-web"
  mkdir -p "$web_root"
  printf '<!doctype html>\n<title>Kubeglass demo</title>\n<p>Hello from the demo cluster: this page came through kubectl port-forward.</p>\n' >"$web_root/index.html"
  start demo-web python3 -m http.server --bind 127.0.0.1 --directory "$web_root" "$DEMO_HTTP_PORT"
  kc apply -f - >/dev/null <<EOF
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata:
  name: kubeglass-demo-web
spec:
  forwards:
  - target: {address: 127.0.0.1, port: $DEMO_HTTP_PORT}
EOF
  start kwok "$CLUSTER_BIN/kwok" \
    --kubeconfig "$CLUSTER_DIR/kwok.kubeconfig" \
    --config "$CLUSTER_BIN/kwok-stages.yaml" --config "$CLUSTER_BIN/kwok-metrics.yaml" \
    --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --node-ip 127.0.0.1 --node-port "$KWOK_PORT" --cidr 10.0.0.1/24 \
    --node-lease-duration-seconds 40 \
    --enable-crds Logs,ClusterLogs,ClusterExec,ClusterPortForward \
    --tls-cert-file "$PKI/kubelet-server.crt" --tls-private-key-file "$PKI/kubelet-server.key" \
    --server-address "127.0.0.1:$KWOK_PORT"

  # metrics-server scrapes each node's kubelet API every 15 s: kwok, at the
  # node's InternalIP and status port, on the path the node's annotation
  # metrics.k8s.io/resource-metrics-path names, checking kwok's serving
  # certificate against the CA. It serves metrics.k8s.io behind the
  # aggregator. CPU is a rate, so a pod or node has metrics from the second
  # scrape that saw it; the APIService is Available before that.
  cat >"$CLUSTER_DIR/metrics-server.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubeglass-local
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: metrics-server
  user:
    client-certificate: $PKI/metrics-server-client.crt
    client-key: $PKI/metrics-server-client.key
contexts:
- name: metrics-server@kubeglass-local
  context: {cluster: kubeglass-local, user: metrics-server}
current-context: metrics-server@kubeglass-local
EOF
  metrics_server_manifest | kc apply -f - >/dev/null
  start metrics-server "$METRICS_SERVER_BIN" \
    --kubeconfig "$CLUSTER_DIR/metrics-server.kubeconfig" \
    --authentication-kubeconfig "$CLUSTER_DIR/metrics-server.kubeconfig" \
    --authorization-kubeconfig "$CLUSTER_DIR/metrics-server.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$METRICS_SERVER_PORT" \
    --tls-cert-file "$PKI/metrics-server.crt" --tls-private-key-file "$PKI/metrics-server.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" \
    --kubelet-use-node-status-port \
    --kubelet-preferred-address-types InternalIP \
    --metric-resolution 15s \
    --v 1
  sleep 0.5
  for c in kube-controller-manager kube-scheduler kwok metrics-server demo-web; do check_running "$c"; done

  # The restricted user: read-only in one namespace, nothing cluster-wide.
  kc apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: demo-shop
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: viewer-can-view
  namespace: demo-shop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: view
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: viewer
EOF
  wait_for "the default service account" 60 kc -n default get serviceaccount default
  local deadline=$((SECONDS + 60))
  until metrics_api_available; do
    check_running metrics-server
    ((SECONDS < deadline)) || die "metrics.k8s.io not Available after 60s (see $LOGS/metrics-server.log and kubectl get apiservice v1beta1.metrics.k8s.io -o yaml)"
    sleep 0.5
  done
  log "cluster $KUBE_VERSION up in $((SECONDS - t0))s — kubeconfig: $ADMIN_KUBECONFIG (restricted: $RESTRICTED_KUBECONFIG)"
}

down() {
  [[ -d "$PIDS" ]] || return 0
  local order=(demo-logs demo-web metrics-server kwok kube-scheduler kube-controller-manager kube-apiserver etcd)
  for name in "${order[@]}"; do
    local f="$PIDS/$name"
    [[ -f "$f" ]] || continue
    local pid; pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
  log "cluster stopped"
}

status() {
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler kwok metrics-server demo-logs; do
    local f="$PIDS/$name"
    if [[ -f "$f" ]] && kill -0 "$(cat "$f")" 2>/dev/null; then
      echo "$name: running (pid $(cat "$f"))"
    else
      echo "$name: stopped"
    fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  env)
    echo "CLUSTER_BIN=$CLUSTER_BIN"
    echo "CLUSTER_DIR=$CLUSTER_DIR"
    echo "KUBECONFIG=$ADMIN_KUBECONFIG"
    echo "RESTRICTED_KUBECONFIG=$RESTRICTED_KUBECONFIG"
    ;;
  reset) down; rm -rf "$CLUSTER_DIR"; log "removed $CLUSTER_DIR" ;;
  *) echo "usage: $0 up|down|status|env|reset" >&2; exit 2 ;;
esac
