"""Secure serving for `kubeberth run`, as kube-scheduler does it: HTTPS on the secure port with
delegated authentication (TokenReview) and authorization (SubjectAccessReview).

    options = secure_serving_options(args, embedded=False)   # flags, checked (options.py)
    add_secure_listener(http, options, kubeconfig)             # TLS + the guard (listener.py)

Pieces: certs.py (the serving certificate), authn.py / authz.py (the delegating authenticator
and authorizer with their caches), reviews.py (the API calls), guard.py (the filter chain),
client.py (`explain` and `plugins list --server` against it).
"""
