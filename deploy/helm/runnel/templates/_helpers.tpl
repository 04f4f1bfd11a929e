{{/* Names and labels. */}}
{{- define "runnel.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "runnel.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "runnel.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "runnel.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "runnel.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "runnel.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "runnel.brokersService" -}}{{ include "runnel.fullname" . }}-brokers{{- end -}}
{{- define "runnel.redisSecret" -}}{{ .Values.redis.existingSecret | default (printf "%s-redis" (include "runnel.fullname" .)) }}{{- end -}}
{{- define "runnel.httpSecret" -}}{{ .Values.broker.http.auth.existingSecret | default (printf "%s-http" (include "runnel.fullname" .)) }}{{- end -}}
{{- define "runnel.s3Secret" -}}{{ .Values.s3.existingSecret | default (printf "%s-s3" (include "runnel.fullname" .)) }}{{- end -}}

{{/*
The Redis URL: redis[s]://[user:password@]host:port[/db][,redis[s]://host:port...].
Checks the endpoint count against redis.mode (docs/redis-cluster.md); the mode
and the host:port form are checked by values.schema.json.
*/}}
{{- define "runnel.redisUrl" -}}
{{- $r := .Values.redis -}}
{{- $single := or (eq $r.mode "standalone") (eq $r.mode "enterprise-proxy") -}}
{{- if and $single (gt (len $r.endpoints) 1) -}}
{{- fail (printf "redis.mode=%s takes exactly one endpoint (a seed list is for mode cluster or enterprise-cluster)" $r.mode) -}}
{{- end -}}
{{- if and (not $single) (toString $r.db) -}}
{{- fail (printf "redis.db: a %s has only database 0" $r.mode) -}}
{{- end -}}
{{- $auth := "" -}}
{{- if $r.password -}}
{{- $auth = printf "%s:%s@" (urlquery $r.username) (urlquery $r.password) -}}
{{- else if $r.username -}}
{{- $auth = printf "%s@" (urlquery $r.username) -}}
{{- end -}}
{{- $db := "" -}}
{{- if toString $r.db -}}{{- $db = printf "/%v" $r.db -}}{{- end -}}
{{- /* Every seed carries the scheme: Runnel reads a bare host:port as redis:// and refuses mixed schemes. */ -}}
{{- $scheme := ternary "rediss" "redis" $r.tls.enabled -}}
{{- $rest := list -}}
{{- range rest $r.endpoints -}}{{- $rest = append $rest (printf "%s://%s" $scheme .) -}}{{- end -}}
{{- printf "%s://%s%s%s" $scheme $auth (first $r.endpoints) $db -}}
{{- range $rest -}},{{ . }}{{- end -}}
{{- end -}}

{{/* RUNNEL_<KEY> for each entry of a settings map (setting name -> value). */}}
{{- define "runnel.configEnv" -}}
{{- range $k, $v := . }}
- name: {{ printf "RUNNEL_%s" ($k | upper | replace "." "_" | replace "-" "_") }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* Redis connection environment shared by the broker and the archiver. */}}
{{- define "runnel.redisEnv" -}}
- name: RUNNEL_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "runnel.redisSecret" . }}
      key: {{ if .Values.redis.existingSecret }}{{ .Values.redis.existingSecretKey }}{{ else }}redis-url{{ end }}
{{- if and .Values.redis.tls.enabled .Values.redis.tls.secretName }}
- name: RUNNEL_REDIS_TLS_CA_LOCATION
  value: /etc/runnel/redis-tls/ca.crt
{{- if .Values.redis.tls.clientCertificate }}
- name: RUNNEL_REDIS_TLS_CERT_LOCATION
  value: /etc/runnel/redis-tls/tls.crt
- name: RUNNEL_REDIS_TLS_KEY_LOCATION
  value: /etc/runnel/redis-tls/tls.key
{{- end }}
{{- end }}
{{- with .Values.redis.tls.servername }}
- name: RUNNEL_REDIS_TLS_SERVERNAME
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{- define "runnel.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /var/lib/runnel
{{- if and .Values.redis.tls.enabled .Values.redis.tls.secretName }}
- name: redis-tls
  mountPath: /etc/runnel/redis-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "runnel.volumes" -}}
