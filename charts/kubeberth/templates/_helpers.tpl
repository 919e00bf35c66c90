{{/* The chart name, or nameOverride. */}}
{{- define "kubeberth.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's objects' name: fullnameOverride, else the release name when it already
contains the chart name, else <release>-<chart>. */}}
{{- define "kubeberth.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kubeberth.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kubeberth.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "kubeberth.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "kubeberth.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "kubeberth.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kubeberth.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag, repository:tag@digest, or repository@digest when tag is "-". */}}
{{- define "kubeberth.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion }}
{{- $ref := .Values.image.repository }}
{{- if ne $tag "-" }}{{ $ref = printf "%s:%s" $ref $tag }}{{ end }}
{{- if .Values.image.digest }}{{ $ref = printf "%s@%s" $ref .Values.image.digest }}{{ end }}
{{- $ref }}
{{- end }}

{{/* The KubeSchedulerConfiguration: schedulerConfig with the chart's leaderElection. */}}
{{- define "kubeberth.schedulerConfig" -}}
{{- $le := .Values.leaderElection }}
{{- $cfg := omit .Values.schedulerConfig "apiVersion" "kind" "leaderElection" }}
{{- $head := dict "apiVersion" "kubescheduler.config.k8s.io/v1" "kind" "KubeSchedulerConfiguration" }}
{{- $_ := set $head "leaderElection" (dict
      "leaderElect" $le.enabled
      "leaseDuration" $le.leaseDuration
      "renewDeadline" $le.renewDeadline
      "retryPeriod" $le.retryPeriod
      "resourceLock" "leases"
      "resourceName" $le.resourceName
      "resourceNamespace" .Release.Namespace) }}
{{- toYaml (merge $head $cfg) }}
{{- end }}
