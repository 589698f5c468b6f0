{{- define "grove.labels" -}}
app.kubernetes.io/part-of: grove
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- /*
grove.image renders an image reference from (list image appVersion), image
being one of .Values.image.*: repository:tag, tag "" meaning appVersion; with a
digest, repository@digest, or repository:tag@digest when tag is set.
*/ -}}
{{- define "grove.image" -}}
{{- $img := index . 0 -}}
{{- $appVersion := index . 1 -}}
{{- if $img.digest -}}
{{- $img.repository }}{{ if $img.tag }}:{{ $img.tag }}{{ end }}@{{ $img.digest }}
{{- else -}}
{{- $img.repository }}:{{ if $img.tag }}{{ $img.tag }}{{ else }}{{ $appVersion }}{{ end }}
{{- end -}}
{{- end -}}

{{- define "grove.operatorImage" -}}
{{ include "grove.image" (list .Values.image.operator .Chart.AppVersion) }}
{{- end -}}

{{- /* The operator's webhook certificate mode: cert-manager's Secret is mounted as in manual mode. */ -}}
{{- define "grove.certProvisionMode" -}}
{{- if .Values.certManager.enabled }}manual{{ else }}{{ .Values.webhooks.certProvisionMode }}{{ end -}}
{{- end -}}

{{- define "grove.operatorConfig" -}}
apiVersion: operator.config.grove.io/v1alpha1
kind: OperatorConfiguration
{{- $cfg := deepCopy .Values.operator.config }}
{{- $server := get $cfg "server" | default dict }}
{{- $webhooks := get $server "webhooks" | default dict }}
{{- $_ := set $webhooks "certProvisionMode" (include "grove.certProvisionMode" .) }}
{{- $_ := set $webhooks "secretNamespace" .Release.Namespace }}
{{- $_ := set $server "webhooks" $webhooks }}
{{- $metrics := get $server "metrics" | default dict }}
{{- $_ := set $metrics "secureServing" .Values.metrics.secureServing }}
{{- $_ := set $server "metrics" $metrics }}
{{- $_ := set $cfg "server" $server }}
{{- $_ := set $cfg "initContainer" (dict "image" (include "grove.image" (list .Values.image.initc .Chart.AppVersion)) "imagePullPolicy" .Values.image.initc.pullPolicy) }}
{{- if dig "leaderElection" "enabled" false $cfg }}
{{- $_ := set $cfg.leaderElection "resourceNamespace" .Release.Namespace }}
{{- end }}
{{ toYaml $cfg }}
{{- end -}}

{{- /*
grove.spread renders a Deployment's topologySpreadConstraints from (list
constraints name): the given list, or when it is empty a spread of the pods
named name across nodes and zones that never blocks scheduling.
*/ -}}
{{- define "grove.spread" -}}
{{- $constraints := index . 0 -}}
{{- $name := index . 1 -}}
{{- if $constraints }}
{{- toYaml $constraints }}
{{- else }}
{{- range $key := list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
- maxSkew: 1
  topologyKey: {{ $key }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector: {matchLabels: {app.kubernetes.io/name: {{ $name }}}}
  matchLabelKeys: [pod-template-hash]
{{- end }}
{{- end }}
{{- end -}}

{{- /* The securityContexts of the chart's pods and containers: the restricted Pod Security Standard. */ -}}
{{- define "grove.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile: {type: RuntimeDefault}
{{- end -}}
{{- define "grove.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities: {drop: [ALL]}
seccompProfile: {type: RuntimeDefault}
{{- end -}}

{{- /* The cert-manager Certificate of the webhook server (certManager.enabled). */ -}}
{{- define "grove.certificateName" -}}grove-webhook-server-cert{{- end -}}

{{- /*
grove.schedulerPlainMetrics is "true" when grove-scheduler serves a plain-HTTP
/metrics (metrics.secureServing false and scheduler.metricsPort set);
otherwise its /metrics is the authenticated one of its secure port.
*/ -}}
{{- define "grove.schedulerPlainMetrics" -}}
{{- if and (not .Values.metrics.secureServing) .Values.scheduler.metricsPort }}true{{ end -}}
{{- end -}}

{{/* The subjects of the FlowSchemas: both components' ServiceAccounts. */}}
{{- define "grove.flowSchemaSubjects" -}}
{{- range list .Values.operator.serviceAccountName "grove-scheduler" }}
- kind: ServiceAccount
  serviceAccount: {name: {{ . }}, namespace: {{ $.Release.Namespace }}}
{{- end }}
{{- end -}}
