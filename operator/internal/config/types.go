/*
Copyright 2026 The Grove Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package config holds grove-operator's configuration file format
// (operator.config.grove.io/v1alpha1, kind OperatorConfiguration), its
// defaults, validation and loading. docs/reference/operator-configuration.md
// is generated from these types (hack/generate.sh).
// +groupName=operator.config.grove.io
// +versionName=v1alpha1
package config

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	// APIVersion is the apiVersion of the configuration file.
	APIVersion = "operator.config.grove.io/v1alpha1"
	// Kind is the kind of the configuration file.
	Kind = "OperatorConfiguration"
)

// OperatorConfiguration configures grove-operator: the file the chart renders
// from its values and the operator reads at start (--config).
// +kubebuilder:object:root=true
type OperatorConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// RuntimeClientConnection configures the client the controllers use.
	RuntimeClientConnection ClientConnection `json:"runtimeClientConnection"`
	// LeaderElection configures leader election between operator replicas.
	LeaderElection LeaderElection `json:"leaderElection"`
	// Server configures the webhook, health-probe and metrics servers.
	Server Server `json:"server"`
	// Debugging configures profiling.
	Debugging Debugging `json:"debugging"`
	// Controllers configures each controller.
	Controllers Controllers `json:"controllers"`
	// LogLevel is debug, info or error.
	LogLevel LogLevel `json:"logLevel"`
	// LogFormat is json or text.
	LogFormat LogFormat `json:"logFormat"`
	// Scheduler configures the scheduler backends pods can be handed to.
	Scheduler Scheduler `json:"scheduler"`
	// TopologyAwareScheduling enables topology constraints on PodCliqueSets.
	TopologyAwareScheduling TopologyAwareScheduling `json:"topologyAwareScheduling"`
	// InitContainer configures the injected grove-initc container.
	InitContainer InitContainer `json:"initContainer"`
	// Authorizer configures the webhook that protects Grove-managed objects
	// from changes by anyone but the operator.
	Authorizer Authorizer `json:"authorizer"`
	// Network configures multi-node NVLink (MNNVL) ComputeDomains.
	Network Network `json:"network"`
}

// Authorizer configures the managed-resource protection webhook: updates
// and deletes of objects labelled app.kubernetes.io/managed-by=grove-operator
// (and creates of PodCliques, PodCliqueScalingGroups and PodGangs so
// labelled) are denied unless they come from the operator itself or an
// exempt user, or the owning PodCliqueSet carries the annotation
// grove.io/disable-managed-resource-protection: "true".
type Authorizer struct {
	// Enabled serves the authorizer webhook; the chart then registers its
	// ValidatingWebhookConfiguration authorizer-webhook. Default false.
	Enabled bool `json:"enabled"`
	// ExemptServiceAccountUserNames are the user names (for ServiceAccounts
	// system:serviceaccount:<namespace>:<name>) whose changes are always
	// admitted: the garbage collector, the HPA controller and other
	// controllers that must write Grove's children.
	ExemptServiceAccountUserNames []string `json:"exemptServiceAccountUserNames,omitempty"`
}

// ClientConnection configures a Kubernetes client. The defaults are high
// because client rate limits, not CPU, bound how fast large PodCliqueSets start.
type ClientConnection struct {
	// QPS is the sustained request rate. Default 500.
	QPS float32 `json:"qps"`
	// Burst is the request burst. Default 1000.
	Burst int `json:"burst"`
	// ContentType is the content type of requests.
	ContentType string `json:"contentType,omitempty"`
	// AcceptContentTypes are the accepted response content types.
	AcceptContentTypes string `json:"acceptContentTypes,omitempty"`
}

// LeaderElection configures leader election.
type LeaderElection struct {
	// Enabled turns leader election on.
	Enabled bool `json:"enabled"`
	// LeaseDuration is how long a lease is valid. Default 15s.
	LeaseDuration metav1.Duration `json:"leaseDuration"`
	// RenewDeadline is how long the leader tries to renew. Default 10s.
	RenewDeadline metav1.Duration `json:"renewDeadline"`
	// RetryPeriod is how often candidates retry. Default 2s.
	RetryPeriod metav1.Duration `json:"retryPeriod"`
	// ResourceLock is the lock type. Default leases.
	ResourceLock string `json:"resourceLock"`
	// ResourceName is the lock's name. Default grove-operator-leader-election.
	ResourceName string `json:"resourceName"`
	// ResourceNamespace is the lock's namespace. Default: the operator's namespace.
	ResourceNamespace string `json:"resourceNamespace,omitempty"`
}

// Server configures the operator's servers.
type Server struct {
	// Webhooks configures the admission webhook server.
	Webhooks WebhookServer `json:"webhooks"`
	// HealthProbes configures /healthz and /readyz.
	HealthProbes BindServer `json:"healthProbes"`
	// Metrics configures the Prometheus metrics endpoint.
	Metrics MetricsServer `json:"metrics"`
}

// MetricsServer configures the Prometheus metrics endpoint.
type MetricsServer struct {
	BindServer `json:",inline"`
	// SecureServing serves /metrics over HTTPS (a self-signed certificate
	// the operator makes at start) and admits only requests whose bearer
	// token the API server authenticates (TokenReview) and authorizes for
	// get on the non-resource URL /metrics (SubjectAccessReview), e.g. a
	// ServiceAccount bound to the ClusterRole grove-metrics-reader. false
	// serves plain HTTP to anyone who can reach the port. Default true.
	SecureServing *bool `json:"secureServing,omitempty"`
}

// BindServer is an address and port.
type BindServer struct {
	// BindAddress is the address to listen on. Empty means all addresses.
	BindAddress string `json:"bindAddress,omitempty"`
	// Port is the port to listen on.
	Port int `json:"port"`
}

// CertProvisionMode says where the webhook serving certificate comes from.
type CertProvisionMode string

const (
	// CertProvisionModeAuto makes the operator create, rotate and inject its own certificates.
	CertProvisionModeAuto CertProvisionMode = "auto"
	// CertProvisionModeManual reads certificates from ServerCertDir (for example mounted by cert-manager).
	CertProvisionModeManual CertProvisionMode = "manual"
)

// WebhookServer configures the admission webhook server.
type WebhookServer struct {
	BindServer `json:",inline"`
	// ServerCertDir holds tls.crt and tls.key. Default /etc/grove-operator/webhook-certs.
	ServerCertDir string `json:"serverCertDir"`
	// SecretName is the Secret holding the certificates in auto mode. Default grove-webhook-server-cert.
	SecretName string `json:"secretName"`
	// SecretNamespace is the Secret's namespace. Default: the operator's namespace.
	SecretNamespace string `json:"secretNamespace,omitempty"`
	// CertProvisionMode is auto (default) or manual.
	CertProvisionMode CertProvisionMode `json:"certProvisionMode"`
	// ServiceName is the Service the API server reaches the webhooks through;
	// the certificate is issued for its DNS names. Default grove-operator.
	ServiceName string `json:"serviceName"`
	// ExtraSANs are further DNS names or IP addresses for the certificate, for
	// example 127.0.0.1 when the API server calls the webhooks by URL.
	ExtraSANs []string `json:"extraSANs,omitempty"`
}

// Debugging configures profiling.
type Debugging struct {
	// EnableProfiling serves Go's pprof handlers (/debug/pprof/) on
	// PprofBindHost:PprofBindPort.
	EnableProfiling *bool `json:"enableProfiling,omitempty"`
	// PprofBindHost is the pprof address. Default 127.0.0.1.
	PprofBindHost string `json:"pprofBindHost"`
	// PprofBindPort is the pprof port. Default 2753.
	PprofBindPort int `json:"pprofBindPort"`
}

// Controllers configures the controllers.
type Controllers struct {
	// PodCliqueSet configures the PodCliqueSet controller. Default 10 workers.
	PodCliqueSet ControllerConfig `json:"podCliqueSet"`
	// PodClique configures the PodClique controller. Default 50 workers: its
	// reconciles mostly wait on the API server, so more workers create pods faster.
	PodClique ControllerConfig `json:"podClique"`
	// PodCliqueScalingGroup configures the PodCliqueScalingGroup controller. Default 5 workers.
	PodCliqueScalingGroup ControllerConfig `json:"podCliqueScalingGroup"`
}

// ControllerConfig configures one controller.
type ControllerConfig struct {
	// ConcurrentSyncs is the number of workers.
	ConcurrentSyncs int `json:"concurrentSyncs"`
}

// LogLevel is a log level.
type LogLevel string

// LogFormat is a log format.
type LogFormat string

// Log levels and formats of LogLevel and LogFormat.
const (
	LogLevelDebug LogLevel  = "debug"
	LogLevelInfo  LogLevel  = "info"
	LogLevelError LogLevel  = "error"
	LogFormatJSON LogFormat = "json"
	LogFormatText LogFormat = "text"
)

// Scheduler backend names.
const (
	// SchedulerBackendGrove hands pods to grove-scheduler, which gang-schedules PodGangs.
	SchedulerBackendGrove = "grove-scheduler"
	// SchedulerBackendDefault hands pods to kube-scheduler. With
	// DefaultSchedulerConfig.GangScheduling each PodGang becomes a Kubernetes
	// Workload with one PodGroup per pod group (scheduling.k8s.io/v1beta1);
	// without it kube-scheduler gets Grove's gates and ordering only, no gang
	// guarantee.
	SchedulerBackendDefault = "default-scheduler"
	// SchedulerBackendSchedulerPlugins hands pods to a kube-scheduler built
	// with the scheduler-plugins Coscheduling plugin: each PodGang becomes a
	// scheduling.x-k8s.io/v1alpha1 PodGroup.
	SchedulerBackendSchedulerPlugins = "scheduler-plugins-scheduler"
	// SchedulerBackendVolcano hands pods to Volcano: each PodGang becomes a
	// scheduling.volcano.sh/v1beta1 PodGroup.
	SchedulerBackendVolcano = "volcano"
	// SchedulerBackendKAI hands pods to the KAI scheduler: each PodGang
	// becomes a scheduling.run.ai/v2alpha2 PodGroup with one subGroup per pod
	// group.
	SchedulerBackendKAI = "kai-scheduler"
)

// Scheduler configures scheduler backends.
type Scheduler struct {
	// Profiles are the enabled backends. Default [grove-scheduler, default-scheduler].
	Profiles []SchedulerProfile `json:"profiles"`
	// DefaultProfileName is the backend for pods whose template names no
	// scheduler. Default grove-scheduler.
	DefaultProfileName string `json:"defaultProfileName"`
}

// SchedulerProfile enables one scheduler backend.
type SchedulerProfile struct {
	// Name is the backend, and the schedulerName Grove sets on its pods:
	// grove-scheduler, default-scheduler, scheduler-plugins-scheduler, volcano
	// or kai-scheduler.
	Name string `json:"name"`
	// Config holds the backend's settings: DefaultSchedulerConfig,
	// SchedulerPluginsConfig, VolcanoConfig or KAIConfig. grove-scheduler
	// takes none.
	// Unknown keys are errors.
	Config *runtime.RawExtension `json:"config,omitempty"`
}

// DefaultSchedulerConfig configures the default-scheduler backend.
// +kubebuilder:object:root=true
type DefaultSchedulerConfig struct {
	// GangScheduling translates every PodGang into a Workload and PodGroups of
	// the Kubernetes Workload API (scheduling.k8s.io/v1beta1), which
	// kube-scheduler 1.37 gang-schedules when its GenericWorkload feature gate
	// and the API are enabled. Default false: pods only.
	GangScheduling bool `json:"gangScheduling,omitempty"`
	// TopologyAwareScheduling copies a pod group's required pack key into the
	// PodGroup's schedulingConstraints.topology (feature gate
	// TopologyAwareWorkloadScheduling, alpha in 1.37). Without it, a
	// PodCliqueSet with topology constraints is rejected for this backend.
	TopologyAwareScheduling bool `json:"topologyAwareScheduling,omitempty"`
}

// SchedulerPluginsConfig configures the scheduler-plugins-scheduler backend.
// +kubebuilder:object:root=true
type SchedulerPluginsConfig struct {
	// ScheduleTimeoutSeconds is copied to each PodGroup's
	// spec.scheduleTimeoutSeconds: how long pods of an incomplete gang wait at
	// Permit. Unset leaves the plugin's own default.
	ScheduleTimeoutSeconds *int32 `json:"scheduleTimeoutSeconds,omitempty"`
}

// VolcanoConfig configures the volcano backend.
// +kubebuilder:object:root=true
type VolcanoConfig struct {
	// DefaultQueue is the Volcano queue of a PodGang whose PodCliqueSet has no
	// scheduling.grove.io/volcano-queue annotation. Default "default".
	DefaultQueue string `json:"defaultQueue,omitempty"`
}

// KAIConfig configures the kai-scheduler backend.
// +kubebuilder:object:root=true
type KAIConfig struct {
	// DefaultQueue is the KAI queue of a PodGang whose PodCliqueSet has no
	// kai.scheduler/queue label or annotation. Default "default-queue", the
	// leaf queue of KAI's quickstart.
	DefaultQueue string `json:"defaultQueue,omitempty"`
}

// TopologyAwareScheduling configures topology constraints.
type TopologyAwareScheduling struct {
	// Enabled allows topology constraints on PodCliqueSets. Default true:
	// grove-scheduler places them natively.
	Enabled *bool `json:"enabled,omitempty"`
}

// Network configures multi-node NVLink.
type Network struct {
	// AutoMNNVLEnabled makes the operator create a resource.nvidia.com/v1beta1
	// ComputeDomain per PodCliqueSet replica and grove.io/mnnvl-group used by
	// GPU-requesting cliques, and give their pods its claim. The operator
	// then refuses to start when the ComputeDomain CRD is not served.
	// Default false.
	AutoMNNVLEnabled bool `json:"autoMNNVLEnabled"`
}

// DefaultInitContainerRepository is the grove-initc image repository of the
// default InitContainer.Image, whose tag is the operator's own version.
const DefaultInitContainerRepository = "ghcr.io/grove-project/grove-initc"

// InitContainer configures grove-initc injection.
type InitContainer struct {
	// Image is the grove-initc image reference the operator injects, with a
	// tag, a digest or both (repository:tag, repository@sha256:…,
	// repository:tag@sha256:…); the chart passes image.initc. Default
	// ghcr.io/grove-project/grove-initc:<operator version>.
	Image string `json:"image"`
	// ImagePullPolicy is the injected container's pull policy: Always,
	// IfNotPresent or Never. Default IfNotPresent.
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy"`
}
