#!/usr/bin/env bash
# Prints grove-operator's three webhook configurations for a local operator
# reached by URL (https://127.0.0.1:PORT). No caBundle: in certProvisionMode
# auto the operator injects its CA into these configurations by name.
# Usage: webhooks.sh PORT
set -euo pipefail
PORT=${1:?usage: webhooks.sh PORT}
URL=https://127.0.0.1:$PORT
cat <<Y
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: podcliqueset-defaulting-webhook
  labels: {app.kubernetes.io/part-of: grove, app.kubernetes.io/component: webhook}
webhooks:
- name: pcs.defaulting.webhooks.grove.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  matchPolicy: Exact
  timeoutSeconds: 10
  clientConfig: {url: "$URL/webhooks/default-podcliqueset"}
  rules:
  - {apiGroups: [grove.io], apiVersions: [v1alpha1], operations: [CREATE, UPDATE], resources: [podcliquesets], scope: Namespaced}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: podcliqueset-validating-webhook
  labels: {app.kubernetes.io/part-of: grove, app.kubernetes.io/component: webhook}
webhooks:
- name: pcs.validating.webhooks.grove.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  matchPolicy: Exact
  timeoutSeconds: 10
  clientConfig: {url: "$URL/webhooks/validate-podcliqueset"}
  rules:
  - {apiGroups: [grove.io], apiVersions: [v1alpha1], operations: [CREATE, UPDATE], resources: [podcliquesets], scope: Namespaced}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: clustertopology-validating-webhook
  labels: {app.kubernetes.io/part-of: grove, app.kubernetes.io/component: webhook}
webhooks:
- name: clustertopology.validating.webhooks.grove.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  matchPolicy: Exact
  timeoutSeconds: 10
  clientConfig: {url: "$URL/webhooks/validate-clustertopology"}
  rules:
  - {apiGroups: [grove.io], apiVersions: [v1alpha1], operations: [CREATE, UPDATE], resources: [clustertopologies], scope: Cluster}
Y
