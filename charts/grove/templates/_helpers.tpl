{{- define "grove.labels" -}}
app.kubernetes.io/part-of: grove
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "grove.operatorImage" -}}
{{ .Values.image.operator.repository }}:{{ default .Chart.AppVersion .Values.image.operator.tag }}
{{- end -}}

{{- define "grove.operatorConfig" -}}
apiVersion: operator.config.grove.io/v1alpha1
kind: OperatorConfiguration
{{- $cfg := deepCopy .Values.operator.config }}
{{- $webhooks := get $cfg.server "webhooks" }}
{{- $_ := set $webhooks "certProvisionMode" .Values.webhooks.certProvisionMode }}
{{- $_ := set $webhooks "secretNamespace" .Release.Namespace }}
{{- $_ := set $cfg "initContainer" (dict "image" .Values.image.initc.repository) }}
{{- if $cfg.leaderElection.enabled }}
{{- $_ := set $cfg.leaderElection "resourceNamespace" .Release.Namespace }}
{{- end }}
{{ toYaml $cfg }}
{{- end -}}
