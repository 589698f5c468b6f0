# shellcheck shell=bash
# Sourced by hack/local-cluster: grove-operator and grove-scheduler run from
# their images (up --from-images DIR) under podman, the way the chart's
# Deployments run them in a cluster: the image's entrypoint, user, environment
# and working directory; the Deployment's arguments, environment and volume
# mount paths; the ServiceAccount's token, CA and namespace at the in-cluster
# path with KUBERNETES_SERVICE_HOST/PORT naming the API server; a read-only
# root filesystem, no capabilities, and the Deployment's memory limit. The
# host network is shared (--network host), so only the listening addresses
# change: 127.0.0.1 and this cluster's ports, for the operator through its
# configuration and for the scheduler by flags appended to the chart's.
#
# podman settings, found on this project's CI machines: crun refuses hosts
# with a cgroup v1/v2 hybrid ("cgroups in hybrid mode not supported"), so runc
# runs the containers (GROVE_LOCAL_OCI_RUNTIME overrides); without
# CAP_SYS_RESOURCE neither runtime may raise RLIMIT_NOFILE or RLIMIT_NPROC
# ("setrlimit RLIMIT_NOFILE: Operation not permitted"), which podman's
# defaults ask for, so the limits are set no higher than the caller's.

IMAGES_FILE=$DIR/from-images
OCI_RUNTIME=${GROVE_LOCAL_OCI_RUNTIME:-runc}

# from_images succeeds when this cluster runs Grove's components from images.
from_images() { [ -s "$IMAGES_FILE" ]; }

container_name() { echo "grove-local-$API_PORT-$1"; }

podman_run_flags() {
  echo --pull=never --runtime="$OCI_RUNTIME" --network=host \
    --ulimit="nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit=nproc=8192:8192
}

