"""kube-scheduler's default-profile plugins, registered through the `kubeberth.plugins` entry point group."""
