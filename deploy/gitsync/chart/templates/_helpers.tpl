{{/*
Where the webhook's certificate comes from: "cert-manager", "own" (webhookCert.secretName and caBundle) or
"manager" (the manager issues and renews its own in the Secret gitsync-webhook-cert; the default).
*/}}
{{- define "gitsync.webhookCertMode" -}}
{{- if .Values.certManager.enabled -}}cert-manager{{- else if .Values.webhookCert.secretName -}}own{{- else -}}manager{{- end -}}
{{- end -}}

{{/* The Secret the webhook serves from (mounted, except in "manager" mode where the manager reads it). */}}
{{- define "gitsync.webhookCertSecret" -}}
{{- if eq (include "gitsync.webhookCertMode" .) "own" -}}{{ .Values.webhookCert.secretName }}{{- else -}}gitsync-webhook-cert{{- end -}}
{{- end -}}

{{- define "gitsync.labels" -}}
app.kubernetes.io/name: gitsync-manager
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* repository@digest when a digest is given, else repository:tag (default the appVersion). */}}
{{- define "gitsync.image" -}}
{{- if .Values.image.digest -}}
{{- if not (regexMatch "^sha256:[0-9a-f]{64}$" .Values.image.digest) -}}{{ fail "image.digest must be sha256:<64 hex digits>" }}{{- end -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}
