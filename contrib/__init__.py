"""Optional scheduling policies: load-aware scoring and filtering from measured node metrics
(Prometheus or metrics.k8s.io), interference from pressure stall information, SLA-tier queue
order and a PreBind reservation check. Registered through the `kubeberth.plugins` entry point
group; enable them in a profile like any other plugin (see config/examples/load-aware.yaml)."""
