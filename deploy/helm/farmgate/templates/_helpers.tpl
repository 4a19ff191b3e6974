{{/* The name every object takes: the release's, as the Services' DNS names and the certificate expect. */}}
{{- define "farmgate.name" -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{- define "farmgate.labels" -}}
app.kubernetes.io/name: farmgate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "farmgate.selector" -}}
app.kubernetes.io/name: farmgate
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
