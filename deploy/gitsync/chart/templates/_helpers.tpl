{{/* The certificate Secret the webhook serves with. */}}
{{- define "gitsync.webhookCertSecret" -}}
{{- if .Values.certManager.enabled -}}gitsync-webhook-cert{{- else -}}{{ required "webhookCert.secretName is required without cert-manager" .Values.webhookCert.secretName }}{{- end -}}
{{- end -}}

{{- define "gitsync.labels" -}}
app.kubernetes.io/name: gitsync-manager
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
