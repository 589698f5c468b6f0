#!/usr/bin/env bash
# Generates the local cluster's PKI with openssl: a CA, the kube-apiserver
# serving certificate (127.0.0.1/localhost), an admin client certificate in
# system:masters, the service-account signing key pair and an admin kubeconfig.
# Usage: pki.sh DIR API_PORT KUBECONFIG_OUT
set -euo pipefail
D=${1:?usage: pki.sh DIR API_PORT KUBECONFIG_OUT}; PORT=${2:?}; KC=${3:?}
mkdir -p "$D"; cd "$D"
q() { "$@" >/dev/null 2>&1; }
q openssl genrsa -out ca.key 2048
q openssl req -x509 -new -nodes -key ca.key -sha256 -days 3650 -subj "/CN=grove-local-ca" -out ca.crt
q openssl genrsa -out apiserver.key 2048
q openssl req -new -key apiserver.key -subj "/CN=kube-apiserver" -out apiserver.csr
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' > apiserver.ext
q openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -sha256 -extfile apiserver.ext -out apiserver.crt
q openssl genrsa -out admin.key 2048
q openssl req -new -key admin.key -subj "/O=system:masters/CN=grove-admin" -out admin.csr
printf 'extendedKeyUsage=clientAuth\n' > admin.ext
q openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -sha256 -extfile admin.ext -out admin.crt
q openssl genrsa -out sa.key 2048
q openssl rsa -in sa.key -pubout -out sa.pub
# Certificates are embedded so the kubeconfig stays valid when copied elsewhere.
b64() { base64 -w0 < "$1"; }
cat > "$KC" <<KC
apiVersion: v1
kind: Config
clusters:
- name: grove-local
  cluster:
    server: https://127.0.0.1:$PORT
    certificate-authority-data: $(b64 ca.crt)
users:
- name: grove-admin
  user:
    client-certificate-data: $(b64 admin.crt)
    client-key-data: $(b64 admin.key)
contexts:
- name: grove-local
  context: {cluster: grove-local, user: grove-admin, namespace: default}
current-context: grove-local
KC
chmod 600 "$KC" ca.key apiserver.key admin.key sa.key
