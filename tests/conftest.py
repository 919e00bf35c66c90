"""Builders and fixtures for the tests come from kubeberth.testing (the plugin-author test kit):
`from kubeberth.testing import make_node, make_pod`; fixtures `scheduler_tester`, `node_factory`,
`pod_factory` are registered by its pytest plugin."""