# load_image NAME REF loads DIR/NAME.tar into podman's storage as REF (the
# image the chart's Deployment names, without a digest) and prints the image
# ID. When REF carries a digest, the archive's index must have it.
load_image() {
  local name=$1 ref=$2 archive loaded id want
  archive=$(cat "$IMAGES_FILE")/$name.tar
  [ -f "$archive" ] || die "$archive does not exist: build the images first (make images)"
  want=${ref#*@}; [ "$want" = "$ref" ] && want=""
  ref=${ref%@*}
  loaded=$(podman load -q -i "$archive" 2>&1 | sed -En 's/^Loaded image(\(s\))?: *//p' | head -n 1)
  [ -n "$loaded" ] || die "podman could not load $archive"
  podman tag "$loaded" "$ref" >/dev/null || die "podman tag $loaded $ref failed"
  # untag with one name removes that name only (without one, every name)
  [ "$loaded" = "$ref" ] || podman untag "$loaded" "$loaded" >/dev/null 2>&1 || true
  # The chart names the multi-arch index, which the archive's own index.json
  # lists; podman records only the platform image it loaded.
  if [ -n "$want" ] && ! tar -xOf "$archive" index.json | grep -q "\"$want\""; then
    die "the chart names $name by digest $want, but $archive holds another image"
  fi
  podman image inspect "$ref" --format '{{.Id}}'
}

# deployment_field NAME PATH reads PATH of the chart's Deployment NAME's container.
deployment_field() {
  k -n "$GROVE_NS" get deployment "$1" -o jsonpath="{.spec.template.spec.containers[0].$2}"
}

# mount_path DEPLOYMENT VOLUME is where the Deployment mounts VOLUME.
mount_path() {
  local p; p=$(deployment_field "$1" "volumeMounts[?(@.name==\"$2\")].mountPath")
  [ -n "$p" ] || die "the chart's $1 Deployment mounts no volume $2"
  echo "$p"
}

# write_serviceaccount SA DIR writes what a pod of SA finds at
# /var/run/secrets/kubernetes.io/serviceaccount: a token, the cluster CA and
# the namespace, readable by the image's user.
write_serviceaccount() {
  local sa=$1 dir=$2
  mkdir -p "$dir"
  k -n "$GROVE_NS" create token "$sa" --duration=720h > "$dir/token" || die "creating a token for ServiceAccount $GROVE_NS/$sa"
  cp "$PKI/ca.crt" "$dir/ca.crt"
  printf '%s' "$GROVE_NS" > "$dir/namespace"
  chmod 0644 "$dir"/*
}

# restart_if_other_image C ID stops C when its container runs an image other than ID.
restart_if_other_image() {
  local c=$1 id=$2 running_id
  running "$c" || return 0
  running_id=$(podman inspect "$(container_name "$c")" --format '{{.Image}}' 2>/dev/null || true)
  if [ "$running_id" != "$id" ]; then log "  $c runs another image: restarting it"; stop "$c"; fi
}

# run_container C IMAGE PODMAN-FLAGS… -- ARGS… starts C's container through
# `start`, so its podman client is the process tracked, logged and stopped.
run_container() {
  local c=$1 image=$2; shift 2
  local flags=()
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  mkdir -p "$DIR/containers"
  container_name "$c" > "$DIR/containers/$c"
  podman rm -f "$(container_name "$c")" >/dev/null 2>&1 || true
  # shellcheck disable=SC2046
  start "$c" "$(command -v podman)" run --rm --name "$(container_name "$c")" $(podman_run_flags) \
    --read-only --read-only-tmpfs=false --cap-drop=all --security-opt=no-new-privileges \
    -e KUBERNETES_SERVICE_HOST=127.0.0.1 -e KUBERNETES_SERVICE_PORT="$API_PORT" \
    "${flags[@]}" "$image" "$@"
}

memory_flag() {
  local q; q=$(deployment_field "$1" resources.limits.memory)
  [ -z "$q" ] || echo "--memory=$(echo "$q" | sed 's/Ki$/k/; s/Mi$/m/; s/Gi$/g/')"
}

launch_operator_image() {
  local ref id run=$DIR/run/grove-operator args=() env=()
  ref=$(deployment_field grove-operator image)
  id=$(load_image grove-operator "$ref") || exit 1
  restart_if_other_image grove-operator "$id"
  write_operator_config
  rm -rf "$run" && mkdir -p "$run/config" "$run/webhook-certs"
  cp "$DIR/config/operator.yaml" "$run/config/config.yaml"
  chmod 0755 "$run/config" && chmod 0644 "$run/config/config.yaml"
  # auto mode writes its certificates here: writable by the image's user only.
  chown 65532:65532 "$run/webhook-certs" && chmod 0700 "$run/webhook-certs"
  write_serviceaccount grove-operator "$run/serviceaccount"
  mapfile -t args < <(deployment_field grove-operator 'args[*]' | tr ' ' '\n')
  local gogc; gogc=$(operator_gogc)
  env=(-e POD_NAMESPACE="$GROVE_NS")
  [ -z "$gogc" ] || env+=(-e GOGC="$gogc")
  log "grove-operator from image $ref ($id): ${args[*]}"
  # shellcheck disable=SC2046
  run_container grove-operator "${ref%@*}" "${env[@]}" $(memory_flag grove-operator) \
    -v "$run/config:$(mount_path grove-operator config):ro" \
    -v "$run/webhook-certs:$(mount_path grove-operator webhook-certs)" \
    -v "$run/serviceaccount:/var/run/secrets/kubernetes.io/serviceaccount:ro" \
    -- "${args[@]}"
}

launch_scheduler_image() {
  local ref id run=$DIR/run/grove-scheduler args=() a
  ref=$(deployment_field grove-scheduler image)
  id=$(load_image grove-scheduler "$ref") || exit 1
  restart_if_other_image grove-scheduler "$id"
  rm -rf "$run" && mkdir -p "$run/config"
  k -n "$GROVE_NS" get configmap grove-scheduler-config -o jsonpath='{.data.config\.yaml}' > "$run/config/config.yaml" ||
    die "reading ConfigMap $GROVE_NS/grove-scheduler-config"
  chmod 0755 "$run/config" && chmod 0644 "$run/config/config.yaml"
  write_serviceaccount grove-scheduler "$run/serviceaccount"
  for a in $(deployment_field grove-scheduler 'args[*]'); do
    case $a in
      --grove-metrics-bind-address=0) args+=("$a") ;;
      --grove-metrics-bind-address=*) args+=("--grove-metrics-bind-address=127.0.0.1:$SCHED_METRICS_PORT") ;;
      *) args+=("$a") ;;
    esac
  done
  args+=(--bind-address=127.0.0.1 --secure-port="$SCHED_PORT")
  log "grove-scheduler from image $ref ($id): ${args[*]}"
  # shellcheck disable=SC2046
  run_container grove-scheduler "${ref%@*}" $(memory_flag grove-scheduler) \
    -v "$run/config:$(mount_path grove-scheduler config):ro" \
    -v "$run/serviceaccount:/var/run/secrets/kubernetes.io/serviceaccount:ro" \
    -- "${args[@]}"
}

# cmd_initc NAMESPACE POD [--timeout S] [ARGS…] runs the grove-initc init
# container of POD from its image as a kubelet would: the image and arguments
# the operator injected (ARGS replace them), the downward-API files and the
# token Secret at the container's mount paths; --timeout stops it after S
# seconds. Its exit code is grove-initc's.
cmd_initc() {
  local ns=${1:?namespace} pod=${2:?pod} run image podinfo token secret timeout=()
  shift 2
  if [ "${1:-}" = --timeout ]; then timeout=(--timeout "$2"); shift 2; fi
  load_ports
  from_images || die "initc: the cluster does not run from images (up --from-images DIR)"
  run=$DIR/run/initc-$ns-$pod
  rm -rf "$run" && mkdir -p "$run/pod-info" "$run/token"
  local c='initContainers[?(@.name=="grove-initc")]'
  image=$(k -n "$ns" get pod "$pod" -o jsonpath="{.spec.$c.image}")
  [ -n "$image" ] || die "pod $ns/$pod has no grove-initc init container"
  # The archive is loaded under the name the operator injected; a tag must be
  # the archive's version (the operator injects grove-initc by its own version).
  load_image grove-initc "$image" >/dev/null || exit 1
  local tag=${image%@*} version
  tag=${tag##*:}
  version=$(podman image inspect "${image%@*}" --format '{{index .Labels "org.opencontainers.image.version"}}')
  [ "$tag" = "$version" ] || die "pod $ns/$pod runs grove-initc tagged $tag, the grove-initc image is version $version"
  local args=("$@")
  [ $# -gt 0 ] || mapfile -t args < <(k -n "$ns" get pod "$pod" -o jsonpath="{range .spec.$c.args[*]}{@}{\"\\n\"}{end}")
  podinfo=$(k -n "$ns" get pod "$pod" -o jsonpath="{.spec.$c.volumeMounts[?(@.name==\"pod-info-vol\")].mountPath}")
  token=$(k -n "$ns" get pod "$pod" -o jsonpath="{.spec.$c.volumeMounts[?(@.name==\"sa-token-secret-vol\")].mountPath}")
  secret=$(k -n "$ns" get pod "$pod" -o jsonpath='{.spec.volumes[?(@.name=="sa-token-secret-vol")].secret.secretName}')
  printf '%s' "$ns" > "$run/pod-info/namespace"
  k -n "$ns" get pod "$pod" -o jsonpath='{.metadata.labels.grove\.io/podgang}' > "$run/pod-info/podgangname"
  local key
  for key in token ca.crt namespace; do
    k -n "$ns" get secret "$secret" -o jsonpath="{.data.${key//./\\.}}" | base64 -d > "$run/token/$key"
  done
  chmod 0755 "$run/pod-info" "$run/token" && chmod 0644 "$run/pod-info"/* "$run/token"/*
  # shellcheck disable=SC2046
  podman run --rm "${timeout[@]}" $(podman_run_flags) --read-only --read-only-tmpfs=false --cap-drop=all \
    --security-opt=no-new-privileges \
    -e KUBERNETES_SERVICE_HOST=127.0.0.1 -e KUBERNETES_SERVICE_PORT="$API_PORT" \
    -v "$run/pod-info:$podinfo:ro" -v "$run/token:$token:ro" "${image%@*}" "${args[@]}"
}
