{{/* Names and labels. nameOverride replaces the chart name, fullnameOverride the whole <release>-<chart> prefix (Helm's usual helpers). */}}
{{- define "runnel.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{- define "runnel.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "runnel.labels" -}}
app.kubernetes.io/name: {{ include "runnel.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "runnel.selector" -}}
app.kubernetes.io/name: {{ include "runnel.name" .root }}
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
{{- if and .Values.broker.kafka.acls.enabled (not $auth) -}}
{{- fail "broker.kafka.acls.enabled: set broker.http.auth (basicUser/basicPassword, bearerToken or existingSecret), or the console and /metrics would bypass the ACLs (the broker refuses to start, RN3003)" -}}
{{- end -}}
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

{{/*
Kafka listeners beyond the chart's PLAINTEXT one on broker.port (which stays, as
Runnel's broker-to-broker
client speaks PLAINTEXT only, docs/security.md "Listener settings"):
CLIENT on broker.kafka.port when broker.kafka.tls or broker.kafka.sasl is on,
EXTERNAL on broker.external.port when broker.external is on. Both use the
secured protocol: SASL_SSL, SSL, SASL_PLAINTEXT, or PLAINTEXT for EXTERNAL
when neither TLS nor SASL is on.
*/}}
{{- define "runnel.kafkaProtocol" -}}
{{- $k := .Values.broker.kafka -}}
{{- if and $k.tls.enabled $k.sasl.enabled -}}SASL_SSL{{- else if $k.tls.enabled -}}SSL{{- else if $k.sasl.enabled -}}SASL_PLAINTEXT{{- else -}}PLAINTEXT{{- end -}}
{{- end -}}
{{- define "runnel.kafkaClientListener" -}}{{- if or .Values.broker.kafka.tls.enabled .Values.broker.kafka.sasl.enabled -}}true{{- end -}}{{- end -}}
{{- define "runnel.kafkaListeners" -}}{{- if or (include "runnel.kafkaClientListener" .) .Values.broker.external.enabled -}}true{{- end -}}{{- end -}}

{{/* The in-cluster advertised address of a pod, $(POD_NAME) expanded by Kubernetes. */}}
{{- define "runnel.podHost" -}}$(POD_NAME).{{ include "runnel.brokersService" . }}.{{ .Release.Namespace }}.svc.{{ .Values.broker.clusterDomain }}{{- end -}}

{{/*
advertised.listeners. The EXTERNAL port of a NodePort Service differs per pod
(nodePortBase + ordinal), so the value is then computed by the container's
shell ($$ is a literal $ for Kubernetes): used in the args line only.
*/}}
{{- define "runnel.advertisedListeners" -}}
{{- $b := .Values.broker -}}
{{- $l := list (printf "PLAINTEXT://%s:%v" (include "runnel.podHost" .) $b.port) -}}
{{- if include "runnel.kafkaClientListener" . -}}{{- $l = append $l (printf "CLIENT://%s:%v" (include "runnel.podHost" .) $b.kafka.port) -}}{{- end -}}
{{- if $b.external.enabled -}}
{{- $port := ternary (printf "$$(( ${POD_NAME##*-} + %d ))" (int $b.external.nodePortBase)) (toString $b.external.port) (eq $b.external.type "NodePort") -}}
{{- $l = append $l (printf "EXTERNAL://$(POD_NAME).%s:%s" (required "broker.external.domain is needed: broker N advertises <release>-runnel-broker-N.<domain>" $b.external.domain) $port) -}}
{{- end -}}
{{- join "," $l -}}
{{- end -}}

{{/* Environment of the Kafka listeners, TLS, SASL and ACLs (nothing when all are off: the default render is unchanged). */}}
{{- define "runnel.kafkaEnv" -}}
{{- $b := .Values.broker -}}
{{- $k := $b.kafka -}}
{{- $proto := include "runnel.kafkaProtocol" . -}}
{{- if include "runnel.kafkaListeners" . -}}
{{- range $key := list "listeners" "advertised.listeners" "listener.security.protocol.map" -}}
{{- if hasKey $b.config $key -}}{{- fail (printf "broker.config sets %s: the chart sets it when broker.kafka.tls, broker.kafka.sasl or broker.external is on" $key) -}}{{- end -}}
{{- end -}}
{{- $ls := list (printf "PLAINTEXT://0.0.0.0:%v" $b.port) -}}
{{- $map := list "PLAINTEXT:PLAINTEXT" -}}
{{- if include "runnel.kafkaClientListener" . -}}{{- $ls = append $ls (printf "CLIENT://0.0.0.0:%v" $k.port) -}}{{- $map = append $map (printf "CLIENT:%s" $proto) -}}{{- end -}}
{{- if $b.external.enabled -}}{{- $ls = append $ls (printf "EXTERNAL://0.0.0.0:%v" $b.external.port) -}}{{- $map = append $map (printf "EXTERNAL:%s" $proto) -}}{{- end }}
- name: RUNNEL_LISTENERS
  value: {{ join "," $ls | quote }}
- name: RUNNEL_LISTENER_SECURITY_PROTOCOL_MAP
  value: {{ join "," $map | quote }}
{{- if not $b.external.enabled }}
- name: RUNNEL_ADVERTISED_LISTENERS
  value: {{ include "runnel.advertisedListeners" . | quote }}
{{- end }}
{{- end }}
{{- if $k.tls.enabled }}
- name: RUNNEL_SSL_KEYSTORE_TYPE
  value: PEM
- name: RUNNEL_SSL_KEYSTORE_LOCATION
  value: {{ printf "/etc/runnel/kafka-tls/%s" $k.tls.keystoreKey | quote }}
{{- if ne $k.tls.clientAuth "none" }}
- name: RUNNEL_SSL_CLIENT_AUTH
  value: {{ $k.tls.clientAuth | quote }}
- name: RUNNEL_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: RUNNEL_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "/etc/runnel/kafka-tls/%s" $k.tls.caKey | quote }}
{{- end }}
{{- end }}
{{- if $k.sasl.enabled }}
- name: RUNNEL_SASL_ENABLED_MECHANISMS
  value: {{ join "," $k.sasl.mechanisms | quote }}
{{- with $k.sasl.jaasConfigSecret }}
# sasl.jaas.config (static PLAIN users) stays in the Secret
- name: RUNNEL_SASL_JAAS_CONFIG
  valueFrom: {secretKeyRef: {name: {{ . }}, key: {{ $k.sasl.jaasConfigKey }}}}
{{- end }}
{{- end }}
{{- if $k.acls.enabled }}
{{- range $key := list "authorizer.class.name" "super.users" "allow.everyone.if.no.acl.found" -}}
{{- if hasKey $b.config $key -}}{{- fail (printf "broker.config sets %s: use broker.kafka.acls" $key) -}}{{- end -}}
{{- end }}
- name: RUNNEL_AUTHORIZER_CLASS_NAME
  value: org.apache.kafka.metadata.authorizer.StandardAuthorizer
