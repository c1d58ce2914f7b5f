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

{{/* repository@digest when a digest is given, else repository:tag (default the appVersion). */}}
{{- define "gitsync.image" -}}
{{- if .Values.image.digest -}}
{{- if not (regexMatch "^sha256:[0-9a-f]{64}$" .Values.image.digest) -}}{{ fail "image.digest must be sha256:<64 hex digits>" }}{{- end -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}
