"""kube-scheduler's secure-serving defaults (cmd/kube-scheduler options, k8s.io/apiserver
DelegatingAuthorizationOptions), kept free of imports so the CLI can show them cheaply."""

DEFAULT_SECURE_PORT = 10259  # kube-scheduler's DefaultKubeSchedulerPort
DEFAULT_SECURE_BIND_ADDRESS = "0.0.0.0"
DEFAULT_ALWAYS_ALLOW_PATHS = ("/healthz", "/readyz", "/livez")
TOKEN_ENV = "KUBEBERTH_TOKEN"  # the clients' --token