- name: RUNNEL_SUPER_USERS
  value: {{ join ";" $k.acls.superUsers | quote }}
- name: RUNNEL_ALLOW_EVERYONE_IF_NO_ACL_FOUND
  value: {{ $k.acls.allowEveryoneIfNoAclFound | quote }}
{{- end }}
{{- end -}}

{{/*
The lake (archiver.lake, s3.*): written by the archiver, read by the brokers for
tiered topics (remote.storage.enable=true, docs/lake.md). Both pods get this one
block, so they cannot name different lakes.
*/}}
{{- define "runnel.lakeEnv" -}}
- name: RUNNEL_LAKE
  value: {{ required "archiver.lake is needed" .Values.archiver.lake | quote }}
- name: RUNNEL_S3_REGION
  value: {{ .Values.s3.region | quote }}
{{- with .Values.s3.endpoint }}
- name: RUNNEL_S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- if ne (toString .Values.s3.forcePathStyle) "" }}
- name: RUNNEL_S3_FORCE_PATH_STYLE
  value: {{ .Values.s3.forcePathStyle | toString | quote }}
{{- end }}
{{- end -}}

{{/* The lake's S3 keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) from the chart's Secret or s3.existingSecret; without keys the SDK's chain (IRSA / workload identity on the ServiceAccount). */}}
{{- define "runnel.lakeEnvFrom" -}}
{{- if or .Values.s3.existingSecret .Values.s3.accessKeyId -}}
envFrom:
  - secretRef:
      name: {{ include "runnel.s3Secret" . }}
{{- end }}
{{- end -}}

{{/* Refuses lake settings given a second way (broker.config, extraEnv, archiver.config): they would let the brokers and the archiver name different lakes. */}}
{{- define "runnel.lakeGuard" -}}
{{- if .Values.archiver.enabled -}}
{{- range $key := list "lake" "s3.endpoint" "s3.force.path.style" "s3.region" -}}
{{- if hasKey $.Values.broker.config $key -}}{{- fail (printf "broker.config sets %s: the chart gives the brokers the archiver's lake (archiver.lake, s3.*)" $key) -}}{{- end -}}
{{- end -}}
{{- $names := list "RUNNEL_LAKE" "RUNNEL_S3_ENDPOINT" "RUNNEL_S3_FORCE_PATH_STYLE" "RUNNEL_S3_REGION" -}}
{{- range $k, $_ := .Values.archiver.config -}}
{{- if has $k $names -}}{{- fail (printf "archiver.config sets %s: use archiver.lake and s3.*, which the brokers read too" $k) -}}{{- end -}}
{{- end -}}
{{- range $where, $list := dict "broker.extraEnv" .Values.broker.extraEnv "archiver.extraEnv" .Values.archiver.extraEnv -}}
{{- range $list -}}
{{- if has (get . "name" | default "") $names -}}{{- fail (printf "%s sets %s: use archiver.lake and s3.*, which the brokers and the archiver both read" $where (get . "name")) -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Rolls the pods that read the lake's S3 keys when the chart's Secret of them changes. */}}
{{- define "runnel.s3Checksum" -}}
{{- pick .Values.s3 "accessKeyId" "secretAccessKey" "existingSecret" | toJson | sha256sum -}}
{{- end -}}
