{{/* The name of every object. */}}
{{- define "schedulerops.fullname" -}}
{{- default "schedulerops-operator" .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels: kept identical to deploy/ so that switching between kustomize and Helm works. */}}
{{- define "schedulerops.selectorLabels" -}}
app.kubernetes.io/name: schedulerops-operator
app.kubernetes.io/component: operator
{{- end -}}

{{- define "schedulerops.labels" -}}
{{ include "schedulerops.selectorLabels" . }}
app.kubernetes.io/part-of: schedulerops
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Where every profile's objects go: workloadNamespace, or the release namespace. */}}
{{- define "schedulerops.workloadNamespace" -}}
{{- default .Release.Namespace .Values.workloadNamespace -}}
{{- end -}}

{{- define "schedulerops.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "schedulerops.extenderImage" -}}
{{- printf "%s:%s" .Values.extenderImage.repository (default .Chart.AppVersion .Values.extenderImage.tag) -}}
{{- end -}}