- name: tmp
  emptyDir: {}
- name: data
  emptyDir: {}
{{- if and .Values.redis.tls.enabled .Values.redis.tls.secretName }}
- name: redis-tls
  secret:
    secretName: {{ .Values.redis.tls.secretName }}
{{- end }}
{{- end -}}

{{- define "runnel.probes" -}}
startupProbe:
  httpGet: {path: /health, port: http}
  periodSeconds: {{ .probes.startup.periodSeconds }}
  failureThreshold: {{ .probes.startup.failureThreshold }}
livenessProbe:
  httpGet: {path: /health, port: http}
  periodSeconds: {{ .probes.liveness.periodSeconds }}
  timeoutSeconds: {{ .probes.liveness.timeoutSeconds }}
  failureThreshold: {{ .probes.liveness.failureThreshold }}
readinessProbe:
  httpGet: {path: /ready, port: http}
  periodSeconds: {{ .probes.readiness.periodSeconds }}
  timeoutSeconds: {{ .probes.readiness.timeoutSeconds }}
  failureThreshold: {{ .probes.readiness.failureThreshold }}
{{- end -}}


{{/* "basic", "bearer" or "" (none): how the broker's HTTP endpoint authenticates (an existingSecret holds basic credentials). */}}
{{- define "runnel.httpAuth" -}}
{{- $a := .Values.broker.http.auth -}}
{{- if or $a.existingSecret $a.basicUser -}}basic{{- else if $a.bearerToken -}}bearer{{- end -}}
{{- end -}}

{{/* The broker's HTTP credentials from the Secret, and the console switch; refuses what would serve data to anyone. */}}
{{- define "runnel.httpEnv" -}}
{{- $a := .Values.broker.http.auth -}}
{{- $auth := include "runnel.httpAuth" . -}}
{{- $authorizer := index .Values.broker.config "authorizer.class.name" | default "" -}}
{{- if and $authorizer (not $auth) -}}
{{- fail "broker.config sets authorizer.class.name: set broker.http.auth (basicUser/basicPassword, bearerToken or existingSecret), or the console and /metrics would bypass the ACLs (the broker refuses to start, RN3003)" -}}
{{- end -}}
{{- if and .Values.broker.http.console (not $auth) -}}
{{- fail "broker.http.console=true needs broker.http.auth (basicUser/basicPassword or existingSecret): the console shows records" -}}
{{- end -}}
{{- if and $a.basicUser (not $a.basicPassword) (not $a.existingSecret) -}}
{{- fail "broker.http.auth.basicPassword is needed with broker.http.auth.basicUser" -}}
{{- end -}}
- name: RUNNEL_HTTP_CONSOLE_ENABLE
  value: {{ .Values.broker.http.console | quote }}
{{- if eq $auth "basic" }}
- name: RUNNEL_HTTP_AUTH_BASIC_USER
  valueFrom: {secretKeyRef: {name: {{ include "runnel.httpSecret" . }}, key: basic-user}}
- name: RUNNEL_HTTP_AUTH_BASIC_PASSWORD
  valueFrom: {secretKeyRef: {name: {{ include "runnel.httpSecret" . }}, key: basic-password}}
{{- end }}
{{- if or $a.bearerToken $a.existingSecret }}
- name: RUNNEL_HTTP_AUTH_BEARER_TOKEN
  valueFrom: {secretKeyRef: {name: {{ include "runnel.httpSecret" . }}, key: bearer-token, optional: {{ not $a.bearerToken }}}}
{{- end }}
{{- with $a.bearerPrincipal }}
- name: RUNNEL_HTTP_AUTH_BEARER_PRINCIPAL
  value: {{ . | quote }}
{{- end }}
{{- end -}}
